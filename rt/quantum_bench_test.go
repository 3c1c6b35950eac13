package rt_test

import (
	"sync"
	"sync/atomic"
	"testing"
)

// The operations that a step of heddle stands for, in real Go, outside any run: what they
// cost is what the quantum (rt.DefaultQuantum) is chosen from (BENCHMARKS.md, docs/time.md).

func BenchmarkRealMutex(b *testing.B) {
	var mu sync.Mutex
	for b.Loop() {
		mu.Lock()
		mu.Unlock()
	}
}

func BenchmarkRealAtomicAdd(b *testing.B) {
	var n atomic.Int64
	for b.Loop() {
		n.Add(1)
	}
}

func BenchmarkRealBufferedChan(b *testing.B) {
	c := make(chan int, 1)
	for b.Loop() {
		c <- 1
		<-c
	}
}

func BenchmarkRealHandOff(b *testing.B) {
	c, d := make(chan int), make(chan int)
	go func() {
		for v := range c {
			d <- v
		}
	}()
	for b.Loop() {
		c <- 1
		<-d
	}
	close(c)
}

func BenchmarkRealGo(b *testing.B) {
	var wg sync.WaitGroup
	for b.Loop() {
		wg.Add(1)
		go wg.Done()
		wg.Wait()
	}
}
