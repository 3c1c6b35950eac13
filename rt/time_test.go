package rt_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heddledbg/heddle/rt"
)

// firstClock picks the clock whenever it is an alternative: the most adversarial schedule.
type firstClock struct{}

func (firstClock) Choose(p *rt.Point) int {
	for i, a := range p.Alts {
		if a.G == rt.ClockID {
			return i
		}
	}
	return 0
}

// guarded is a test guarded by a timeout: a worker that never waits sends its result, and the
// caller gives up after a second. With slow set, the worker sleeps for two seconds first.
func guarded(slow bool) func() {
	return func() {
		result := rt.MakeChan[int](0)
		rt.Go(func() {
			if slow {
				rt.Sleep(2 * time.Second)
			}
			rt.Send(result, 42)
		})
		rt.Select(false, rt.RecvCase(result), rt.RecvCase(rt.After(time.Second)))
	}
}

func TestTimeModels(t *testing.T) {
	const early = "with adversarial time, the timer of 1s set at time_test.go:34 fired while G1 was still running (it had never waited)\n" +
		"with adversarial time, the timer of 1s set at time_test.go:34 fired while G1.1 was still running (it had not waited since it was started at time_test.go:28)"
	for _, tc := range []struct {
		name   string
		time   rt.TimeModel
		slow   bool
		want   rt.VerdictKind
		timing string
	}{
		// The worker never waits: under synctest's time the timeout cannot beat it.
		// A second of time takes 100 million steps of work: the worker sends first.
		{"quantum/fast", rt.TimeQuantum, false, rt.VerdictOK, ""},
		{"quantum/slow", rt.TimeQuantum, true, rt.VerdictLeak, ""},
		{"synctest/fast", rt.TimeSynctest, false, rt.VerdictOK, ""},
		{"synctest/slow", rt.TimeSynctest, true, rt.VerdictLeak, ""},
		// The clock fires at the first step it can: before either goroutine waited.
		{"adversarial/fast", rt.TimeAdversarial, false, rt.VerdictLeak, early},
		{"adversarial/slow", rt.TimeAdversarial, true, rt.VerdictLeak, early},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := rt.Run(rt.Config{Chooser: firstClock{}, Time: tc.time, Detail: true}, guarded(tc.slow))
			if res.Verdict.Kind != tc.want {
				t.Fatalf("verdict %s: %s, want %s", res.Verdict.Kind, res.Verdict.Message, tc.want)
			}
			if got := strings.Join(res.Verdict.Timing, "\n"); got != tc.timing {
				t.Errorf("timing %q, want %q", got, tc.timing)
			}
		})
	}
}

// TestStopUnreceived: as since Go 1.23, Stop and Reset on a timer that fired while nobody
// received its value discard the value and report the timer as active, so the drain idiom
// "if !t.Stop() { <-t.C }" does not block on it.
func TestStopUnreceived(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(*rt.Timer) bool
	}{
		{"Stop", (*rt.Timer).Stop},
		{"Reset", func(tm *rt.Timer) bool { return tm.Reset(time.Second) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var active, pending bool
			res := rt.Run(rt.Config{}, func() {
				tm := rt.NewTimer(time.Second)
				rt.Sleep(2 * time.Second) // the timer fires; its value waits in C
				active = tc.stop(tm)
				chosen, _, _ := rt.Select(true, rt.RecvCase(tm.C))
				pending = chosen == 0
			})
			if res.Verdict.Kind != rt.VerdictOK {
				t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
			}
			if !active || pending {
				t.Errorf("%s after an unreceived fire returned %v, value still in C %v; want true, false", tc.name, active, pending)
			}
		})
	}
}

// TestBubble checks synctest.Test's meaning: the bubble's clock starts in 2000, a sleeper
// wakes before a longer sleep returns, Wait returns once the others are durably blocked, and
// Bubble returns after every goroutine of the bubble has exited.
func TestBubble(t *testing.T) {
	var log []string
	res := rt.Run(rt.Config{}, func() {
		rt.Bubble(func() {
			start := rt.Now()
			if !start.Equal(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)) {
				panic("bubble starts at " + start.String())
			}
			rt.Go(func() {
				rt.Sleep(time.Second)
				log = append(log, "slept "+rt.Since(start).String())
			})
			done := false
			rt.Go(func() { done = true })
			rt.BubbleWait()
			if !done {
				panic("Wait returned before the goroutine finished")
			}
			rt.Sleep(2 * time.Second)
			log = append(log, "root "+rt.Since(start).String())
			rt.Go(func() { rt.Gosched(); log = append(log, "last") })
		})
		log = append(log, "returned")
	})
	if res.Verdict.Kind != rt.VerdictOK {
		t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
	}
	if got, want := strings.Join(log, ", "), "slept 1s, root 2s, last, returned"; got != want {
		t.Errorf("log %q, want %q", got, want)
	}
}

// TestBubbleStopsTime: once the bubble's root has returned, time stops, so a goroutine left
// sleeping in the bubble never wakes: the run is a deadlock, as synctest.Test panics.
func TestBubbleStopsTime(t *testing.T) {
	res := rt.Run(rt.Config{}, func() {
		rt.Bubble(func() {
			rt.Go(func() { rt.Sleep(time.Second) })
		})
	})
	if res.Verdict.Kind != rt.VerdictDeadlock {
		t.Fatalf("verdict %s: %s, want deadlock", res.Verdict.Kind, res.Verdict.Message)
	}
}

// TestForeignNotDurable: a goroutine waiting on a channel heddle did not make is not durably
// blocked, so the clock does not advance past it while its value arrives in real time first.
func TestForeignNotDurable(t *testing.T) {
	for _, tc := range []struct {
		name string
		time rt.TimeModel
		want int
	}{
		{"synctest", rt.TimeSynctest, 0},
		{"adversarial", rt.TimeAdversarial, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			outside := make(chan int)
			go func() {
				time.Sleep(20 * time.Millisecond)
				select {
				case outside <- 42:
				case <-time.After(2 * time.Second):
				}
			}()
			got := -1
			res := rt.Run(rt.Config{Time: tc.time}, func() {
				got, _, _ = rt.Select(false, rt.RecvCase(outside), rt.RecvCase(rt.After(time.Second)))
			})
			if res.Verdict.Kind != rt.VerdictOK || got != tc.want {
				t.Fatalf("verdict %s: %s, case %d; want ok, case %d", res.Verdict.Kind, res.Verdict.Message, got, tc.want)
			}
		})
	}
}

// TestClockReadings checks the clock that code written for real time needs outside a bubble:
// two readings differ, across goroutines too, an entry with a nanosecond's lifetime has expired
// by the next reading, a timer set after a reading wakes no earlier than that reading plus its
// duration, and inside a bubble time stands still while goroutines run, as synctest's does.
func TestClockReadings(t *testing.T) {
	var problems []string
	check := func(ok bool, what string) {
		if !ok {
			problems = append(problems, what)
		}
	}
	res := rt.Run(rt.Config{}, func() {
		t1 := rt.Now()
		t2 := rt.Now()
		check(t2.After(t1), "a second reading is not later than the first")
		expires := rt.Now().Add(time.Nanosecond)
		check(rt.Now().After(expires), "an entry with a nanosecond's lifetime has not expired")
		deadline := rt.Now().Add(time.Second)
		rt.Sleep(time.Second)
		check(!rt.Now().Before(deadline), "a sleep of a second woke before its deadline")
		ch := rt.MakeChan[time.Time](0)
		rt.Go(func() { rt.Send(ch, rt.Now()) })
		other := rt.Recv(ch)
		check(rt.Now().After(other), "a reading after a receive is not later than the sender's")
		rt.Bubble(func() {
			b1 := rt.Now()
			b2 := rt.Now()
			check(b1.Equal(b2), "time moved inside a bubble without a wait")
		})
	})
	if res.Verdict.Kind != rt.VerdictOK {
		t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestTimerNoDeadline: a timer set for time.Duration(math.MaxInt64), the "no deadline" of
// pion's vnet.UDPConn and of many read loops, is due at the end of time, as Go's runtime
// saturates its when; added to a clock past zero, it must not wrap into the past and fire at
// once. Its twin, a timer of 1ns, fires before the worker's send when the clock goes first.
func TestTimerNoDeadline(t *testing.T) {
	for _, tc := range []struct {
		d     time.Duration
		fired bool
	}{
		{1<<63 - 1, false}, // math.MaxInt64
		{time.Nanosecond, true},
	} {
		t.Run(tc.d.String(), func(t *testing.T) {
			var fired bool
			res := rt.Run(rt.Config{Chooser: firstClock{}}, func() {
				rt.Sleep(time.Second) // the clock is past zero
				tm := rt.NewTimer(tc.d)
				result := rt.MakeChan[int](1)
				rt.Go(func() {
					rt.Sleep(time.Millisecond)
					rt.Send(result, 42)
				})
				chosen, _, _ := rt.Select(false, rt.RecvCase(result), rt.RecvCase(tm.C))
				fired = chosen == 1
			})
			if res.Verdict.Kind != rt.VerdictOK {
				t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
			}
			if fired != tc.fired {
				t.Errorf("the timer of %v fired before a send 1ms away: %v, want %v", tc.d, fired, tc.fired)
			}
		})
	}
}

// TestBubbleTick: in a synctest bubble, the time a timer sends on its channel is the bubble's,
// the time.Now of its goroutines when it fires, as testing/synctest's is: code that compares
// the two (pion's vnet.DelayFilter, releasing the packets whose deadline is not after the
// tick) sees the same clock.
func TestBubbleTick(t *testing.T) {
	var tick, now time.Time
	res := rt.Run(rt.Config{}, func() {
		rt.Bubble(func() {
			tm := rt.NewTimer(10 * time.Millisecond)
			_, v, _ := rt.Select(false, rt.RecvCase(tm.C))
			tick, now = v.(time.Time), rt.Now()
		})
	})
	if res.Verdict.Kind != rt.VerdictOK {
		t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
	}
	if want := time.Date(2000, 1, 1, 0, 0, 0, int(10*time.Millisecond), time.UTC); !tick.Equal(want) || !now.Equal(want) {
		t.Errorf("the bubble's timer sent %v, and time.Now read %v; want both %v", tick, now, want)
	}
}
