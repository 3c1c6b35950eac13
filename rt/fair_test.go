package rt_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/heddledbg/heddle/rt"
)

// greedy keeps the current goroutine running whenever it is offered; the nil chooser runs the
// root whenever it is offered. Both starve a worker that a spinning goroutine waits for,
// unless the spinner yields.
type greedy struct{}

func (greedy) Choose(p *rt.Point) int { return max(p.Current, 0) }

// TestFairSpin checks that a spinning goroutine yields under the greedy chooser: each kind of
// poll lets the worker run, so the spin ends after a few rounds instead of at the step bound.
func TestFairSpin(t *testing.T) {
	for _, tc := range []struct {
		name string
		spin func(flag *int32, mu *rt.Mutex)
	}{
		{"Gosched", func(flag *int32, _ *rt.Mutex) {
			for rt.LoadInt32(flag) == 0 {
				rt.Gosched()
			}
		}},
		{"load", func(flag *int32, _ *rt.Mutex) {
			for rt.LoadInt32(flag) == 0 {
			}
		}},
		{"TryLock", func(flag *int32, mu *rt.Mutex) {
			for !mu.TryLock() {
			}
			mu.Unlock()
		}},
		{"TryRLock", func(flag *int32, mu *rt.Mutex) {
			var rw rt.RWMutex
			rw.Lock()
			rt.Go(func() {
				for !rw.TryRLock() {
				}
				rw.RUnlock()
				rt.StoreInt32(flag, 2)
			})
			rt.StoreInt32(flag, 1)
			rw.Unlock()
			for rt.LoadInt32(flag) != 2 {
				rt.Gosched()
			}
		}},
		{"select default", func(flag *int32, _ *rt.Mutex) {
			ch := rt.MakeChan[int](1)
			rt.Go(func() {
				for rt.LoadInt32(flag) == 0 {
					rt.Gosched()
				}
				rt.Send(ch, 1)
			})
			for {
				if i, _, _ := rt.Select(true, rt.RecvCase(ch)); i == 0 {
					return
				}
			}
		}},
	} {
		for _, c := range []rt.Chooser{greedy{}, nil} {
			t.Run(fmt.Sprintf("%s/%T", tc.name, c), func(t *testing.T) {
				res := rt.Run(rt.Config{Chooser: c, MaxSteps: 10_000}, func() {
					var flag int32
					var mu rt.Mutex
					mu.Lock()
					rt.Go(func() {
						for range 3 {
							rt.AddInt32(new(int32), 1)
						}
						mu.Unlock()
						rt.StoreInt32(&flag, 1)
					})
					tc.spin(&flag, &mu)
				})
				if res.Verdict.Kind != rt.VerdictOK {
					t.Fatalf("verdict %s (%s), want ok", res.Verdict.Kind, res.Verdict.Message)
				}
				if res.Steps > 100 {
					t.Errorf("%d steps: the spinning goroutine did not let the worker run", res.Steps)
				}
			})
		}
	}
}

// TestSingleSelectDefault checks that one poll in straight-line code does not yield: the
// nil chooser keeps the root running after it took a select's default.
func TestSingleSelectDefault(t *testing.T) {
	var order []string
	res := rt.Run(rt.Config{}, func() {
		ch := rt.MakeChan[int](1)
		var mu rt.Mutex
		rt.Go(func() {
			mu.Lock()
			order = append(order, "other")
			mu.Unlock()
		})
		rt.Select(true, rt.RecvCase(ch))
		mu.Lock()
		order = append(order, "root")
		mu.Unlock()
	})
	if res.Verdict.Kind != rt.VerdictOK || strings.Join(order, " ") != "root other" {
		t.Errorf("verdict %s, order %v; want ok, root first", res.Verdict.Kind, order)
	}
}

// TestLivelockOrCut tells the two ways a run reaches its bound apart: spinning with nobody
// working is a livelock, which blames the spinning goroutines; working is a cut. A run still
// working at its deadline (the end of an exploration's budget) is stopped, which is no bug.
func TestLivelockOrCut(t *testing.T) {
	spinForever := func() {
		var flag int32
		rt.Go(func() {
			for rt.LoadInt32(&flag) == 0 {
				rt.Gosched()
			}
		})
		for rt.LoadInt32(&flag) == 0 {
			rt.Gosched()
		}
	}
	work := func() {
		var mu rt.Mutex
		for {
			mu.Lock()
			mu.Unlock()
		}
	}
	// Work with a poll every few steps: a producer that yields after each item while the
	// consumer spins is still progress as long as its stretches between polls are long.
	for _, tc := range []struct {
		name     string
		body     func()
		maxSteps int
		deadline time.Time
		want     rt.VerdictKind
		blamed   int
	}{
		{"spin", spinForever, 0, time.Time{}, rt.VerdictLivelock, 2},
		{"spin, small bound", spinForever, 1000, time.Time{}, rt.VerdictLivelock, 2},
		{"work", work, 5000, time.Time{}, rt.VerdictCut, 0},
		{"work, past the deadline", work, 0, time.Now(), rt.VerdictStopped, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := rt.Run(rt.Config{Chooser: greedy{}, MaxSteps: tc.maxSteps, Deadline: tc.deadline}, tc.body)
			if res.Verdict.Kind != tc.want {
				t.Fatalf("verdict %s (%s) after %d steps, want %s", res.Verdict.Kind, res.Verdict.Message, res.Steps, tc.want)
			}
			if res.Verdict.Kind.Bug() != (tc.want == rt.VerdictLivelock) {
				t.Errorf("%s.Bug() = %v", tc.want, res.Verdict.Kind.Bug())
			}
			if len(res.Verdict.Goroutines) != tc.blamed {
				t.Errorf("verdict names %d goroutines, want %d", len(res.Verdict.Goroutines), tc.blamed)
			}
		})
	}
}

// TestFairSpinTimer checks that the clock takes part in fairness: a goroutine that spins until
// a timer's function has run lets the clock step, under either time model: with synctest
// time, a goroutine that has only spun for a thousand polls (rt's clockSpins) is not working,
// so time may pass while it spins.
func TestFairSpinTimer(t *testing.T) {
	for _, c := range []rt.Chooser{greedy{}, nil} {
		for _, m := range []rt.TimeModel{rt.TimeSynctest, rt.TimeAdversarial} {
			res := rt.Run(rt.Config{Chooser: c, MaxSteps: 10_000, Time: m}, func() {
				var flag int32
				rt.AfterFunc(time.Second, func() { rt.StoreInt32(&flag, 1) })
				for rt.LoadInt32(&flag) == 0 {
					rt.Gosched()
				}
			})
			// Two steps per round (the load and the Gosched), a thousand rounds.
			if res.Verdict.Kind != rt.VerdictOK || res.Steps > 2100 {
				t.Errorf("%T, %s time: verdict %s (%s) after %d steps, want ok within 2100", c, m, res.Verdict.Kind, res.Verdict.Message, res.Steps)
			}
		}
	}
}

// TestFewReadsAreNotAWait checks that time does not pass in the middle of a few reads of
// shared state in a row, under synctest time, even when the clock is taken whenever offered:
// eapache/go-resiliency's breaker test reads the breaker's state five times while its timer
// is set, and expects it still open.
func TestFewReadsAreNotAWait(t *testing.T) {
	for _, reads := range []int{5, 100} {
		fired := -1
		res := rt.Run(rt.Config{Chooser: firstClock{}, Time: rt.TimeSynctest}, func() {
			var state int32
			rt.AfterFunc(10*time.Millisecond, func() { rt.StoreInt32(&state, 1) })
			for i := range reads {
				if rt.LoadInt32(&state) != 0 && fired < 0 {
					fired = i
				}
			}
		})
		if res.Verdict.Kind != rt.VerdictOK || fired >= 0 {
			t.Errorf("%d reads: verdict %s (%s), the timer fired before read %d", reads, res.Verdict.Kind, res.Verdict.Message, fired)
		}
	}
}

// TestPollingWorkIsNotSpinning checks that a goroutine that polls between steps of work is
// working, not spinning: the semaphore of golang.org/x/sync checks its context with a select
// default under its mutex at every Acquire. Under synctest time the context's timeout must not
// fire while such a goroutine can run (TestWeightedAcquire was reported failing), and a long
// loop of such calls is not a livelock.
func TestPollingWorkIsNotSpinning(t *testing.T) {
	acquire := func(mu *rt.Mutex, done <-chan struct{}) bool {
		mu.Lock()
		defer mu.Unlock()
		i, _, _ := rt.Select(true, rt.RecvCase(done))
		return i < 0
	}
	for _, c := range []rt.Chooser{greedy{}, nil} {
		res := rt.Run(rt.Config{Chooser: c}, func() {
			var mu rt.Mutex
			for i := 0; i < 20; i++ {
				ctx, cancel := rt.WithTimeout(context.Background(), 10*time.Millisecond)
				if !acquire(&mu, ctx.Done()) {
					panic(fmt.Sprintf("call %d: the 10ms timeout fired while the caller worked", i))
				}
				cancel()
			}
		})
		if res.Verdict.Kind != rt.VerdictOK {
			t.Errorf("%T: timeouts: %s: %s", c, res.Verdict.Kind, res.Verdict.Message)
		}
		res = rt.Run(rt.Config{Chooser: c, MaxSteps: 200_000}, func() {
			var mu rt.Mutex
			done := rt.MakeChan[struct{}](0)
			for i := 0; i < 30_000; i++ {
				acquire(&mu, done)
			}
		})
		if res.Verdict.Kind != rt.VerdictOK {
			t.Errorf("%T: a loop of 30,000 polling calls: %s: %s", c, res.Verdict.Kind, res.Verdict.Message)
		}
	}
}

// TestTimeSlice checks that a goroutine that keeps working in a loop that only another
// goroutine can end (a lock, a check, an unlock) yields after a time slice, as Go's scheduler
// preempts it, even under a strategy that never preempts: the run ends, not at the step bound.
func TestTimeSlice(t *testing.T) {
	res := rt.Run(rt.Config{Chooser: greedy{}}, func() {
		var mu rt.Mutex
		stop := false
		rt.Go(func() {
			mu.Lock()
			stop = true
			mu.Unlock()
		})
		for {
			mu.Lock()
			s := stop
			mu.Unlock()
			if s {
				return
			}
		}
	})
	if res.Verdict.Kind != rt.VerdictOK || res.Steps > 30_000 {
		t.Errorf("verdict %s (%s) after %d steps, want ok within 30,000", res.Verdict.Kind, res.Verdict.Message, res.Steps)
	}
}

// TestSpinnersWaitForTime has many goroutines poll a flag that the test sets after a sleep:
// they wait for time, and spin for longer, all together, than the stretch that makes a
// livelock before the clock may step (clockSpins each). The run must reach the sleep's end,
// as go test does (ants' TestMaxBlockingSubmit), not end as a livelock.
func TestSpinnersWaitForTime(t *testing.T) {
	for _, tm := range []rt.TimeModel{rt.TimeQuantum, rt.TimeSynctest} {
		t.Run(tm.String(), func(t *testing.T) {
			res := rt.Run(rt.Config{Time: tm}, func() {
				var stop int32
				var wg rt.WaitGroup
				for range 9 {
					wg.Add(1)
					rt.Go(func() {
						defer wg.Done()
						for rt.LoadInt32(&stop) == 0 {
							rt.Gosched()
						}
					})
				}
				rt.Sleep(time.Second)
				rt.StoreInt32(&stop, 1)
				wg.Wait()
			})
			if res.Verdict.Kind != rt.VerdictOK {
				t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
			}
		})
	}
}
