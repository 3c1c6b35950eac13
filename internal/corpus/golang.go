package corpus

import (
	"context"
	"time"

	"github.com/heddledbg/heddle"
	"github.com/heddledbg/heddle/rt"
)

var golang = []Program{
	{Name: "TimeoutLeak", Source: "Go: unbuffered result channel, caller gives up after a timeout", Body: timeoutLeak(0), Want: rt.VerdictLeak, Twin: "TimeoutBuffered", Time: rt.TimeAdversarial},
	{Name: "TimeoutBuffered", Source: "Go: result channel with room for the result", Body: timeoutLeak(1), Twin: "TimeoutLeak", Time: rt.TimeAdversarial},
	{Name: "SelectCancel", Source: "Go: select between ctx.Done() and ready work picks either", Body: selectCancel(true), Want: rt.VerdictAssert, Twin: "SelectCancelChecked"},
	{Name: "SelectCancelChecked", Source: "Go: ctx.Err() checked before the select", Body: selectCancel(false), Twin: "SelectCancel"},
	{Name: "WaitGroupAddInside", Source: "Go: WaitGroup.Add called by the goroutine it counts", Body: waitGroupAdd(true), Want: rt.VerdictAssert, Twin: "WaitGroupAddBefore"},
	{Name: "WaitGroupAddBefore", Source: "Go: WaitGroup.Add before the go statement", Body: waitGroupAdd(false), Twin: "WaitGroupAddInside"},
	{Name: "RecursiveRLock", Source: "Go: recursive RLock while a writer waits (sync.RWMutex documentation)", Body: recursiveRLock(true), Want: rt.VerdictDeadlock, Twin: "RLockOnce"},
	{Name: "RLockOnce", Source: "Go: the inner call assumes the read lock is held", Body: recursiveRLock(false), Twin: "RecursiveRLock"},
	{Name: "LostSignal", Source: "Go: Cond.Wait without a condition, the Signal can come first", Body: lostSignal(true), Want: rt.VerdictDeadlock, Twin: "SignalWithCondition"},
	{Name: "SignalWithCondition", Source: "Go: Cond.Wait in a loop over a condition", Body: lostSignal(false), Twin: "LostSignal"},
	{Name: "DoubleClose", Source: "Go: check-then-close of a shared done channel", Body: doubleClose(true), Want: rt.VerdictMisuse, Twin: "CloseOnce"},
	{Name: "CloseOnce", Source: "Go: CompareAndSwap decides who closes", Body: doubleClose(false), Twin: "DoubleClose"},
	{Name: "MissingUnlock", Source: "Go: early return without Unlock", Body: missingUnlock(true), Want: rt.VerdictDeadlock, Twin: "DeferUnlock"},
	{Name: "DeferUnlock", Source: "Go: defer Unlock", Body: missingUnlock(false), Twin: "MissingUnlock"},
	{Name: "TimerDrain", Source: "Go: the pre-1.23 idiom if !t.Stop() { <-t.C } after a select on t.C", Body: timerDrain(true), Want: rt.VerdictDeadlock, Twin: "TimerStop", Time: rt.TimeAdversarial},
	{Name: "TimerStop", Source: "Go 1.23: Stop alone, no stale value to drain", Body: timerDrain(false), Twin: "TimerDrain", Time: rt.TimeAdversarial},
	{Name: "SemaphoreLeak", Source: "Go: channel semaphore not released on an early return", Body: semaphoreLeak(true), Want: rt.VerdictLeak, Twin: "SemaphoreDeferRelease"},
	{Name: "SemaphoreDeferRelease", Source: "Go: channel semaphore released by defer", Body: semaphoreLeak(false), Twin: "SemaphoreLeak"},
	{Name: "SelectHandoff", Source: "Go: a status reporter's try-send reaches a watcher whose caller gave up at the same tick", Body: selectHandoff(true), Want: rt.VerdictDeadlock, Twin: "SelectHandoffBuffered"},
	{Name: "SelectHandoffBuffered", Source: "Go: the watcher's hand-off channel has room for the one value", Body: selectHandoff(false), Twin: "SelectHandoff"},
}

// selectHandoff: a reporter try-sends a status and a timer closes done, at the same instant.
// A watcher parked in a select on the status and a stop channel forwards the status on ready;
// the caller takes ready or done. If done wins while the status still reaches the watcher,
// nobody receives ready, and the caller's wg.Wait waits for the watcher for ever. The bug
// needs the close of done before the hand-off: two steps on different channels that conflict
// only through the watcher's parked select, whose other channel closing stop also touches.
// The fix gives ready room for the one value.
func selectHandoff(bug bool) func() {
	return func() {
		size := 1
		if bug {
			size = 0
		}
		status, stop, ready, done := rt.MakeChan[int](0), rt.MakeChan[struct{}](0), rt.MakeChan[int](size), rt.MakeChan[struct{}](0)
		var wg rt.WaitGroup
		wg.Add(2)
		rt.Go(func() {
			defer wg.Done()
			rt.Sleep(time.Millisecond)
			rt.Select(true, rt.SendCase(status, 1))
		})
		rt.Go(func() { rt.Sleep(time.Millisecond); rt.Close(done) })
		rt.Go(func() {
			defer wg.Done()
			if i, v, _ := rt.Select(false, rt.RecvCase(status), rt.RecvCase(stop)); i == 0 {
				rt.Send(ready, v.(int))
			}
		})
		rt.Select(false, rt.RecvCase(ready), rt.RecvCase(done))
		rt.Close(stop)
		wg.Wait()
	}
}

// timeoutLeak: a worker sends its result on a channel of capacity size; the caller waits for it
// at most a second. If the timeout fires first, the caller returns, and on an unbuffered
// channel the worker's send blocks forever.
func timeoutLeak(size int) func() {
	return func() {
		result := rt.MakeChan[int](size)
		rt.Go(func() { rt.Send(result, 42) })
		rt.Select(false, rt.RecvCase(result), rt.RecvCase(rt.After(time.Second)))
	}
}

// selectCancel: the context is cancelled and a job queued before the worker starts. The
// worker's select sees both ctx.Done() and the job ready and may take the job: a job is
// processed after cancellation. The fixed worker checks ctx.Err() before selecting.
func selectCancel(bug bool) func() {
	return func() {
		ctx, cancel := rt.WithCancel(context.Background())
		jobs := rt.MakeChan[int](1)
		done := rt.MakeChan[struct{}](0)
		processed := 0
		cancel()
		rt.Send(jobs, 1)
		rt.Go(func() {
			defer rt.Close(done)
			for {
				if !bug && ctx.Err() != nil {
					return
				}
				i, _, _ := rt.Select(false, rt.RecvCase(ctx.Done()), rt.RecvCase(jobs))
				if i == 0 {
					return
				}
				processed = rt.Store(&processed, *rt.Load(&processed, "processed")+1, "processed")
			}
		})
		rt.Recv(done)
		heddle.Assert(*rt.Load(&processed, "processed") == 0, "%d job(s) processed after cancellation", processed)
	}
}

// waitGroupAdd: each worker calls wg.Add(1) itself, so Wait can return before a worker has
// been counted.
func waitGroupAdd(bug bool) func() {
	return func() {
		var wg rt.WaitGroup
		var total int64
		for range 2 {
			if !bug {
				wg.Add(1)
			}
			rt.Go(func() {
				if bug {
					wg.Add(1)
				}
				defer wg.Done()
				rt.AddInt64(&total, 1)
			})
		}
		wg.Wait()
		heddle.Assert(rt.LoadInt64(&total) == 2, "Wait returned after %d of 2 workers", rt.LoadInt64(&total))
	}
}

// recursiveRLock: get holds the read lock and calls size, which takes it again. A writer that
// calls Lock between the two blocks the second RLock, and itself waits for the first:
// deadlock. In the fixed version size expects its caller to hold the lock.
func recursiveRLock(bug bool) func() {
	return func() {
		var rw rt.RWMutex
		m := map[string]int{"a": 1}
		size := func() int {
			if bug {
				rw.RLock()
				defer rw.RUnlock()
			}
			return len(rt.MapRead(m, "m"))
		}
		get := func() {
			rw.RLock()
			defer rw.RUnlock()
			_ = rt.MapRead(m, "m")["a"] + size()
		}
		join(get, func() {
			rw.Lock()
			rt.MapWrite(m, "m")["b"] = 2
			rw.Unlock()
		})
	}
}

// lostSignal: the waiter waits for a signal rather than for a condition, so a Signal that comes
// before the Wait is lost and the waiter blocks forever.
func lostSignal(bug bool) func() {
	return func() {
		var mu rt.Mutex
		cond := rt.NewCond(&mu)
		ready := false
		join(func() {
			mu.Lock()
			if bug {
				cond.Wait()
			} else {
				for !*rt.Load(&ready, "ready") {
					cond.Wait()
				}
			}
			mu.Unlock()
		}, func() {
			mu.Lock()
			ready = rt.Store(&ready, true, "ready")
			cond.Signal()
			mu.Unlock()
		})
	}
}

// doubleClose: whichever of two workers finishes first closes done; each checks a flag before
// closing, but both can see it unset.
func doubleClose(bug bool) func() {
	return func() {
		done := rt.MakeChan[struct{}](0)
		var closed int32
		finish := func() {
			if bug {
				if rt.LoadInt32(&closed) == 0 {
					rt.StoreInt32(&closed, 1)
					rt.Close(done)
				}
				return
			}
			if rt.CompareAndSwapInt32(&closed, 0, 1) {
				rt.Close(done)
			}
		}
		join(finish, finish)
		rt.Recv(done)
	}
}

// cache is a map guarded by a mutex whose get forgets to unlock when the key is missing.
type cache struct {
	mu       rt.Mutex
	m        map[string]int
	deferred bool
}

func (c *cache) get(k string) (int, bool) {
	c.mu.Lock()
	if c.deferred {
		defer c.mu.Unlock()
	}
	v, ok := rt.MapRead(c.m, "cache.m")[k]
	if !ok {
		return 0, false
	}
	if !c.deferred {
		c.mu.Unlock()
	}
	return v, true
}

func (c *cache) put(k string, v int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rt.MapWrite(c.m, "cache.m")[k] = v
}

// missingUnlock: if get runs before put, it misses and returns holding the lock, and put
// blocks forever.
func missingUnlock(bug bool) func() {
	return func() {
		c := &cache{m: map[string]int{}, deferred: !bug}
		join(func() { c.put("k", 1) }, func() { c.get("k") })
	}
}

// timerDrain waits for a worker or a one-second timeout, then stops the timer and, with the
// idiom that predates Go 1.23, drains its channel when Stop reports that it had fired. If the
// timer fired and the select took its value, nothing is left to drain and the receive blocks
// forever. Since Go 1.23 (and in heddle) Stop guarantees that no stale value is received
// afterwards, and reports a fire whose value nobody received as stopped: the fix is to drop
// the drain.
func timerDrain(drain bool) func() {
	return func() {
		timer := rt.NewTimer(time.Second)
		done := rt.MakeChan[struct{}](0)
		rt.Go(func() { rt.Close(done) })
		rt.Select(false, rt.RecvCase(timer.C), rt.RecvCase(done))
		if !timer.Stop() && drain {
			rt.Recv(timer.C)
		}
	}
}

// semaphoreLeak: three workers share a semaphore of one slot; the second fails validation and
// returns without releasing its slot. Workers that acquire after it block forever, after the
// root (which does not wait for them) has returned.
func semaphoreLeak(bug bool) func() {
	return func() {
		sem := rt.MakeChan[struct{}](1)
		for i := range 3 {
			rt.Go(func() {
				rt.Send(sem, struct{}{})
				if !bug {
					defer rt.Recv(sem)
				}
				if i == 1 {
					return // validation failed
				}
				if bug {
					rt.Recv(sem)
				}
			})
		}
	}
}
