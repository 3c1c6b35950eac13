// Command basic exercises every construct the instrumenter rewrites, with
// output that does not depend on the schedule.
package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"example.com/basic/internal/q"
	"example.com/dep"
)

type Chan chan int

type T struct{ n int }

func (t T) Send(ch chan<- int, k int) { ch <- t.n + k }
func (t *T) Add(wg *sync.WaitGroup, k int) {
	defer wg.Done()
	t.n += k
}

func sum(ch chan<- int, xs ...int) {
	n := 0
	for _, x := range xs {
		n += x
	}
	ch <- n
}

func pair() (int, int) { return 3, 4 }

var results = make(chan int)

func add(a, b int) { results <- a + b }

func first[E any](ch chan E, v E) { ch <- v }

func goStatements() {
	ch := make(chan int)
	x := 1
	go func(v int) { ch <- v }(x)
	x = 100 // the argument was evaluated at the go statement
	fmt.Println("closure arg:", <-ch)

	t := T{n: 10}
	go t.Send(ch, 5)
	t.n = 1000 // the receiver was copied at the go statement
	fmt.Println("method value:", <-ch)

	go sum(ch, 1, 2, 3)
	fmt.Println("variadic:", <-ch)
	xs := []int{4, 5}
	go sum(ch, xs...)
	fmt.Println("spread:", <-ch)

	go add(pair())
	fmt.Println("multi-value:", <-results)

	gs := make(chan string, 1)
	go first(gs, "generic")
	fmt.Println("generic:", <-gs)

	f := func(v int) { ch <- v * 2 }
	g := f
	go g(21)
	g = nil
	fmt.Println("func value:", <-ch)

	var wg sync.WaitGroup
	var p T
	wg.Add(1)
	go p.Add(&wg, 7)
	wg.Wait()
	fmt.Println("pointer method:", p.n)

	done := make(chan struct{})
	go close(done)
	<-done
	fmt.Println("go close: closed")
	_ = x
}

func channels() {
	a := make(chan int, 3)
	var c Chan = make(Chan, 2)
	a <- 1
	a <- 2
	fmt.Println("len/cap:", len(a), cap(a), len(c), cap(c))
	fmt.Println("recv expr:", <-a+<-a)
	c <- 5
	if v, ok := <-c; ok {
		fmt.Println("comma ok:", v, ok)
	}
	close(c)
	v, ok := <-c
	fmt.Println("closed:", v, ok)
	var anyc = make(chan any, 1)
	anyc <- 3
	fmt.Println("any chan:", <-anyc)

	cc := make(chan chan int, 1)
	inner := make(chan int, 1)
	cc <- inner
	(<-cc) <- 9
	fmt.Println("chan of chan:", <-inner)

	var ro <-chan int = a
	a <- 11
	fmt.Println("directional:", <-ro)

	out := q.Pipe(func() <-chan string {
		in := make(chan string)
		go func() {
			for _, s := range []string{"x", "y", "z"} {
				in <- s
			}
			close(in)
		}()
		return in
	}())
	var got []string
	for s := range out {
		got = append(got, s)
	}
	fmt.Println("range:", got)

	r := make(chan int, 5)
	for i := range 5 {
		r <- i
	}
	close(r)
	n := 0
outer:
	for v := range r {
		switch {
		case v == 1:
			continue outer
		case v == 3:
			break outer
		}
		n += v
	}
	fmt.Println("labeled range:", n)
	fmt.Println("outside chan:", <-dep.Ready())
}

func selects() {
	a := make(chan int, 1)
	b := make(chan string, 1)
	select {
	case v := <-a:
		fmt.Println("unexpected", v)
	default:
		fmt.Println("select default")
	}
	a <- 1
	select {
	case v, ok := <-a:
		fmt.Println("select comma ok:", v, ok)
	case make(chan string) <- "x":
		fmt.Println("unexpected send")
	}
	var s struct{ f string }
	b <- "field"
	select {
	case s.f = <-b:
		fmt.Println("select assign:", s.f)
	}
	calls := []string{}
	ch := func(name string) chan int {
		calls = append(calls, name)
		return a
	}
	val := func(name string, v int) int {
		calls = append(calls, name)
		return v
	}
	select {
	case <-ch("recv"):
	case ch("send") <- val("value", 2):
	}
	fmt.Println("select eval order:", calls, <-a)

	close(a)
	n := 0
	for {
		select {
		case _, ok := <-a:
			if !ok {
				n++
				if n < 3 {
					continue
				}
				break
			}
		}
		if n >= 3 {
			break
		}
	}
	fmt.Println("select break:", n)

	var nilc chan int
	tick := time.After(time.Millisecond)
	select {
	case <-nilc:
		fmt.Println("nil channel ready?")
	case <-tick:
		fmt.Println("select timer")
	}
}

func syncs() {
	var c q.Counter
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Inc()
		}()
	}
	wg.Wait()
	fmt.Println("mutex counter:", c.Value())

	var n atomic.Int64
	var m int32
	var wg2 sync.WaitGroup
	for range 5 {
		wg2.Go(func() {
			n.Add(2)
			atomic.AddInt32(&m, 1)
		})
	}
	wg2.Wait()
	fmt.Println("atomics:", n.Load(), atomic.LoadInt32(&m))

	var once sync.Once
	for range 3 {
		once.Do(func() { fmt.Println("once") })
	}
	v := sync.OnceValue(func() int { return 8 })
	fmt.Println("once value:", v(), v())

	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	ready := false
	go func() {
		mu.Lock()
		ready = true
		mu.Unlock()
		cond.Broadcast()
	}()
	mu.Lock()
	for !ready {
		cond.Wait()
	}
	mu.Unlock()
	fmt.Println("cond: ready")

	var sm sync.Map
	sm.Store("k", 1)
	got, _ := sm.Load("k")
	fmt.Println("sync.Map:", got)

	var rw sync.RWMutex
	rw.RLock()
	fmt.Println("try lock while read-locked:", rw.TryLock())
	rw.RUnlock()

	fmt.Println("dep:", dep.Sum(1, 2, 3))
}

func timesAndContexts() {
	start := time.Now()
	time.Sleep(2 * time.Millisecond)
	fmt.Println("slept:", time.Since(start) >= 2*time.Millisecond)

	timer := time.NewTimer(time.Hour)
	fmt.Println("timer stopped:", timer.Stop())

	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	<-ctx.Done()
	fmt.Println("context:", ctx.Err(), errors.Is(ctx.Err(), context.DeadlineExceeded))

	ctx2, cancel2 := context.WithCancelCause(context.Background())
	cancel2(errors.New("because"))
	fmt.Println("cause:", context.Cause(ctx2))

	fired := make(chan bool)
	time.AfterFunc(time.Millisecond, func() { fired <- true })
	fmt.Println("after func:", <-fired)
}

func goroutineControl() {
	runtime.Gosched()
	done := make(chan bool)
	go func() {
		defer func() { done <- true }()
		runtime.Goexit()
	}()
	fmt.Println("goexit:", <-done)
	fmt.Println("goroutines >= 1:", runtime.NumGoroutine() >= 1)
}

func deferred() (s string) {
	ch := make(chan string, 1)
	ch <- "deferred receive"
	defer func() { s = <-ch }()
	defer close(make(chan int))
	return "not yet"
}

func main() {
	goStatements()
	channels()
	selects()
	syncs()
	timesAndContexts()
	goroutineControl()
	fmt.Println(deferred())
	keys := []string{"b", "a"}
	sort.Strings(keys)
	fmt.Println("done", keys)
}
