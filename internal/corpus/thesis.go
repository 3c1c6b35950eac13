package corpus

import (
	"fmt"

	"github.com/heddledbg/heddle"
	"github.com/heddledbg/heddle/rt"
)

// The test programs of chapter 4 of Bruening's thesis ("Systematic Testing of Multithreaded
// Java Programs", MIT 1999), with the same threads, locks and item counts. A synchronized block
// is a Lock/Unlock pair, wait/notify/notifyAll on a monitor are Wait/Signal/Broadcast of a Cond
// on the monitor's mutex. Unlike the Java main methods, which return after starting the
// threads, each body joins its goroutines (see join), as a Go test does.

const bruening = "Bruening 1999 (MIT MEng thesis) "

var thesis = []Program{
	{Name: "SplitSync", Source: bruening + "§4.2, Fig. 4.2", Body: splitSync(true), Want: rt.VerdictAssert, Twin: "SplitSyncFixed"},
	{Name: "SplitSyncFixed", Source: bruening + "§4.2, Fig. 4.2, one synchronized block", Body: splitSync(false), Twin: "SplitSync"},
	{Name: "NoEraser", Source: bruening + "§4.3, Fig. 4.4", Body: noEraser(true), Want: rt.VerdictAssert, Twin: "NoEraserFixed"},
	{Name: "NoEraserFixed", Source: bruening + "§4.3, Fig. 4.4, B always locks", Body: noEraser(false), Twin: "NoEraser"},
	{Name: "Deadlock", Source: bruening + "§4.4, Fig. 4.6", Body: deadlock(true), Want: rt.VerdictDeadlock, Twin: "DeadlockOrdered"},
	{Name: "DeadlockOrdered", Source: bruening + "§4.4, Fig. 4.6, both threads lock a then b", Body: deadlock(false), Twin: "Deadlock"},
	{Name: "Deadlock3", Source: bruening + "§4.5, Fig. 4.8", Body: deadlock3(true), Want: rt.VerdictDeadlock, Twin: "Deadlock3Ordered"},
	{Name: "Deadlock3Ordered", Source: bruening + "§4.5, Fig. 4.8, the third thread locks a then c", Body: deadlock3(false), Twin: "Deadlock3"},
	{Name: "DeadlockWait", Source: bruening + "§4.6, Fig. 4.10", Body: deadlockWait(true), Want: rt.VerdictDeadlock, Twin: "DeadlockWaitFixed"},
	{Name: "DeadlockWaitFixed", Source: bruening + "§4.6, Fig. 4.10, wait for a condition without holding a", Body: deadlockWait(false), Twin: "DeadlockWait"},
	{Name: "BufferIf", Source: bruening + "§4.7, Figs. 4.12 and 4.13", Body: bufferIf(true), Want: rt.VerdictAssert, Twin: "BufferIfFixed"},
	{Name: "BufferIfFixed", Source: bruening + "§4.7, Figs. 4.12 and 4.13, for instead of if", Body: bufferIf(false), Twin: "BufferIf"},
	{Name: "BufferNotify", Source: bruening + "§4.8, Figs. 4.15 and 4.16", Body: bufferNotify(true), Want: rt.VerdictDeadlock, Twin: "BufferNotifyFixed"},
	{Name: "BufferNotifyFixed", Source: bruening + "§4.8, Figs. 4.15 and 4.16, notifyAll instead of notify", Body: bufferNotify(false), Twin: "BufferNotify"},
}

// Performance is the program of the thesis's Figure 4.1: k goroutines each lock and unlock n
// mutexes in turn, with no data shared between them. Like the Java program, the root does not
// wait for its goroutines. Its numbers of schedules are in Tables 4.1 and 4.2. Before each
// Lock a goroutine declares the mutexes it has left (rt.Declare), for Algorithm 2-MLD.
func Performance(k, n int) Program {
	return Program{
		Name:   fmt.Sprintf("Performance(%d,%d)", k, n),
		Source: bruening + "§4.1, Fig. 4.1",
		Body: func() {
			locks := make([]rt.Mutex, n)
			for range k {
				rt.Go(func() {
					for i := range locks {
						rt.Declare(mutexes(locks[i:]))
						locks[i].Lock()
						locks[i].Unlock()
					}
				})
			}
		},
	}
}

func mutexes(ms []rt.Mutex) rt.Bound {
	var b rt.Bound
	for i := range ms {
		b = b.Sync(&ms[i])
	}
	return b
}

// splitSync: two goroutines increment x, the read and the write in two critical sections
// (split) or in one. Between the two sections the other goroutine can increment x, and the
// increment is lost.
func splitSync(split bool) func() {
	return func() {
		var mu rt.Mutex
		x := 0
		inc := func() {
			mu.Lock() // A
			y := *rt.Load(&x, "SplitSync.x")
			if split {
				mu.Unlock()
				mu.Lock() // B
			}
			heddle.Assert(*rt.Load(&x, "SplitSync.x") == y, "SplitSync.run: shared var was modified!")
			x = rt.Store(&x, y+1, "SplitSync.x")
			mu.Unlock()
		}
		join(inc, inc)
	}
}

// noEraser: A reads x under the lock, then increments it under the lock; B does the same, except
// that it increments without the lock if it read 0. The thesis's tester found no assertion
// here, only Eraser's lock-discipline violation. heddle schedules only synchronization
// operations, so the accesses to x are the atomic loads and stores that a data race detector
// would see as separate accesses; an unprotected increment that interleaves with A's then
// loses A's update, which the final assertion catches.
func noEraser(bug bool) func() {
	return func() {
		var mu rt.Mutex
		var x int64
		inc := func() {
			rt.StoreInt64(&x, rt.LoadInt64(&x)+1)
		}
		run := func(name string) func() {
			return func() {
				mu.Lock()
				y := rt.LoadInt64(&x)
				mu.Unlock()
				if bug && y == 0 && name == "B" {
					inc()
					return
				}
				mu.Lock()
				inc()
				mu.Unlock()
			}
		}
		join(run("A"), run("B"))
		heddle.Assert(rt.LoadInt64(&x) == 2, "NoEraser: an increment was lost: x = %d", rt.LoadInt64(&x))
	}
}

// deadlock: First locks a then b, Second b then a (or a then b in the fixed version).
func deadlock(bug bool) func() {
	return func() {
		var a, b rt.Mutex
		second := func() {
			b.Lock()
			a.Lock()
			a.Unlock()
			b.Unlock()
		}
		if !bug {
			second = func() {
				a.Lock()
				b.Lock()
				b.Unlock()
				a.Unlock()
			}
		}
		join(func() {
			a.Lock()
			b.Lock()
			b.Unlock()
			a.Unlock()
		}, second)
	}
}

// deadlock3: three goroutines lock a→b, b→c, c→a: a cycle through all three. The fixed
// version's third goroutine locks a→c, consistent with the order a < b < c.
func deadlock3(bug bool) func() {
	return func() {
		var a, b, c rt.Mutex
		nested := func(outer, inner *rt.Mutex) func() {
			return func() {
				outer.Lock()
				inner.Lock()
				inner.Unlock()
				outer.Unlock()
			}
		}
		third := nested(&c, &a)
		if !bug {
			third = nested(&a, &c)
		}
		join(nested(&a, &b), nested(&b, &c), third)
	}
}

// deadlockWait: First holds a and b and waits on b's condition, which releases only b; Second
// needs a before it can notify. If First goes first, Second blocks on a; if Second goes
// first, its notification is lost and First waits forever. The fixed First releases a before
// waiting and waits for a condition, not for a notification.
func deadlockWait(bug bool) func() {
	return func() {
		var a, b rt.Mutex
		cond := rt.NewCond(&b)
		notified := false
		first := func() {
			a.Lock()
			b.Lock()
			cond.Wait()
			b.Unlock()
			a.Unlock()
		}
		if !bug {
			first = func() {
				a.Lock()
				a.Unlock()
				b.Lock()
				for !*rt.Load(&notified, "DeadlockWait.notified") {
					cond.Wait()
				}
				b.Unlock()
			}
		}
		join(first, func() {
			a.Lock()
			a.Unlock()
			b.Lock()
			notified = rt.Store(&notified, true, "DeadlockWait.notified")
			cond.Signal()
			b.Unlock()
		})
	}
}

// buffer is the bounded buffer of Figures 4.12 and 4.15: capacity 1 (two slots, one kept free
// to tell full from empty), a monitor with one condition for both "not full" and "not empty".
type buffer struct {
	mu          rt.Mutex
	cond        *rt.Cond
	first, last int
	els         [2]string
	// ifFull makes enq test for a full buffer with if instead of for (Fig. 4.12); notifyOne
	// makes enq and deq notify one waiter instead of all (Fig. 4.15).
	ifFull, notifyOne bool
}

func newBuffer(ifFull, notifyOne bool) *buffer {
	b := &buffer{ifFull: ifFull, notifyOne: notifyOne}
	b.cond = rt.NewCond(&b.mu)
	return b
}

func (b *buffer) full() bool {
	return (*rt.Load(&b.last, "Buffer.last")+1)%len(b.els) == *rt.Load(&b.first, "Buffer.first")
}

func (b *buffer) notify() {
	if b.notifyOne {
		b.cond.Signal()
	} else {
		b.cond.Broadcast()
	}
}

func (b *buffer) enq(x string) {
	b.mu.Lock()
	if b.ifFull {
		if b.full() {
			b.cond.Wait()
		}
	} else {
		for b.full() {
			b.cond.Wait()
		}
	}
	heddle.Assert(!b.full(), "Buffer.enq: buffer overflow!")
	last := *rt.Load(&b.last, "Buffer.last")
	b.els[last] = rt.Store(&b.els[last], x, "Buffer.els")
	b.last = rt.Store(&b.last, (last+1)%len(b.els), "Buffer.last")
	b.notify()
	b.mu.Unlock()
}

func (b *buffer) deq() string {
	b.mu.Lock()
	for *rt.Load(&b.first, "Buffer.first") == *rt.Load(&b.last, "Buffer.last") {
		b.cond.Wait()
	}
	first := *rt.Load(&b.first, "Buffer.first")
	v := *rt.Load(&b.els[first], "Buffer.els")
	b.first = rt.Store(&b.first, (first+1)%len(b.els), "Buffer.first")
	b.notify()
	b.mu.Unlock()
	return v
}

// itemsProduced is ITEMS_PRODUCED of Figures 4.13 and 4.16.
const itemsProduced = 2

func producer(b *buffer, name string) func() {
	return func() {
		for range itemsProduced {
			b.enq(name)
		}
	}
}

func consumer(b *buffer) func() {
	return func() {
		for range 2 * itemsProduced {
			b.deq()
		}
	}
}

// bufferIf: producers P1 and P2 and a consumer (started in the order P1, consumer, P2, as in
// Fig. 4.13) share a buffer whose enq waits with if: two producers woken by one notifyAll
// both enqueue, and the second overflows the buffer.
func bufferIf(bug bool) func() {
	return func() {
		b := newBuffer(bug, false)
		join(producer(b, "P1"), consumer(b), producer(b, "P2"))
	}
}

// bufferNotify: the same with while loops but notify instead of notifyAll (started in the
// order P1, P2, consumer, as in Fig. 4.16): a producer's notify can wake the other producer
// instead of the consumer, and then both producers and the consumer wait forever.
func bufferNotify(bug bool) func() {
	return func() {
		b := newBuffer(false, bug)
		join(producer(b, "P1"), producer(b, "P2"), consumer(b))
	}
}
