// Package printing has a lost update whose workers print as they go: to standard error
// directly and through package log, and to standard output, which goes to the test's log.
package printing

import (
	"fmt"
	"log"
	"os"
	"sync"
	"testing"
)

func TestLostUpdate(t *testing.T) {
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			v := n
			mu.Unlock()
			fmt.Printf("worker %d read %d\n", i, v)
			mu.Lock()
			n = v + 1
			mu.Unlock()
			log.Printf("worker %d wrote %d", i, v+1)
			fmt.Fprintf(os.Stderr, "worker %d done\n", i)
		}()
	}
	wg.Wait()
	if n != 2 {
		t.Fatalf("n = %d, want 2", n)
	}
}
