// The function of a Once happens before every Do returns. Bug: the first caller writes after
// its Do. Fixed: the write is in the function.
package once

import (
	"sync"
	"testing"
)

func TestBug(t *testing.T) {
	x := 0
	var once sync.Once
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); once.Do(func() {}); x = 1 }()
	go func() { defer wg.Done(); once.Do(func() {}); _ = x }()
	wg.Wait()
}

func TestFixed(t *testing.T) {
	x := 0
	var once sync.Once
	var wg sync.WaitGroup
	wg.Add(2)
	for range 2 {
		go func() { defer wg.Done(); once.Do(func() { x = 1 }); _ = x }()
	}
	wg.Wait()
}
