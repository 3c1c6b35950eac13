package rt_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heddledbg/heddle/rt"
)

// TestQuantum checks that time passes with work: a timer becomes an alternative once as many
// steps have passed as its duration holds quanta, and never earlier.
func TestQuantum(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    time.Duration
		// fired is the number of the loop's steps before which the callback ran, or -1.
		fired int
	}{
		{"1ns", time.Nanosecond, 1},
		{"1µs", time.Microsecond, 50}, // 100 quanta: 50 Locks and Unlocks
		{"1s", time.Second, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fired, loop := -1, 0
			// The clock is the last alternative when offered; then the callback's goroutine.
			res := rt.Run(rt.Config{Chooser: last{}}, func() {
				var mu rt.Mutex
				rt.AfterFunc(tc.d, func() {
					mu.Lock()
					fired = loop
					mu.Unlock()
				})
				for range 200 {
					mu.Lock()
					loop++
					mu.Unlock()
				}
			})
			if res.Verdict.Kind != rt.VerdictOK && res.Verdict.Kind != rt.VerdictLeak {
				t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
			}
			if fired != tc.fired {
				t.Errorf("the callback ran after %d iterations, want %d", fired, tc.fired)
			}
		})
	}
}

// TestQuantumBubble: inside a synctest bubble time stands still while goroutines work.
func TestQuantumBubble(t *testing.T) {
	var elapsed time.Duration
	res := rt.Run(rt.Config{Chooser: firstClock{}}, func() {
		rt.Bubble(func() {
			start := rt.Now()
			var mu rt.Mutex
			for range 100 {
				mu.Lock()
				mu.Unlock()
			}
			elapsed = rt.Since(start)
		})
	})
	if res.Verdict.Kind != rt.VerdictOK {
		t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
	}
	if elapsed != 0 {
		t.Errorf("200 steps in a bubble took %v, want 0", elapsed)
	}
}

// TestLifecycle checks what a run says about the goroutines left when the test returns: it
// goes on for goleak's window, and judges those still there as goleak would.
func TestLifecycle(t *testing.T) {
	for _, tc := range []struct {
		name  string
		main  bool
		steps int
		body  func()
		want  rt.VerdictKind
		msg   string
	}{
		{name: "finishes in the window", body: func() {
			rt.Go(func() { rt.Sleep(10 * time.Millisecond) })
		}, want: rt.VerdictOK},
		{name: "blocks after a sleep", body: func() {
			rt.Go(func() {
				rt.Sleep(10 * time.Millisecond)
				rt.Send(rt.MakeChan[int](0), 1)
			})
		}, want: rt.VerdictLeak, msg: "1 goroutine(s) blocked forever after TestX returned"},
		{name: "sleeps past the window", body: func() {
			rt.Go(func() { rt.Sleep(time.Second) })
		}, want: rt.VerdictLeak, msg: "1 goroutine(s) still running 431ms after TestX returned"},
		{name: "loops on a ticker", body: func() {
			tk := rt.NewTicker(time.Millisecond)
			rt.Go(func() {
				for {
					rt.Recv(tk.C)
				}
			})
		}, want: rt.VerdictLeak, msg: "1 goroutine(s) still running 431ms after TestX returned"},
		{name: "spawns without end", steps: 10_000, body: func() {
			var spawn func()
			spawn = func() { rt.Go(spawn) }
			rt.Go(spawn)
		}, want: rt.VerdictLeak, msg: "still running at heddle's step bound"},
		{name: "main returns", main: true, body: func() {
			rt.Go(func() { rt.Send(rt.MakeChan[int](0), 1) })
		}, want: rt.VerdictOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := rt.Run(rt.Config{MaxSteps: tc.steps}, func() {
				if tc.main {
					rt.NameMain()
				} else {
					rt.NameRoot("TestX")
				}
				tc.body()
			})
			if res.Verdict.Kind != tc.want || !strings.Contains(res.Verdict.Message, tc.msg) {
				t.Fatalf("verdict %s: %q, want %s: %q", res.Verdict.Kind, res.Verdict.Message, tc.want, tc.msg)
			}
		})
	}
}

// TestQuantumTiming: a bug that a timer firing mid-work makes says which timer fired, when in
// virtual time, and which goroutine was working.
func TestQuantumTiming(t *testing.T) {
	res := rt.Run(rt.Config{Chooser: last{}, Detail: true}, func() {
		var mu rt.Mutex
		state := 0
		rt.AfterFunc(time.Nanosecond, func() {
			mu.Lock()
			defer mu.Unlock()
			if state%2 == 1 {
				panic("half-done state")
			}
		})
		for range 10 {
			mu.Lock()
			state++
			mu.Unlock()
			mu.Lock()
			state++
			mu.Unlock()
		}
	})
	if res.Verdict.Kind != rt.VerdictPanic {
		t.Fatalf("verdict %s: %s, want panic", res.Verdict.Kind, res.Verdict.Message)
	}
	const want = "the timer of 1ns set at quantum_test.go:134 fired at 30ns of virtual time, while G1 was still running (it had never waited)"
	if got := strings.Join(res.Verdict.Timing, "\n"); got != want {
		t.Errorf("timing %q, want %q", got, want)
	}
}

// TestPoolPerRun: a value put in a pool in one run is not what Get returns in the next: it may
// hold the objects of the run that made it.
func TestPoolPerRun(t *testing.T) {
	var p rt.Pool
	var got []any
	for i := range 2 {
		res := rt.Run(rt.Config{}, func() {
			got = append(got, p.Get())
			p.Put(i + 1)
			if x := p.Get(); x != i+1 && x != nil {
				panic("the pool returned a value it was not given in this run")
			}
		})
		if res.Verdict.Kind != rt.VerdictOK {
			t.Fatalf("run %d: verdict %s: %s", i, res.Verdict.Kind, res.Verdict.Message)
		}
	}
	if got[0] != nil || got[1] != nil {
		t.Errorf("Get at the start of each run returned %v, want nothing", got)
	}
}

// TestSleepAgainstSpin: a goroutine sleeps 300 ns and then closes a channel while two others
// wake each other on a sync.Cond until it is closed. Under synctest's rule the sleep never
// ended, since some goroutine could always run. With time that passes with work the timer is
// due after 30 of their steps; a chooser that always passes over the clock, or the sleeper
// waiting for the lock, still lets each step after a time slice (sliceSteps, 10,000 steps), as
// Go's scheduler and its mutex's starvation mode do.
func TestSleepAgainstSpin(t *testing.T) {
	for _, tc := range []struct {
		name    string
		chooser rt.Chooser
		steps   int
	}{
		{"first", first{}, 11_000}, // the clock, offered last, waits a slice
		{"last", last{}, 21_000},   // the sleeper waits a slice for the lock
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := rt.Run(rt.Config{Chooser: tc.chooser, MaxSteps: 100000}, func() {
				var mu rt.Mutex
				cond := rt.NewCond(&mu)
				closed := false
				done := rt.MakeChan[struct{}](0)
				rt.Go(func() {
					rt.Sleep(300 * time.Nanosecond)
					mu.Lock()
					closed = true
					cond.Broadcast()
					mu.Unlock()
					rt.Close(done)
				})
				for range 2 {
					rt.Go(func() {
						mu.Lock()
						for !closed {
							cond.Broadcast()
							cond.Wait()
						}
						mu.Unlock()
					})
				}
				rt.Recv(done)
			})
			if res.Verdict.Kind != rt.VerdictOK {
				t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
			}
			if res.Steps > tc.steps {
				t.Errorf("the run took %d steps, want at most %d", res.Steps, tc.steps)
			}
		})
	}
}
