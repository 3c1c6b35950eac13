// Package slow has a correct test with more schedules than any budget explores.
package slow

import (
	"os"
	"sync"
	"testing"
)

// told is set once a run has told SLOW_STARTED's reader that the exploration is under way.
var told bool

func TestManySchedules(t *testing.T) {
	tellStarted()
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 6; j++ {
				mu.Lock()
				n++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if n != 36 {
		t.Fatalf("n = %d, want 36", n)
	}
}

// tellStarted writes a byte to the FIFO named by SLOW_STARTED, once its reader has opened it
// (heddle's TestInterrupted interrupts the exploration when it reads it). Opening without
// blocking fails while nobody reads, and a later run tries again.
func tellStarted() {
	p := os.Getenv("SLOW_STARTED")
	if p == "" || told {
		return
	}
	f, err := os.OpenFile(p, os.O_WRONLY|nonblock, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if _, err := f.Write([]byte{1}); err == nil {
		told = true
	}
}
