package explorer

import (
	"slices"

	"github.com/heddledbg/heddle/rt"
)

// The ExitBlock family (Bruening, "Systematic Testing of Multithreaded Java Programs", ch. 2),
// mapped onto the stateless depth-first search of tree.go. See docs/exitblock.md.
//
//   - exitblock    ExitBlock (§2.3, Fig. 2.7/2.9): switch goroutines only at the end of an
//                  atomic block.
//   - exitblock-rw ExitBlock-RW (§2.4, Fig. 2.12): additionally delay the goroutines whose
//                  block was already explored at a node until a later block's read/write set
//                  intersects theirs.
//   - exitblock-dd ExitBlock-DD (§2.5): ExitBlock plus reverse lock chain analysis
//                  (lockchain.go) and the condition-deadlock check at the end of every path.
//   - exitblock-rwdd ExitBlock-RWDD (§2.5.2): ExitBlock-RW plus the same analyses.
//
// The thesis's checkpoint stack becomes the tree's stack of decision nodes: a node at a block
// boundary has every enabled goroutine in its backtrack set, which is exactly the set of
// branches ExitBlock pushes from that checkpoint (Fig. 2.7 pushes "old_enabled minus
// curThread" at each lock exit; the tree enumerates the same alternatives one after another).

// exitBlock branches only where the running goroutine ended an atomic block: after a release
// (lock exit, channel operation, goroutine exit) or when it cannot continue (thesis §2.3,
// ExitBlock). Elsewhere the running goroutine continues.
//
// Two differences from Fig. 2.7 follow from rt. First, rt folds lock releases into the step
// before them, so a block ends at the step that contains the release (rt.OpKind.Releases).
// Second, a goroutine that finds a lock held is not rolled back to its block's start (the
// thesis "changes execution state back to RetPt"): rt lets it block there, and the decision
// that follows, where it is not enabled (n.current < 0), branches on every enabled goroutine.
// That explores a superset of the thesis's schedules.
type exitBlock struct{}

func (exitBlock) initial(n *node, res *rt.Result, at int) { exitBlockInitial(n, res, at, false) }
func (exitBlock) afterRun(*tree, *rt.Result)              {}
func (exitBlock) sleeping() bool                          { return false }

// With starts set, starting a goroutine ends a block too, as a thread start does in the
// thesis (rt.Config.ThreadBlocks).
func exitBlockInitial(n *node, res *rt.Result, at int, starts bool) {
	if n.current < 0 || endedBlock(res, at, n.alts[n.current].G, starts) {
		for i := range n.back {
			n.back[i] = true
		}
		return
	}
	n.back[n.current] = true
}

// endedBlock reports whether goroutine g's last step before decision at ended an atomic block.
func endedBlock(res *rt.Result, at int, g rt.GID, starts bool) bool {
	end := int(res.Decisions[at].Step)
	for j := end - 1; j >= 0; j-- {
		e := &res.Events[j]
		if e.G != g {
			continue
		}
		if e.Op.Releases() || starts && e.Op == rt.OpGo {
			return true
		}
		if e.Start {
			return false
		}
	}
	return true
}

// exitBlockDD is ExitBlock-DD (§2.5): ExitBlock's schedules, plus reverse lock chain analysis
// on every run (§2.5.1) to predict lock-cycle deadlocks that ExitBlock does not execute.
// Condition deadlocks (§2.5.2: "whenever it runs out of enabled threads to run", some threads
// waiting or blocked) are what rt reports at the end of every run as a deadlock (or, once the
// root goroutine has returned, a leak), so ExitBlock-DD needs nothing more for them: every path
// of ExitBlock ends with no enabled goroutine.
type exitBlockDD struct{ exitBlock }

func (exitBlockDD) predict(res *rt.Result) []prediction { return lockCycles(res) }

// exitBlockRW is ExitBlock-RW (§2.4, Fig. 2.12), and with dd set ExitBlock-RWDD (§2.5).
//
// The thesis keeps a set of delayed threads, each with the reads and writes of the block it
// performed just before the branch that delays it was created, and re-enables a delayed thread
// when the running thread's block intersects them. In the tree this is a sleep set at block
// granularity: when the search explores alternative j of node n, every alternative i explored
// before it at n sleeps in j's subtree (Fig. 2.12 pushes "delayed plus (curThread, reads,
// writes)"), with the read/write set of the block i performed from n, and it wakes when a step
// touches that set. The Guide keeps the sleep set during the run: it never picks a delayed
// goroutine, and abandons the run when only delayed goroutines are enabled, which is the
// thesis's path that ends with "at the end at least one delayed thread that was not
// re-enabled" (proof of Theorem 4). Such runs end with verdict pruned and report nothing.
//
// Adaptation: rt does not instrument memory, so a block's read/write set is the set of
// synchronization objects its steps touch: the mutexes it locks and unlocks (by the locking
// discipline of §2.1.1, every shared variable the block accesses is protected by a mutex it
// holds, so the mutex stands for the data), and the channels, atomics, conds, wait groups and
// other objects it operates on. A block is a writer of its set unless all its steps are reads
// (rt.OpKind.ReadOnly, atomic loads and len), so the intersection test of §2.4
// (w1∩w2 ∪ r1∩w2 ∪ w1∩r2 ≠ ∅) becomes rt.Dependent on the block's objects. Counting a lock
// enter as a write of the lock is precisely the enhancement of §2.6 ("have ExitBlock-RW
// consider a lock enter to be a write to the lock object"), which the thesis proposes to stop
// RW from pruning away the lock-chain analyses of Fig. 2.17.
//
// With thesisData set (tests only) the read/write set keeps only the objects that stand for
// data in a Java program (atomics, channels, maps, timers) and drops mutexes, RW mutexes,
// conds, wait groups and once: it reproduces the thesis's own model, where lock enters and
// wait/notify are not reads or writes, and with it the deadlocks that RWDD misses (Fig. 2.17,
// Fig. 2.20).
type exitBlockRW struct {
	dd         bool
	thesisData bool
	// recorded maps a node to the alternatives whose block has been recorded into n.alts.
	recorded map[*node][]bool
}

func newExitBlockRW(dd bool) *exitBlockRW {
	return &exitBlockRW{dd: dd, recorded: map[*node][]bool{}}
}

func (b *exitBlockRW) initial(n *node, res *rt.Result, at int) {
	exitBlockInitial(n, res, at, b.thesisData)
}
func (b *exitBlockRW) sleeping() bool { return true }

func (b *exitBlockRW) predict(res *rt.Result) []prediction {
	if !b.dd {
		return nil
	}
	// Condition deadlocks: a path that ends with every goroutine blocked is reported by rt.
	// A path that ends with delayed goroutines is abandoned by the Guide (verdict pruned) and,
	// as §2.5.2 requires ("we must not report condition deadlocks when there are delayed
	// threads", Fig. 2.21), reports nothing.
	return lockCycles(res)
}

// afterRun records, for every node of the run, the read/write set of the block that its
// pick performed from it: that is the set the pick sleeps with in its later siblings' subtrees
// (tree.next takes the sleepers of a node from n.alts). It also counts delayed alternatives.
func (b *exitBlockRW) afterRun(t *tree, res *rt.Result) {
	if b.recorded == nil {
		b.recorded = map[*node][]bool{}
	}
	startOf := map[int32]int{} // decision index -> event index of the step it picked
	for j := range res.Events {
		if e := &res.Events[j]; e.Start && e.Decision >= 0 {
			startOf[e.Decision] = j
		}
	}
	live := make(map[*node]bool, len(t.stack))
	for k, n := range t.stack {
		live[n] = true
		if n.kind != rt.DecideGoroutine {
			continue
		}
		rec := b.recorded[n]
		if rec == nil {
			rec = make([]bool, len(n.alts))
			b.recorded[n] = rec
			// A new node: its alternatives asleep on arrival are the delayed goroutines.
			// They keep the read/write set they sleep with, so that tree.next, which adds
			// every done alternative to its later siblings' sleep sets, does not narrow it.
			for i := range n.alts {
				if objs, op, ok := sleeperOf(n.sleep, n.alts[i].G); ok {
					n.alts[i].Objs, n.alts[i].Op = objs, op
					rec[i] = true
					t.stats.PrunedDelayed++
				}
			}
		}
		if rec[n.pick] {
			continue
		}
		d := int32(t.base + k)
		s, ok := startOf[d]
		if !ok {
			continue
		}
		objs, write := b.block(res, s, n.alts[n.pick].G)
		n.alts[n.pick].Objs = objs
		n.alts[n.pick].Op = rt.OpAtomicLoad
		if write {
			n.alts[n.pick].Op = rt.OpAtomicStore
		}
		rec[n.pick] = true
	}
	for n := range b.recorded {
		if !live[n] {
			delete(b.recorded, n)
		}
	}
}

// sleeperOf merges the sleep-set entries of goroutine g.
func sleeperOf(sleep []Sleeper, g rt.GID) ([]rt.ObjID, rt.OpKind, bool) {
	var objs []rt.ObjID
	op, found := rt.OpAtomicLoad, false
	for _, s := range sleep {
		if s.G != g {
			continue
		}
		found = true
		if !s.Op.ReadOnly() {
			op = rt.OpAtomicStore
		}
		for _, o := range s.Objs {
			if !slices.Contains(objs, o) {
				objs = append(objs, o)
			}
		}
	}
	if objs == nil {
		objs = []rt.ObjID{} // non-nil: the alternative's pending-op object is not its set
	}
	return objs, op, found
}

// block returns the read/write set of the atomic block goroutine g performs from event s (the
// first event of the step a decision picked): the objects of g's events up to the end of the
// step that contains a release, or up to the point where g stops running (it blocked; then the
// object it blocks on is included, so that it wakes when that object is touched, as a thread in
// the thesis's lock block set is re-enabled by the lock exit), or the end of the run. write
// reports whether any of these steps writes (is not rt.OpKind.ReadOnly).
func (b *exitBlockRW) block(res *rt.Result, s int, g rt.GID) (objs []rt.ObjID, write bool) {
	objs = []rt.ObjID{}
	add := func(os []rt.ObjID) {
		for _, o := range os {
			if b.thesisData && !isDataObj(res, o) {
				continue
			}
			if !slices.Contains(objs, o) {
				objs = append(objs, o)
			}
		}
	}
	evs := res.Events
	ended := false
	j := s
	for ; j < len(evs); j++ {
		e := &evs[j]
		if e.G != g {
			if e.Start {
				break // another goroutine was scheduled: g's block is over or g blocked
			}
			continue
		}
		if j > s && e.Start && ended {
			break
		}
		add(eventObjs(e))
		// An operation that completes a parked select also takes its goroutine off the
		// select's other channels.
		for _, p := range e.Partners {
			add(p.Objs)
		}
		write = write || !e.Op.ReadOnly()
		if e.Op.Releases() {
			ended = true
		}
	}
	if !ended {
		// g stopped inside its block: it waits for the operation it is stopped before.
		for k := j; k < len(evs); k++ {
			if evs[k].G == g && evs[k].Start {
				add(eventObjs(&evs[k]))
				write = write || !evs[k].Op.ReadOnly()
				return objs, write
			}
		}
		for _, p := range res.Pending {
			if p.ID == g {
				os := p.Objs
				if os == nil && p.Obj != rt.NoObj {
					os = []rt.ObjID{p.Obj}
				}
				add(os)
				write = write || !p.Op.ReadOnly()
			}
		}
	}
	return objs, write
}

// isDataObj tells whether object o stands for shared data in the thesis's model: atomics,
// channels, maps and timers are data; mutexes, conds, wait groups and once are the Java
// monitor operations that the thesis does not count as reads or writes.
func isDataObj(res *rt.Result, o rt.ObjID) bool {
	if o < 0 || int(o) >= len(res.Objects) {
		return true // the clock
	}
	switch res.Objects[o].Kind {
	case rt.ObjMutex, rt.ObjRWMutex, rt.ObjCond, rt.ObjWaitGroup, rt.ObjOnce:
		return false
	}
	return true
}
