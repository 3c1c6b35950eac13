// Every Done happens before Wait returns. Bug: a write after Done. Fixed: two goroutines write
// before their Done, and the waiter reads both.
package waitgroup

import (
	"sync"
	"testing"
)

func TestBug(t *testing.T) {
	x := 0
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { wg.Done(); x = 1 }()
	wg.Wait()
	_ = x
}

func TestFixed(t *testing.T) {
	x, y := 0, 0
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { x = 1; wg.Done() }()
	go func() { y = 1; wg.Done() }()
	wg.Wait()
	_, _ = x, y
}
