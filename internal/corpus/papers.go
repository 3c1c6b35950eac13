package corpus

import (
	"fmt"

	"github.com/heddledbg/heddle"
	"github.com/heddledbg/heddle/rt"
)

const (
	stoller = "Stoller 2000, \"Model-Checking Multi-Threaded Distributed Java Programs\", "
	jpf     = "Kale, \"Design of Software Model Checker\" (Java PathFinder), "
	bogor   = "Hatcliff, Robby, Dwyer, \"Verifying Atomicity Specifications … using Model-Checking\", "
)

var papers = []Program{
	{Name: "StollerMLD", Source: stoller + "§9: θ1 = ⟨sem.up(), v := 1⟩, θ2 = ⟨sem.down(), o.acquire(), v := 2, o.release()⟩", Body: stollerMLD(true), Want: rt.VerdictAssert, Twin: "StollerMLDFixed"},
	{Name: "StollerMLDFixed", Source: stoller + "§9, v := 1 before sem.up()", Body: stollerMLD(false), Twin: "StollerMLD"},
	{Name: "JPFFigure5", Source: jpf + "Figure 5", Body: jpfFigure5(true), Want: rt.VerdictDeadlock, Twin: "JPFFigure5Fixed"},
	{Name: "JPFFigure5Fixed", Source: jpf + "Figure 5, thread 1 takes L4 after releasing L3", Body: jpfFigure5(false), Twin: "JPFFigure5"},
	{Name: "BogorAppend", Source: bogor + "Fig. 1(a): StringBuffer.append(sb)", Body: bogorAppend(true), Want: rt.VerdictPanic, Twin: "BogorAppendFixed"},
	{Name: "BogorAppendFixed", Source: bogor + "Fig. 1(a), length and copy in one locked call", Body: bogorAppend(false), Twin: "BogorAppend"},
	{Name: "StollerComposition", Source: stoller + "§6: θi = ⟨acquire o'i, acquire o0, read o and write oi, release o0, release o'i⟩", Body: stollerComposition},
}

// stollerMLD is the example by which Stoller shows that invisible-first search can miss a
// violation of the locking discipline: θ1 signals a semaphore and then writes v without a
// lock, θ2 waits for the semaphore and writes v under lock o. The program intends θ2's write
// to be the last. heddle does not check the locking discipline, so the accesses to v are
// atomic stores, which makes the late write of θ1 a schedulable step; the fixed θ1 writes v
// before signalling, as the initialising thread of MLD′ must.
func stollerMLD(bug bool) func() {
	return func() {
		sem := rt.MakeChan[struct{}](1)
		var o rt.Mutex
		var v int64
		join(func() {
			if !bug {
				rt.StoreInt64(&v, 1)
			}
			rt.Send(sem, struct{}{})
			if bug {
				rt.StoreInt64(&v, 1)
			}
		}, func() {
			rt.Recv(sem)
			o.Lock()
			rt.StoreInt64(&v, 2)
			o.Unlock()
		})
		heddle.Assert(rt.LoadInt64(&v) == 2, "v = %d: θ1 wrote v after θ2", rt.LoadInt64(&v))
	}
}

// stollerComposition is Stoller's example of the gain of composing transitions: each θi locks
// its own o'i, then the shared o0, reads o and writes its own oi. Only the two acquisitions of
// o0 are dependent, so there are exactly two Mazurkiewicz traces; invisible-first search
// explores more interleavings, composition one per trace.
func stollerComposition() {
	var o0 rt.Mutex
	var own [2]rt.Mutex
	// The objects are initialised before the threads start, as in the paper's s1.
	var o int
	o = rt.Store(&o, 7, "o")
	var oi [2]int
	for i := range oi {
		oi[i] = rt.Store(&oi[i], 0, "oi")
	}
	theta := func(i int) func() {
		return func() {
			own[i].Lock()
			o0.Lock()
			oi[i] = rt.Store(&oi[i], *rt.Load(&o, "o"), "oi")
			o0.Unlock()
			own[i].Unlock()
		}
	}
	bound := func(i int) rt.Bound { return rt.Bound{}.Sync(&own[i], &o0).Reads(&o).Writes(&oi[i]) }
	joinBounded(&rt.Bound{}, []rt.Bound{bound(0), bound(1)}, theta(0), theta(1))
}

// jpfFigure5 is the two-thread program of Figure 5, whose lock trees (Figure 6) show one
// unprotected inversion, L3/L4, and two inversions of L2/L3 protected by the gate locks L1 and
// L4. The L3/L4 inversion is a real deadlock: thread 2 can finish its L1 block and take L4
// while thread 1 holds L1 and L3 and is about to take L4. In the fixed version thread 1 takes
// L4 after releasing L3, which leaves only the gated inversions.
func jpfFigure5(bug bool) func() {
	return func() {
		l1, l2, l3, l4 := new(rt.Mutex), new(rt.Mutex), new(rt.Mutex), new(rt.Mutex)
		locked := func(l *rt.Mutex, body ...func()) func() {
			return func() {
				l.Lock()
				for _, f := range body {
					f()
				}
				l.Unlock()
			}
		}
		t1 := func() {
			// synchronized(L1) { synchronized(L3) { synchronized(L2) {}; synchronized(L4) {} } }
			if bug {
				locked(l1, locked(l3, locked(l2), locked(l4)))()
			} else {
				locked(l1, locked(l3, locked(l2)), locked(l4))()
			}
			// synchronized(L4) { synchronized(L2) { synchronized(L3) {} } }
			locked(l4, locked(l2, locked(l3)))()
		}
		t2 := func() {
			// synchronized(L1) { synchronized(L2) { synchronized(L3) {} } }
			locked(l1, locked(l2, locked(l3)))()
			// synchronized(L4) { synchronized(L3) { synchronized(L2) {} } }
			locked(l4, locked(l3, locked(l2)))()
		}
		join(t1, t2)
	}
}

// strBuf is java.lang.StringBuffer reduced to what Figure 1(a) needs: every method is
// synchronized, and yet append(sb) is not atomic.
type strBuf struct {
	mu rt.Mutex
	s  []byte
}

func (b *strBuf) length() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(*rt.Load(&b.s, "strBuf.s"))
}

// getChars copies the first n characters; like Java's, it fails if there are fewer (slicing
// alone would not, within the capacity).
func (b *strBuf) getChars(n int) []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := *rt.Load(&b.s, "strBuf.s")
	if n > len(s) {
		panic(fmt.Sprintf("StringIndexOutOfBoundsException: srcEnd %d > length %d", n, len(s)))
	}
	return append([]byte(nil), s[:n]...)
}

func (b *strBuf) chars() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), *rt.Load(&b.s, "strBuf.s")...)
}

func (b *strBuf) setLength(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.s = rt.Store(&b.s, (*rt.Load(&b.s, "strBuf.s"))[:n], "strBuf.s")
}

// appendBuf is StringBuffer.append(StringBuffer sb) of Figure 1(a): it reads sb's length in
// one locked call and copies that many characters in another, so a concurrent setLength(0)
// in between makes the copy fail. The fixed version copies in one call.
func (b *strBuf) appendBuf(sb *strBuf, split bool) {
	var cs []byte
	if split {
		n := sb.length()
		cs = sb.getChars(n)
	} else {
		cs = sb.chars()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.s = rt.Store(&b.s, append(*rt.Load(&b.s, "strBuf.s"), cs...), "strBuf.s")
}

func bogorAppend(bug bool) func() {
	return func() {
		b := &strBuf{s: []byte("ab")}
		sb := &strBuf{s: []byte("cd")}
		join(func() { b.appendBuf(sb, bug) }, func() { sb.setLength(0) })
	}
}
