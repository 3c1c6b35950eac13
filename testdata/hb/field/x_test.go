// A struct field written by two goroutines. Fixed: each writes a field of its own.
package field

import (
	"sync"
	"testing"
)

type pair struct{ a, b int }

func TestBug(t *testing.T) {
	p := new(pair)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); p.a = 1 }()
	go func() { defer wg.Done(); p.a = 2 }()
	wg.Wait()
}

func TestFixed(t *testing.T) {
	p := new(pair)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); p.a = 1 }()
	go func() { defer wg.Done(); p.b = 2 }()
	wg.Wait()
}
