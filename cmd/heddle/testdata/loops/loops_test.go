package loops

import (
	"sync"
	"testing"
)

var sink int

func TestSpin(t *testing.T) {
	var mu sync.Mutex
	mu.Lock()
	mu.Unlock()
	for {
		sink++
	}
}
