//go:build amd64 || arm64

package rt

import (
	"iter"
	"runtime"
	"testing"
)

// TestParker hands control back and forth between two goroutines on their parkers, with a
// wake that comes before its sleep and one that comes after.
func TestParker(t *testing.T) {
	var a, b parker
	const rounds = 1000
	done := make(chan int)
	go func() {
		n := 0
		for range rounds {
			b.park()
			n++
			a.unpark()
		}
		done <- n
	}()
	for range rounds {
		b.unpark()
		a.park()
	}
	if n := <-done; n != rounds {
		t.Fatalf("%d rounds, want %d", n, rounds)
	}
}

// BenchmarkHandOff measures a round trip of control between two goroutines on one P: on
// heddle's parkers (gopark and goready, two hand-offs), and on the runtime's coroutine switch
// that iter.Pull uses (two switches), the cheapest hand-off the runtime has. It bounds what a
// hand-off can save in BenchmarkSchedules (BENCHMARKS.md).
func BenchmarkHandOff(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	b.Run("parker", func(b *testing.B) {
		var p1, p2 parker
		done := make(chan struct{})
		go func() {
			for range b.N {
				p2.park()
				p1.unpark()
			}
			close(done)
		}()
		for range b.N {
			p2.unpark()
			p1.park()
		}
		<-done
	})
	b.Run("coroutine", func(b *testing.B) {
		next, stop := iter.Pull(func(yield func(int) bool) {
			for i := 0; yield(i); i++ {
			}
		})
		defer stop()
		for range b.N {
			next()
		}
	})
}
