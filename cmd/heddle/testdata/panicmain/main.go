// Command panicmain panics in main after its goroutine has finished: heddle reports the panic
// where it happened, not at main's last scheduling point.
package main

import (
	"fmt"
	"sync"
)

func main() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	counts := map[string]int{}
	wg.Add(1)
	go func() {
		defer wg.Done()
		mu.Lock()
		counts["a"]++
		mu.Unlock()
	}()
	wg.Wait()
	var last *int
	if counts["a"] == 1 {
		fmt.Println(*last)
	}
}
