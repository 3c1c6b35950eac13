package corpus

import (
	"github.com/heddledbg/heddle"
	"github.com/heddledbg/heddle/rt"
)

// Spin-waits: goroutines that poll (runtime.Gosched, a select default, a failed TryLock, a
// repeated atomic load) until another goroutine has done its work. Without fair scheduling
// a strategy that keeps running the poller never lets the worker run; under CHESS's fair
// scheduling (Musuvathi and Qadeer, PLDI 2008) every one of them terminates, and only a
// program in which no goroutine can make progress is a livelock.
var spin = []Program{
	{Name: "SpinHoldAndWait", Source: "Go: TryLock retry loop that keeps its own lock while it waits for the other", Body: trySpin(false), Want: rt.VerdictLivelock, Twin: "SpinBackoff"},
	{Name: "SpinBackoff", Source: "Go: TryLock retry loop that releases its own lock before it retries", Body: trySpin(true), Twin: "SpinHoldAndWait"},
	{Name: "SpinGosched", Source: "Go: for flag.Load() == 0 { runtime.Gosched() }", Body: spinGosched},
	{Name: "SpinLoad", Source: "Go: for flag.Load() == 0 {} (no yield at all)", Body: spinLoad},
	{Name: "SpinSelectDefault", Source: "Go: for { select { case <-done: return; default: } }", Body: spinSelect},
	{Name: "SpinTryLock", Source: "Go: for !mu.TryLock() {} while another goroutine holds mu", Body: spinTryLock},
}

// trySpin runs two goroutines that each need both locks, taken in opposite orders, and
// acquire the second with a TryLock retry loop. Holding the first lock while retrying turns
// the ABBA deadlock into a livelock; releasing it before the retry (backoff) lets one of them
// through.
func trySpin(backoff bool) func() {
	return func() {
		var a, b rt.Mutex
		n := 0
		both := func(first, second *rt.Mutex) {
			for {
				first.Lock()
				if second.TryLock() {
					n = rt.Store(&n, *rt.Load(&n, "n")+1, "n")
					second.Unlock()
					first.Unlock()
					return
				}
				if backoff {
					first.Unlock()
					rt.Gosched()
					continue
				}
				for !second.TryLock() {
					rt.Gosched()
				}
				n = rt.Store(&n, *rt.Load(&n, "n")+1, "n")
				second.Unlock()
				first.Unlock()
				return
			}
		}
		join(func() { both(&a, &b) }, func() { both(&b, &a) })
		heddle.Assert(*rt.Load(&n, "n") == 2, "%d of 2 goroutines got both locks", n)
	}
}

// worker does a few steps of work under a mutex, then publishes that it is done.
func worker(mu *rt.Mutex, flag *int32, done chan struct{}) {
	for range 3 {
		mu.Lock()
		mu.Unlock()
	}
	rt.StoreInt32(flag, 1)
	if done != nil {
		rt.Close(done)
	}
}

func spinGosched() {
	var mu rt.Mutex
	var flag int32
	rt.Go(func() { worker(&mu, &flag, nil) })
	for rt.LoadInt32(&flag) == 0 {
		rt.Gosched()
	}
}

func spinLoad() {
	var mu rt.Mutex
	var flag int32
	rt.Go(func() { worker(&mu, &flag, nil) })
	for rt.LoadInt32(&flag) == 0 {
	}
}

func spinSelect() {
	var mu rt.Mutex
	var flag int32
	done := rt.MakeChan[struct{}](0)
	rt.Go(func() { worker(&mu, &flag, done) })
	for {
		if i, _, _ := rt.Select(true, rt.RecvCase(done)); i == 0 {
			return
		}
	}
}

func spinTryLock() {
	var mu rt.Mutex
	var flag int32
	rt.Go(func() {
		mu.Lock()
		rt.StoreInt32(&flag, 1)
		rt.StoreInt32(&flag, 2)
		mu.Unlock()
	})
	for !mu.TryLock() {
	}
	mu.Unlock()
}
