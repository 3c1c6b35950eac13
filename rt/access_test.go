package rt_test

import (
	"slices"
	"testing"

	"github.com/heddledbg/heddle/rt"
)

type first struct{}

func (first) Choose(p *rt.Point) int { return 0 }

// lockset runs body under the first and the last alternative at every decision and returns
// the keys of the lockset warnings of both runs.
func lockset(t *testing.T, body func()) []string {
	t.Helper()
	rt.UseAccesses() // as instrumented programs do: every run keeps the clocks from its start
	var keys []string
	for _, c := range []rt.Chooser{first{}, last{}} {
		res := rt.Run(rt.Config{Chooser: c}, body)
		if res.Verdict.Kind != rt.VerdictOK {
			t.Fatalf("verdict %+v", res.Verdict)
		}
		for _, w := range res.Warnings {
			if k := w.Key(); !slices.Contains(keys, k) {
				keys = append(keys, k)
				t.Log(w.Message(res))
			}
		}
	}
	return keys
}

// TestLockset checks Eraser's discipline on programs written against rt: each either
// violates it, and is reported at the positions of the two accesses, or hands memory over in
// a way Go orders (a channel, Once, WaitGroup, an atomic, a go statement), and is not.
func TestLockset(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func()
		want []string // positions of the two accesses (the write's first), or none
	}{
		{"unlocked-counter", func() {
			x := 0
			var wg rt.WaitGroup
			for range 2 {
				wg.Add(1)
				rt.Go(func() { defer wg.Done(); rt.Update(&x, 1, "c:1") })
			}
			wg.Wait()
		}, []string{"c:1", "c:1"}},
		{"lazy-init", func() {
			// Each goroutine reads, writes if it found nothing, and reads again: the owner's
			// write is remembered past its own later read.
			var cfg *int
			var wg rt.WaitGroup
			for range 2 {
				wg.Add(1)
				rt.Go(func() {
					defer wg.Done()
					if *rt.Load(&cfg, "a:1") == nil {
						cfg = rt.Store(&cfg, new(int), "a:2")
					}
					rt.Load(&cfg, "a:3")
				})
			}
			wg.Wait()
		}, []string{"a:2", "a:1"}},
		{"locked-counter", func() {
			x := 0
			var mu rt.Mutex
			var wg rt.WaitGroup
			for range 2 {
				wg.Add(1)
				rt.Go(func() { defer wg.Done(); mu.Lock(); rt.Update(&x, 1, "c:1"); mu.Unlock() })
			}
			wg.Wait()
			rt.Load(&x, "c:2") // after Wait: ordered, no lock needed
		}, nil},
		{"one-side-unlocked", func() {
			// Predictive: under either order the writes share no lock, even where the
			// mutex happened to order them.
			x := 0
			var mu rt.Mutex
			var wg rt.WaitGroup
			wg.Add(2)
			rt.Go(func() { defer wg.Done(); rt.Store(&x, 1, "a:1"); mu.Lock(); mu.Unlock() })
			rt.Go(func() { defer wg.Done(); mu.Lock(); mu.Unlock(); rt.Store(&x, 2, "b:1") })
			wg.Wait()
		}, []string{"a:1", "b:1"}},
		{"read-after-lock", func() {
			// Written under the lock, read without it once the lock showed the write done.
			x, done := 0, false
			var mu rt.Mutex
			var wg rt.WaitGroup
			wg.Add(1)
			rt.Go(func() {
				defer wg.Done()
				mu.Lock()
				rt.Update(&x, 1, "a:1")
				rt.Store(&done, true, "a:2")
				mu.Unlock()
			})
			mu.Lock()
			d := *rt.Load(&done, "b:1")
			mu.Unlock()
			if d {
				rt.Load(&x, "b:2")
			}
			wg.Wait()
		}, nil},
		{"publish-under-lock", func() {
			// Eraser's initialisation: filled without a lock, then published under one; the
			// reader reaches it only through the lock (heddle's debugger shows its halts so).
			type halt struct{ steps int }
			var cur *halt
			var mu rt.Mutex
			var wg rt.WaitGroup
			wg.Add(1)
			rt.Go(func() {
				defer wg.Done()
				h := new(halt)
				rt.Store(&h.steps, 3, "a:1")
				mu.Lock()
				cur = rt.Store(&cur, h, "a:2")
				mu.Unlock()
			})
			mu.Lock()
			if h := *rt.Load(&cur, "b:1"); h != nil {
				rt.Load(&h.steps, "b:2")
			}
			mu.Unlock()
			wg.Wait()
		}, nil},
		{"channel-handoff", func() {
			x := 0
			ch := rt.MakeChan[int](0)
			rt.Go(func() { rt.Store(&x, 1, "a:1"); rt.Send(ch, 1) })
			rt.Recv(ch)
			rt.Store(&x, 2, "b:1")
		}, nil},
		{"buffered-handoff", func() {
			x := 0
			ch := rt.MakeChan[int](1)
			done := rt.MakeChan[int](0)
			rt.Go(func() { rt.Recv(ch); rt.Update(&x, 1, "b:1"); rt.Close(done) })
			rt.Store(&x, 1, "a:1")
			rt.Send(ch, 1)
			rt.Recv(done)
			rt.Load(&x, "c:1")
		}, nil},
		{"once-init", func() {
			x := 0
			var once rt.Once
			var wg rt.WaitGroup
			for range 2 {
				wg.Add(1)
				rt.Go(func() {
					defer wg.Done()
					once.Do(func() { rt.Store(&x, 1, "a:1") })
					rt.Load(&x, "b:1")
				})
			}
			wg.Wait()
		}, nil},
		{"atomic-publish", func() {
			x := 0
			var ready rt.Int32
			rt.Go(func() { rt.Store(&x, 1, "a:1"); ready.Store(1) })
			for ready.Load() == 0 {
				rt.Gosched()
			}
			rt.Load(&x, "b:1")
		}, nil},
		{"atomic-flag-unordered", func() {
			// The flag is stored before the data: the read that sees it is not ordered after
			// the write.
			x := 0
			var ready rt.Int32
			rt.Go(func() { ready.Store(1); rt.Store(&x, 1, "a:1") })
			for ready.Load() == 0 {
				rt.Gosched()
			}
			rt.Load(&x, "b:1")
		}, []string{"a:1", "b:1"}},
		{"sync-map-handoff", func() {
			var m rt.Map
			done := rt.MakeChan[int](0)
			rt.Go(func() {
				p := new(int)
				rt.Store(p, 1, "a:1")
				m.Store("k", p)
				rt.Close(done)
			})
			for {
				if v, ok := m.Load("k"); ok {
					rt.Store(v.(*int), 2, "b:1")
					break
				}
				rt.Gosched()
			}
			rt.Recv(done)
		}, nil},
		{"readers-after-init", func() {
			x := 0
			rt.Store(&x, 1, "a:1")
			var wg rt.WaitGroup
			for range 2 {
				wg.Add(1)
				rt.Go(func() { defer wg.Done(); rt.Load(&x, "b:1") })
			}
			wg.Wait()
		}, nil},
		{"map-writes", func() {
			m := map[int]int{}
			var wg rt.WaitGroup
			for i := range 2 {
				wg.Add(1)
				rt.Go(func() { defer wg.Done(); rt.MapWrite(m, "m:1")[i] = i })
			}
			wg.Wait()
		}, []string{"m:1", "m:1"}},
		{"rwmutex-readers", func() {
			x := 0
			var mu rt.RWMutex
			var wg rt.WaitGroup
			wg.Add(3)
			rt.Go(func() { defer wg.Done(); mu.Lock(); rt.Store(&x, 1, "w:1"); mu.Unlock() })
			for range 2 {
				rt.Go(func() { defer wg.Done(); mu.RLock(); rt.Load(&x, "r:1"); mu.RUnlock() })
			}
			wg.Wait()
		}, nil},
		{"pool-handoff", func() {
			// Each goroutine takes a buffer from the pool, writes it, and puts it back: the
			// second may get the first's, which the pool hands over without a lock.
			type buf struct{ n int }
			var pool rt.Pool
			pool.New = func() any { return new(buf) }
			var wg rt.WaitGroup
			wg.Add(2)
			for range 2 {
				rt.Go(func() {
					defer wg.Done()
					b := pool.Get().(*buf)
					rt.Store(&b.n, 1, "p:1")
					pool.Put(b)
				})
			}
			wg.Wait()
		}, nil},
		{"pool-use-after-put", func() {
			// The first goroutine writes its buffer after putting it back, when the second
			// may own it.
			type buf struct{ n int }
			var pool rt.Pool
			pool.New = func() any { return new(buf) }
			var wg rt.WaitGroup
			wg.Add(2)
			rt.Go(func() {
				defer wg.Done()
				b := pool.Get().(*buf)
				pool.Put(b)
				rt.Store(&b.n, 1, "p:1")
			})
			rt.Go(func() {
				defer wg.Done()
				b := pool.Get().(*buf)
				rt.Store(&b.n, 2, "p:2")
			})
			wg.Wait()
		}, []string{"p:1", "p:2"}},
		{"write-under-read-lock", func() {
			x := 0
			var mu rt.RWMutex
			var wg rt.WaitGroup
			wg.Add(2)
			for range 2 {
				rt.Go(func() { defer wg.Done(); mu.RLock(); rt.Store(&x, 1, "w:1"); mu.RUnlock() })
			}
			wg.Wait()
		}, []string{"w:1", "w:1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := lockset(t, tc.body)
			if tc.want == nil {
				if len(got) > 0 {
					t.Fatalf("warnings %q on correct code", got)
				}
				return
			}
			want := "lockset " + tc.want[0]
			if !slices.Contains(got, want) || len(got) != 1 {
				t.Fatalf("warnings %q, want [%q]", got, want)
			}
		})
	}
}

// TestAccessesIgnored checks that IgnoreAccesses turns the check off.
func TestAccessesIgnored(t *testing.T) {
	x := 0
	res := rt.Run(rt.Config{IgnoreAccesses: true}, func() {
		var wg rt.WaitGroup
		for range 2 {
			wg.Add(1)
			rt.Go(func() { defer wg.Done(); rt.Update(&x, 1, "c:1") })
		}
		wg.Wait()
	})
	if len(res.Warnings) > 0 {
		t.Fatalf("warnings with IgnoreAccesses: %+v", res.Warnings)
	}
}

// TestLocksetOthers checks the goroutines a warning involves besides its two accesses': here
// the writer of a flag that one of the racing goroutines read, as JPF's race window adds
// the threads that write what the involved ones read.
func TestLocksetOthers(t *testing.T) {
	rt.UseAccesses()
	res := rt.Run(rt.Config{}, func() {
		x, flag := 0, 0
		var wg rt.WaitGroup
		wg.Add(3)
		rt.Go(func() { defer wg.Done(); rt.Store(&flag, 1, "f:1") })                     // G1.1
		rt.Go(func() { defer wg.Done(); rt.Load(&flag, "f:2"); rt.Store(&x, 1, "x:1") }) // G1.2
		rt.Go(func() { defer wg.Done(); rt.Store(&x, 2, "x:2") })                        // G1.3
		wg.Wait()
	})
	var found bool
	for _, w := range res.Warnings {
		if w.Key() == "lockset x:1" || w.Key() == "lockset x:2" {
			found = true
			if !slices.Equal(w.Others, []rt.GID{1}) {
				t.Errorf("others %v, want [1] (G1.1, which wrote the flag G1.2 read)", w.Others)
			}
		}
	}
	if !found {
		t.Fatalf("no warning on x: %+v", res.Warnings)
	}
}

// TestLocksetBound: a run that touches more variables than the check follows (a goroutine
// filling a buffer of millions of bytes beside another) keeps the warnings found before the
// bound, and leaves the rest of the run to the race detector (y's), where the shadows of every
// byte cost gigabytes and minutes (yamux's TestSendData_Large, 250 MB, was reported as a hang).
func TestLocksetBound(t *testing.T) {
	if testing.Short() {
		t.Skip("touches millions of variables")
	}
	x, y := 0, 0
	buf := make([]byte, 3<<20)
	got := lockset(t, func() {
		var wg rt.WaitGroup
		wg.Add(2)
		for range 2 {
			rt.Go(func() { defer wg.Done(); rt.Update(&x, 1, "x:1") })
		}
		wg.Wait()
		done := rt.MakeChan[int](0)
		rt.Go(func() { rt.Recv(done) })
		for i := range buf {
			buf[i] = rt.Store(&buf[i], byte(i), "b:1")
		}
		rt.Close(done)
		wg.Add(2)
		for range 2 {
			rt.Go(func() { defer wg.Done(); rt.Update(&y, 1, "y:1") })
		}
		wg.Wait()
	})
	if !slices.Equal(got, []string{"lockset x:1"}) {
		t.Fatalf("warnings %q, want the counter's alone", got)
	}
}

// TestLocksetManyGoroutines: a run that starts more goroutines than the check keeps clocks
// for (maxClocked, 4,096) still runs, fast, and warns of nothing from then on, as past maxVars;
// the same unlocked counter among few goroutines is reported.
func TestLocksetManyGoroutines(t *testing.T) {
	counter := func(idle int) func() {
		return func() {
			var wg rt.WaitGroup
			for range idle {
				wg.Add(1)
				rt.Go(wg.Done)
			}
			wg.Wait()
			x := 0
			for range 2 {
				wg.Add(1)
				rt.Go(func() { defer wg.Done(); rt.Update(&x, 1, "c:1") })
			}
			wg.Wait()
		}
	}
	if got := lockset(t, counter(10)); len(got) != 1 {
		t.Errorf("after 10 goroutines: warnings %v, want the unlocked counter", got)
	}
	if got := lockset(t, counter(5000)); len(got) != 0 {
		t.Errorf("after 5,000 goroutines: warnings %v, want none: the check stopped", got)
	}
}
