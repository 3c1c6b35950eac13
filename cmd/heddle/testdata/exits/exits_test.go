package exits

import (
	"os"
	"sync"
	"testing"
)

func TestExit(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); os.Exit(3) }()
	wg.Wait()
}
