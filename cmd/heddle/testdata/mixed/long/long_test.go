// Package long has a correct test whose one run is longer than ten times a small time budget:
// go test runs it in about a second, heddle makes at most a few hundred thousand steps a
// second, and its run has twelve million.
package long

import "testing"

func TestLongRun(t *testing.T) {
	ch := make(chan int)
	done := make(chan int)
	go func() {
		sum := 0
		for v := range ch {
			sum += v
		}
		done <- sum
	}()
	const n = 6_000_000
	for i := range n {
		ch <- i
	}
	close(ch)
	if got, want := <-done, n*(n-1)/2; got != want {
		t.Fatalf("sum %d, want %d", got, want)
	}
}
