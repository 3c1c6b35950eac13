// Pattern: a function fills the slice it returns from goroutines that it starts, and the
// goroutines read the slice variable, a named result that their closure captures. The buggy
// version trims the result after starting them: a write of the variable that no
// synchronization orders with the goroutines' reads. Returning the named result as it is
// ("return chans") writes nothing, and must not be reported.
// Modeled on: concurrent-map's snapshot (IterBuffered), whose shard goroutines index the
// result slice while the function returns it.
// Fix: the fixed twin returns the result without assigning it again.
package snapshotresult

import (
	"sync"
	"testing"
)

func snapshot(shards [][]int, trim bool) (chans []chan int) {
	chans = make([]chan int, len(shards)+1)
	var wg sync.WaitGroup
	wg.Add(len(shards))
	for i, shard := range shards {
		go func() {
			chans[i] = make(chan int, len(shard))
			wg.Done()
			for _, v := range shard {
				chans[i] <- v
			}
			close(chans[i])
		}()
	}
	wg.Wait()
	if trim {
		chans = chans[:len(shards)] // BUG: the goroutines still read chans
	}
	return chans
}

func run(t *testing.T, trim bool) {
	sum := 0
	for _, ch := range snapshot([][]int{{1, 2}, {3}}, trim)[:2] {
		for v := range ch {
			sum += v
		}
	}
	if sum != 6 {
		t.Errorf("sum = %d, want 6", sum)
	}
}

func TestBug(t *testing.T)   { run(t, true) }
func TestFixed(t *testing.T) { run(t, false) }
