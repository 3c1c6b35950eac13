package rt_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/rt"
)

// every is a depth-first chooser over every schedule of a program: each run follows prefix,
// then the first alternative, and next moves to the following schedule.
type every struct {
	prefix, trail, widths []int
}

func (d *every) Choose(p *rt.Point) int {
	i := len(d.trail)
	pick := 0
	if i < len(d.prefix) {
		pick = d.prefix[i]
	}
	d.trail = append(d.trail, pick)
	d.widths = append(d.widths, len(p.Alts))
	return pick
}

// next sets the prefix of the next schedule, and reports false when there is none.
func (d *every) next() bool {
	for i := len(d.trail) - 1; i >= 0; i-- {
		if d.trail[i]+1 < d.widths[i] {
			d.prefix = append(d.trail[:i:i], d.trail[i]+1)
			d.trail, d.widths = d.trail[:0:0], d.widths[:0]
			return true
		}
	}
	return false
}

// inRegion runs f as an execution of the annotated function fn.
func inRegion(fn string, f func()) {
	rt.AtomicEnter(fn, "v.go:1")
	defer rt.AtomicExit()
	f()
}

// twice runs f on two goroutines and waits for both.
func twice(f func()) {
	var wg rt.WaitGroup
	wg.Add(2)
	for range 2 {
		rt.Go(func() { defer wg.Done(); f() })
	}
	wg.Wait()
}

// TestVelodrome explores every schedule of small programs and checks which of them pass with a
// cycle of the transactional happens-before graph, and that such a schedule replays to the
// same verdict and message.
func TestVelodrome(t *testing.T) {
	rt.UseAccesses()
	cases := []struct {
		name  string
		body  func()
		cycle bool // some schedule is not conflict-serializable
		// wait says that the region waits in some schedules: Bogor's definite case, not the
		// graph's.
		wait bool
	}{
		{"split sections", func() {
			var mu rt.Mutex
			n := 0
			twice(func() {
				inRegion("inc", func() {
					mu.Lock()
					v := *rt.Load(&n, "c.go:3:1")
					mu.Unlock()
					mu.Lock()
					n = rt.Store(&n, v+1, "c.go:6:1")
					mu.Unlock()
				})
			})
		}, true, false},
		{"one section", func() {
			var mu rt.Mutex
			n := 0
			twice(func() {
				inRegion("inc", func() {
					mu.Lock()
					n = rt.Store(&n, *rt.Load(&n, "c.go:3:1")+1, "c.go:3:1")
					mu.Unlock()
				})
			})
		}, false, false},
		{"accesses only", func() {
			// A read and a write of a variable, with another goroutine's write in between:
			// the conflicts alone close the cycle.
			n := 0
			var wg rt.WaitGroup
			wg.Add(2)
			rt.Go(func() {
				defer wg.Done()
				inRegion("readWrite", func() {
					v := *rt.Load(&n, "a.go:1:1")
					rt.Gosched()
					n = rt.Store(&n, v+1, "a.go:3:1")
				})
			})
			rt.Go(func() { defer wg.Done(); rt.Gosched(); n = rt.Store(&n, 5, "b.go:1:1") })
			wg.Wait()
		}, true, false},
		{"split sections, one caller", func() {
			// The other goroutine takes the lock outside any region, and touches nothing the
			// region touches: its unary transactions come before or after the region's
			// sections, and the lock alone closes a cycle when it takes it in between.
			var mu rt.Mutex
			n := 0
			var wg rt.WaitGroup
			wg.Add(2)
			rt.Go(func() {
				defer wg.Done()
				inRegion("inc", func() {
					mu.Lock()
					v := *rt.Load(&n, "c.go:3:1")
					mu.Unlock()
					mu.Lock()
					n = rt.Store(&n, v+1, "c.go:6:1")
					mu.Unlock()
				})
			})
			rt.Go(func() { defer wg.Done(); mu.Lock(); mu.Unlock() })
			wg.Wait()
		}, true, false},
		{"rendezvous", func() {
			// A region that hands a value to a receiver parked outside regions, which then
			// writes what the region read: a rendezvous orders both ways without a cycle.
			ch := rt.MakeChan[int](0)
			n := 0
			var wg rt.WaitGroup
			wg.Add(1)
			rt.Go(func() {
				defer wg.Done()
				v := rt.Recv(ch)
				n = rt.Store(&n, v, "r.go:2:1")
			})
			rt.Gosched()
			inRegion("handOff", func() {
				rt.Send(ch, *rt.Load(&n, "s.go:1:1")+1)
			})
			wg.Wait()
		}, false, true},
		{"buffered hand-off", func() {
			ch := rt.MakeChan[int](1)
			var mu rt.Mutex
			n := 0
			var wg rt.WaitGroup
			wg.Add(2)
			rt.Go(func() {
				defer wg.Done()
				inRegion("produce", func() {
					mu.Lock()
					n = rt.Store(&n, 1, "p.go:2:1")
					mu.Unlock()
					rt.Send(ch, 1)
				})
			})
			rt.Go(func() {
				defer wg.Done()
				rt.Recv(ch)
				mu.Lock()
				_ = *rt.Load(&n, "q.go:3:1")
				mu.Unlock()
			})
			wg.Wait()
		}, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := &every{}
			runs, cycles := 0, 0
			var first *rt.Result
			var firstPrefix []int
			for {
				res := rt.Run(rt.Config{Chooser: d}, c.body)
				runs++
				switch res.Verdict.Kind {
				case rt.VerdictOK:
				case rt.VerdictAtomicity:
					if c.wait && strings.Contains(res.Verdict.Message, "waits inside it") {
						break
					}
					if !strings.Contains(res.Verdict.Message, "transactional happens-before graph") {
						t.Fatalf("atomicity verdict not from a cycle: %s", res.Verdict.Message)
					}
					cycles++
					if first == nil {
						first, firstPrefix = res, slices.Clone(d.trail)
						t.Log(res.Verdict.Message)
					}
				default:
					t.Fatalf("run %d: %s: %s", runs, res.Verdict.Kind, res.Verdict.Message)
				}
				if !d.next() || runs == 5000 {
					break
				}
			}
			if (cycles > 0) != c.cycle {
				t.Fatalf("%d of %d schedules with a cycle, want some: %v", cycles, runs, c.cycle)
			}
			if first == nil {
				return
			}
			if first.Verdict.Atomicity == nil || first.Verdict.Atomicity.Func == "" {
				t.Errorf("the verdict names no function: %+v", first.Verdict)
			}
			for range 10 {
				r := &every{prefix: firstPrefix}
				res := rt.Run(rt.Config{Chooser: r}, c.body)
				if res.Verdict.Kind != first.Verdict.Kind || res.Verdict.Message != first.Verdict.Message {
					t.Fatalf("replay: %s (%s), want %s (%s)", res.Verdict.Kind, res.Verdict.Message, first.Verdict.Kind, first.Verdict.Message)
				}
			}
		})
	}
}
