// Package tests has internal and external tests and a TestMain.
package tests

import "sync"

// Parallel runs f n times concurrently and returns the number of runs.
func Parallel(n int, f func()) int {
	var mu sync.Mutex
	var wg sync.WaitGroup
	count := 0
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
			mu.Lock()
			count++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return count
}
