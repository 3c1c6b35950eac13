// A func value replaced by one goroutine while another calls it. Fixed: replaced before the
// go statement.
package funcvalue

import (
	"sync"
	"testing"
)

func TestBug(t *testing.T) {
	hook := func() {}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); hook() }()
	hook = func() {}
	wg.Wait()
}

func TestFixed(t *testing.T) {
	hook := func() {}
	hook = func() {}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); hook() }()
	wg.Wait()
}
