// Package loopvar121 is at go 1.21, where a for loop's variable is shared by its iterations:
// the goroutines a loop starts read it while the loop writes it. Built at Go 1.22's language
// version instead, the variable is per iteration and the race is gone.
package loopvar121

import (
	"sync"
	"testing"
)

func check(s string) int { return len(s) }

// TestRaceLoopCapture: the classic capture of a range variable by the goroutines of the loop.
func TestRaceLoopCapture(t *testing.T) {
	checks := []string{"disk", "net", "mem"}
	var wg sync.WaitGroup
	for _, c := range checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			check(c)
		}()
	}
	wg.Wait()
}

// TestNoRaceLoopCopy: the usual fix before Go 1.22, a copy of the variable per iteration.
func TestNoRaceLoopCopy(t *testing.T) {
	checks := []string{"disk", "net", "mem"}
	var wg sync.WaitGroup
	for _, c := range checks {
		c := c
		wg.Add(1)
		go func() {
			defer wg.Done()
			check(c)
		}()
	}
	wg.Wait()
}
