// Package mid adds to a base.Box from goroutines.
package mid

import (
	"sync"

	"example.com/layers/base"
)

// AddAll adds each of ds to b, each from a goroutine of its own.
func AddAll(b *base.Box, ds ...int) {
	var wg sync.WaitGroup
	for _, d := range ds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.Add(d)
		}()
	}
	wg.Wait()
}
