// Command vendored is a module with a vendor directory.
package main

import (
	"fmt"
	"sync"
)

func main() {
	var wg sync.WaitGroup
	ch := make(chan string, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		ch <- "vendored"
	}()
	wg.Wait()
	fmt.Println(<-ch)
}
