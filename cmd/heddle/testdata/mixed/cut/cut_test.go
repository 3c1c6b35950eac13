// Package cut has a test whose runs keep working past the step bound: heddle reports it as
// cut, not as a bug.
package cut

import (
	"sync"
	"testing"
)

func TestCounter(t *testing.T) {
	var mu sync.Mutex
	n := 0
	for i := 0; i < 100_000; i++ {
		mu.Lock()
		n++
		mu.Unlock()
	}
}
