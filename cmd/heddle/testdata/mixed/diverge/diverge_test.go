// Package diverge has a correct test whose goroutines depend on map iteration order, which
// heddle does not control: replays of its schedules can diverge.
package diverge

import (
	"sync"
	"testing"
)

func TestMapOrder(t *testing.T) {
	m := map[int]bool{1: true, 2: true, 3: true, 4: true}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for k := range m {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < k; i++ {
				mu.Lock()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}
