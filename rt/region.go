package rt

import (
	"fmt"
	"slices"
)

// Atomic regions: the executions of the functions annotated //heddle:atomic
// (docs/atomicity.md). The instrumenter brackets every execution of such a function with
// AtomicEnter and a deferred AtomicExit, so that a panic or any return path leaves it. rt
// records, per goroutine, where each outermost execution starts and ends in the run's steps
// and the plain memory accesses made in it; the explorer classifies these transitions with
// Bogor's checkers (Hatcliff, Robby and Dwyer, "Verifying atomicity specifications for
// concurrent object-oriented software using model-checking", §3). What makes a region
// definitely not atomic is decided here, where the run can end on it: a blocking wait inside
// the region (isWait, Figs. 4 and 5, lines 44-45 and 65-66), a deadlock with a goroutine inside
// it (checkAtomicDeadlock, lines 52-59) or a livelock (checkAtomicCycle, lines 36-38).

// A Region is one execution of a //heddle:atomic function by one goroutine. Recursion and
// calls of other annotated functions inside it belong to the outermost execution.
type Region struct {
	G    GID
	Func string // the function as Go source names it: "Append", "(*Buffer).Append"
	Decl string // file:line of its declaration
	// Enter and Exit delimit the region in the run's events: G's events at indices in
	// [Enter, Exit) are its steps. Exit is -1 if the run ended inside the region.
	Enter, Exit int32
	// Accesses are the plain memory accesses G made in the region, in order.
	Accesses []RegionAccess
}

// A RegionAccess is a read or write of shared memory inside a region.
type RegionAccess struct {
	// At is the number of events recorded before the access: it follows G's step At-1.
	At    int32
	Write bool
	Pos   string
	// Var identifies the variable within the run.
	Var int32
	// Racy says the variable broke the lockset discipline in this run: another goroutine
	// wrote or read it, one of them writing, with no common lock and no hand-off ordering
	// them (docs/races.md). An access to a variable that is not racy cannot race: it is
	// goroutine-local, read-only, handed over, or protected by a lock.
	Racy bool
}

// AtomicFunc names the annotated function of an atomicity verdict.
type AtomicFunc struct {
	Func string
	Decl string // file:line of its declaration
	// Failure is the kind of the run's failure when that failure is what makes the function
	// not atomic: no serial order of the executions of annotated functions gives it.
	Failure VerdictKind `json:",omitempty"`
}

// VerdictAtomicity marks an execution of a //heddle:atomic function that is definitely not
// atomic: it waited for another goroutine inside the function, or deadlocked or livelocked
// there.
const VerdictAtomicity VerdictKind = "atomicity"

// AtomicEnter starts an execution of the //heddle:atomic function fn declared at decl
// (file:line). Only the outermost execution of a goroutine is a region.
//
//go:norace
func AtomicEnter(fn, decl string) {
	r, g := current()
	if r == nil || g == nil || r.ended {
		return
	}
	g.atomicDepth++
	r.noteSolo()
	if g.atomicDepth > 1 {
		return
	}
	g.region = int32(len(r.regions))
	if len(r.regions) < cap(r.regions) {
		r.regions = r.regions[:len(r.regions)+1]
		reg := &r.regions[g.region]
		*reg = Region{Accesses: reg.Accesses[:0]}
	} else {
		r.regions = append(r.regions, Region{})
	}
	reg := &r.regions[g.region]
	reg.G, reg.Func, reg.Decl, reg.Enter, reg.Exit = g.id, fn, decl, int32(len(r.events)), -1
	r.txStart(g, g.region)
}

// AtomicExit ends the execution that the matching AtomicEnter started.
//
//go:norace
func AtomicExit() {
	r, g := current()
	if r == nil || g == nil || g.atomicDepth == 0 {
		return
	}
	g.atomicDepth--
	r.noteSolo()
	if g.atomicDepth == 0 && !r.ended {
		r.regions[g.region].Exit = int32(len(r.events))
		if r.tx != nil {
			r.tx.exit(g.id)
		}
	}
}

// regionAccess adds an access of g, to variable v of the lockset check, to g's region.
//
//go:norace
func (r *run) regionAccess(g *goroutine, v int32, write bool, pos string) {
	if g.atomicDepth == 0 {
		return
	}
	reg := &r.regions[g.region]
	reg.Accesses = append(reg.Accesses, RegionAccess{At: int32(len(r.events)), Write: write, Pos: pos, Var: v})
}

// atomicWait ends the run with an atomicity verdict if g, about to wait for another goroutine
// (or the clock) with what, is inside a region: the region cannot run as one step, since
// others must run in its middle for it to go on (Bogor's isWait). The goroutine does not
// return.
//
//go:norace
func (r *run) atomicWait(g *goroutine, what string) {
	if g.atomicDepth == 0 || r.ended {
		return
	}
	reg := &r.regions[g.region]
	r.verdict = Verdict{Kind: VerdictAtomicity, Atomicity: &AtomicFunc{Func: reg.Func, Decl: reg.Decl},
		Message:    fmt.Sprintf("%s is not atomic: %s waits inside it (%s), so other goroutines run in its middle", reg.Func, r.gname(g), what),
		Goroutines: []GoroutineState{r.goroutineState(g)}}
	r.finish()
	r.block(g)
}

// atomicEnd turns a deadlock, leak or livelock verdict into an atomicity verdict when one of
// the goroutines it names is inside a region: the region can never be left, so it is not
// atomic whichever order its steps take (Lipton's R1; Bogor's checkAtomicDeadlock and
// checkAtomicCycle).
//
//go:norace
func (r *run) atomicEnd() {
	var how string
	switch r.verdict.Kind {
	case VerdictDeadlock:
		how = "deadlocked"
	case VerdictLeak:
		how = "blocked forever"
	case VerdictLivelock:
		how = "livelocked"
	default:
		return
	}
	for _, gs := range r.verdict.Goroutines {
		g := r.gs[gs.ID]
		if g.atomicDepth == 0 {
			continue
		}
		reg := &r.regions[g.region]
		r.verdict.Kind = VerdictAtomicity
		r.verdict.Atomicity = &AtomicFunc{Func: reg.Func, Decl: reg.Decl}
		r.verdict.Message = fmt.Sprintf("%s is not atomic: %s %s inside it (%s)", reg.Func, r.gname(g), how, r.verdict.Message)
		// The goroutine inside the region first.
		i := slices.IndexFunc(r.verdict.Goroutines, func(s GoroutineState) bool { return s.ID == g.id })
		r.verdict.Goroutines[0], r.verdict.Goroutines[i] = r.verdict.Goroutines[i], r.verdict.Goroutines[0]
		return
	}
}

// regionsResult returns the run's regions, with the racy flags of their accesses.
//
//go:norace
func (r *run) regionsResult() []Region {
	if r.acc != nil {
		for i := range r.regions {
			for j := range r.regions[i].Accesses {
				a := &r.regions[i].Accesses[j]
				a.Racy = int(a.Var) < len(r.acc.shadows) && r.acc.shadows[a.Var].racy
			}
		}
	}
	return r.regions
}

//go:norace
func cloneRegions(rs []Region) []Region {
	if len(rs) == 0 {
		return nil
	}
	out := slices.Clone(rs)
	for i := range out {
		out[i].Accesses = slices.Clone(out[i].Accesses)
	}
	return out
}

// waitName describes a wait: the operation, its object and how it waits.
//
//go:norace
func (r *run) waitName(op OpKind, obj ObjID, how string) string {
	if obj < 0 {
		return op.String() + " " + how
	}
	return op.String() + " on " + r.objName(obj) + " " + how
}
