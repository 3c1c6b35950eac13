// Package long has a correct test whose one run is longer than a small time budget: go test
// runs it in a fraction of a second, heddle makes a few hundred thousand steps a second.
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
	const n = 1_500_000
	for i := range n {
		ch <- i
	}
	close(ch)
	if got, want := <-done, n*(n-1)/2; got != want {
		t.Fatalf("sum %d, want %d", got, want)
	}
}
