package rt_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/rt"
)

// setRecorder picks the first alternative of each persistent set and records the sets, as
// goroutine names, decision by decision.
type setRecorder struct {
	res  *rt.Result
	sets []string
}

func (s *setRecorder) Choose(p *rt.Point) int {
	if p.Kind != rt.DecideGoroutine {
		return 0
	}
	var names []string
	pick := -1
	for i, a := range p.Alts {
		if p.Persistent == nil || p.Persistent[i] {
			names = append(names, fmt.Sprintf("G%d", a.G))
			if pick < 0 {
				pick = i
			}
		}
	}
	if p.Persistent == nil {
		names = append(names, "(all)")
	}
	s.sets = append(s.sets, strings.Join(names, " "))
	return pick
}

// TestPersistent checks the sets Algorithm 2-MLD computes along the first-choice schedule of
// small programs: a goroutine is alone only when no other goroutine may touch what its step
// does. Of two sets of one, the one with the goroutine that ran last (the last one started)
// is kept.
func TestPersistent(t *testing.T) {
	tests := []struct {
		name string
		body func()
		want []string
	}{{
		// Stoller §6: each thread takes its own lock, then the shared one. Alone at the first
		// two decisions (own locks); both when both are about to take o0.
		name: "composition",
		body: func() {
			var o0 rt.Mutex
			var own [2]rt.Mutex
			var o int
			var oi [2]int
			o = rt.Store(&o, 7, "o")
			for i := range 2 {
				rt.Go(func() {
					rt.Declare(rt.Bound{}.Sync(&own[i], &o0).Reads(&o).Writes(&oi[i]))
					own[i].Lock()
					o0.Lock()
					oi[i] = rt.Store(&oi[i], *rt.Load(&o, "o"), "oi")
					o0.Unlock()
					own[i].Unlock()
				})
			}
		},
		want: []string{"G2", "G1", "G1 G2"},
	}, {
		// Without bounds, every goroutine may do anything.
		name: "unbounded",
		body: func() {
			var a, b rt.Mutex
			rt.Go(func() { a.Lock(); a.Unlock() })
			rt.Go(func() { b.Lock(); b.Unlock() })
		},
		want: []string{"G1 G2"},
	}, {
		// A goroutine that may poll depends on every step, and is in the set of every other
		// goroutine; it is alone while its own step does not poll.
		name: "polls",
		body: func() {
			var a, b rt.Mutex
			rt.Go(func() { rt.Declare(rt.Bound{}.Sync(&a)); a.Lock(); a.Unlock() })
			rt.Go(func() { rt.Declare(rt.Bound{}.Sync(&b).Polls()); b.Lock(); b.Unlock(); rt.Gosched() })
		},
		want: []string{"G2", "G1 G2"},
	}, {
		// Distinct locks, but the steps write a variable both goroutines write under their
		// own lock: eq. (6) keeps the write (the variable is exclusive to the root, so MLD
		// allows it), and the goroutines depend on each other through it.
		name: "data",
		body: func() {
			var a, b rt.Mutex
			var x int
			x = rt.Store(&x, 1, "x")
			rt.Go(func() { rt.Declare(rt.Bound{}.Sync(&a).Writes(&x)); a.Lock(); x = rt.Store(&x, 2, "x"); a.Unlock() })
			rt.Go(func() { rt.Declare(rt.Bound{}.Sync(&b).Writes(&x)); b.Lock(); x = rt.Store(&x, 3, "x"); b.Unlock() })
		},
		want: []string{"G1 G2"},
	}, {
		// A receive and the send it waits for are in one set; a goroutine that locks a mutex
		// no one else uses is alone.
		name: "rendezvous",
		body: func() {
			c := rt.MakeChan[int](0)
			var a rt.Mutex
			rt.Go(func() { rt.Declare(rt.Bound{}.Sync(c)); rt.Send(c, 1) })
			rt.Go(func() { rt.Declare(rt.Bound{}.Sync(&a)); a.Lock(); a.Unlock() })
			rt.Declare(rt.Bound{}.Sync(c))
			rt.Recv(c)
		},
		want: []string{"G2", "G0 G1"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &setRecorder{}
			res := rt.Run(rt.Config{Chooser: s, Persistent: true}, tc.body)
			if res.Verdict.Kind != rt.VerdictOK {
				t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
			}
			if strings.Join(s.sets, "; ") != strings.Join(tc.want, "; ") {
				t.Errorf("persistent sets %q, want %q", s.sets, tc.want)
			}
		})
	}
}

// TestBound checks that rt ends a run at the first operation or access of a goroutine outside
// the bound it declared, and lets one inside it run.
func TestBound(t *testing.T) {
	rt.UseAccesses()
	tests := []struct {
		name, want string // want: a part of the misuse message, "" for a clean run
		body       func()
	}{
		{"inside", "", func() {
			var a rt.Mutex
			var x int
			rt.Declare(rt.Bound{}.Sync(&a).Writes(&x))
			a.Lock()
			x = rt.Store(&x, *rt.Load(&x, "x")+1, "x")
			a.Unlock()
		}},
		{"object", "operates on", func() {
			var a, b rt.Mutex
			rt.Declare(rt.Bound{}.Sync(&a))
			b.Lock()
		}},
		{"write", "writes a variable", func() {
			var x int
			rt.Declare(rt.Bound{}.Reads(&x))
			x = rt.Store(&x, 1, "x")
		}},
		{"unlock", "which it does not hold", func() {
			var a rt.Mutex
			done := rt.MakeChan[int](0)
			a.Lock()
			rt.Go(func() { rt.Declare(rt.Bound{}.Sync(&a, done)); a.Unlock(); rt.Send(done, 1) })
			rt.Recv(done)
		}},
		{"poll", "polls", func() {
			rt.Declare(rt.Bound{})
			rt.Gosched()
			rt.Gosched()
		}},
		{"widen", "widens the bound", func() {
			var a rt.Mutex
			rt.Declare(rt.Bound{})
			rt.Declare(rt.Bound{}.Sync(&a))
		}},
		{"inherited", "operates on", func() {
			var a, b rt.Mutex
			done := rt.MakeChan[int](0)
			rt.Declare(rt.Bound{}.Sync(&a, done))
			rt.Go(func() { b.Lock(); rt.Send(done, 1) })
			rt.Recv(done)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := rt.Run(rt.Config{}, tc.body)
			switch {
			case tc.want == "" && res.Verdict.Kind != rt.VerdictOK:
				t.Errorf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
			case tc.want != "" && (res.Verdict.Kind != rt.VerdictMisuse || !strings.Contains(res.Verdict.Message, tc.want)):
				t.Errorf("verdict %s: %q, want misuse with %q", res.Verdict.Kind, res.Verdict.Message, tc.want)
			}
		})
	}
}
