package explorer

import (
	"strconv"
	"time"

	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
)

// The systematic strategies share one stateless depth-first search (VeriSoft's reset and
// replay, thesis §2.2): the search keeps the stack of decision nodes of the current run; each
// new run replays the stack's picks up to a node with an unexplored alternative, takes it, and
// lets the Guide extend the schedule. The strategies differ only in which alternatives of a
// node must be explored (its backtrack set), which they decide when the node is created and,
// for DPOR, after every run.

type node struct {
	kind    rt.DecisionKind
	alts    []rt.Alt
	current int
	pick    int
	back    []bool // alternatives that must be explored
	done    []bool // alternatives explored or dispatched
	sleep   []Sleeper
	id      int      // tree node id, for the schedule tree view
	names   []string // the alternatives' names, for the tree view
	why     []string // why an alternative was skipped ("sleep", "bound"), if it was
	// bound: preemptions used on the path to this node (preemption-bounded search).
	preempts int
	// wut is the node's wakeup tree (optimal DPOR): the sequences still to explore from it,
	// leftmost first; nil for the step taken alone. planned marks the nodes a planner orders.
	// planAt is the guide's position in its plan at this decision.
	wut     *wnode
	planned bool
	planAt  int
	// at is the position of the path to the node in the split into shards.
	at split
	// foot holds the footprint of each alternative's step once a run took it (stoller).
	foot []*footprint
	// persist marks the alternatives of the persistent set rt computed (stoller-ps), or is nil.
	persist []bool
}

// brancher decides a node's initial backtrack set and updates backtrack sets after a run.
type brancher interface {
	// initial marks n.back for a node just created from a run; prev is the run's node before n.
	initial(n *node, res *rt.Result, at int)
	// afterRun adds backtrack points found in the run.
	afterRun(t *tree, res *rt.Result)
	// sleeping tells whether the search uses sleep sets.
	sleeping() bool
}

// A planner is a brancher that orders a node's alternatives itself and has the guide follow a
// plan after the pick (optimal DPOR's wakeup trees).
type planner interface {
	// nextAlt returns the alternative of n to explore next and the plan to follow from it,
	// or -1 if n has none left. It is called only for the nodes marked planned.
	nextAlt(n *node) (int, []PlanStep)
	// resetPlan is called when the search takes an alternative without a plan.
	resetPlan()
}

type tree struct {
	base   int // decisions of the fixed prefix, not part of the stack
	shard  int
	shards int
	stack  []*node
	br     brancher
	stats  *record.Stats
	bound  int // preemption bound, -1 for none
	// depth, if positive, leaves the alternatives of nodes at this depth and deeper
	// unexplored (the portfolio's exhaustive member once a run was cut at the step bound).
	depth int
	// deadline, if not zero, is the end of the search's time: the race analysis of a long
	// run stops there, and sets late, which ends the search.
	deadline time.Time
	late     bool
	// tooLarge is set when a run's races could not be found (raceFinder.tooLarge): the
	// search cannot go on from it, and ends incomplete.
	tooLarge bool
	// work counts the race analysis's work since the portfolio last took it (raceFinder.total).
	work   int
	nextID int
	onNode func(n, parent *node, res *rt.Result)
	onPop  func(n *node, pruned []record.Pruned)
	// decisions is the number of decisions of the last run after the fixed prefix: the next
	// run's log is sized for about as many.
	decisions int

	// part and parts, with shard and shards, are the exploration's share of a split search,
	// if any (Options.Shard, Options.Part), and sh the levels of the split.
	part, parts int
	sh          []share
}

// absorbBase extends the stack with the run's decisions after the prefix and lets the
// brancher update backtrack sets. base is the number of decisions of the fixed prefix.
func (t *tree) absorbBase(gd *Guide, res *rt.Result, base int) {
	t.base = base
	prefix := len(gd.Prefix)
	t.decisions = prefix - base + len(gd.log)
	st, _ := t.br.(*stoller)
	if st != nil {
		st.observe(gd, res)
		if d := prefix - 1 - base; d >= 0 && d < len(t.stack) {
			t.stack[d].setFoot(st.steps[prefix-1], gd.prefixObjs)
		}
	}
	// The run's nodes and their flags are allocated at once: a long run makes many.
	nodes := make([]node, len(gd.log))
	nflags := 0
	for _, l := range gd.log {
		nflags += 2 * len(l.alts)
	}
	flags := make([]bool, nflags)
	for i, l := range gd.log {
		at := prefix + i
		n := &nodes[i]
		*n = node{kind: l.kind, alts: l.alts, current: l.current, pick: l.pick, sleep: l.sleep, planAt: l.planAt, persist: l.persist}
		k := len(l.alts)
		n.back, n.done, flags = flags[:k:k], flags[k:2*k:2*k], flags[2*k:]
		n.done[l.pick] = true
		n.at = splitStart
		if len(t.stack) > 0 {
			parent := t.stack[len(t.stack)-1]
			n.at = parent.at.add(len(parent.alts), parent.pick, t.sh)
			n.preempts = parent.preempts
			if parent.kind == rt.DecideGoroutine && parent.current >= 0 && parent.pick != parent.current {
				n.preempts++
			}
		}
		if n.kind != rt.DecideGoroutine || n.at.above(t.sh) {
			// Data choices are all explored; so is every alternative at and above a sharded
			// search's split node, since the shards cannot share backtrack sets there.
			for j := range n.back {
				n.back[j] = true
			}
		} else {
			t.br.initial(n, res, at)
		}
		n.back[l.pick] = true
		if st != nil {
			n.setFoot(st.steps[at], l.objs)
		}
		t.stats.Decisions++
		var parent *node
		if len(t.stack) > 0 {
			parent = t.stack[len(t.stack)-1]
		}
		n.id = t.nextID
		t.nextID++
		t.stack = append(t.stack, n)
		if t.onNode != nil {
			n.names = make([]string, len(n.alts))
			for j, a := range n.alts {
				if n.kind == rt.DecideGoroutine || n.kind == rt.DecideWake {
					n.names[j] = res.Name(a.G)
				} else {
					n.names[j] = strconv.Itoa(a.Case)
				}
			}
			t.onNode(n, parent, res)
		}
	}
	if res.Verdict.Kind == rt.VerdictStopped {
		// The budget ran out during the run, which ends the search: the backtrack points its
		// races would add are never explored, and finding them in a long run takes long.
		return
	}
	t.br.afterRun(t, res)
}

// next pops the stack to the deepest node with an alternative left and returns the guide for
// the run that explores it, or nil when the search is complete.
func (t *tree) next() *Guide {
	for len(t.stack) > 0 {
		d := len(t.stack) - 1
		n := t.stack[d]
		if pl, ok := t.br.(planner); ok {
			if n.planned {
				if i, plan := pl.nextAlt(n); i >= 0 {
					gd := t.guide(d, i)
					gd.Plan = plan
					return gd
				}
				t.pop(d)
				continue
			}
			pl.resetPlan()
		}
		for i := range n.alts {
			if !n.back[i] || n.done[i] {
				continue
			}
			if !n.at.owns(len(n.alts), i, t.sh) {
				n.done[i] = true
				continue
			}
			if n.kind == rt.DecideGoroutine && asleepIn(n.sleep, n.alts[i].G) {
				n.skip(i, "sleep")
				t.stats.PrunedSleep++
				continue
			}
			if t.depth > 0 && d >= t.depth {
				t.stats.PrunedDepth++
				n.skip(i, "depth")
				continue
			}
			if t.bound >= 0 && n.kind == rt.DecideGoroutine && n.current >= 0 && i != n.current && n.preempts >= t.bound {
				t.stats.PrunedBound++
				n.skip(i, "bound")
				continue
			}
			return t.guide(d, i)
		}
		t.pop(d)
	}
	return nil
}

// pop removes node d, the top of the stack, reporting the alternatives its search left out.
func (t *tree) pop(d int) {
	n := t.stack[d]
	var pruned []record.Pruned
	for i := range n.alts {
		if n.why != nil && n.why[i] != "" && n.names != nil {
			pruned = append(pruned, record.Pruned{G: n.names[i], Reason: n.why[i]})
		}
		if !n.done[i] {
			reason := "persistent"
			if n.kind == rt.DecideGoroutine && asleepIn(n.sleep, n.alts[i].G) {
				t.stats.PrunedSleep++
				reason = "sleep"
			} else {
				t.stats.PrunedPersistent++
			}
			if n.names != nil {
				pruned = append(pruned, record.Pruned{G: n.names[i], Reason: reason})
			}
		}
	}
	if t.onPop != nil && len(pruned) > 0 {
		t.onPop(n, pruned)
	}
	t.stack = t.stack[:d]
}

// guide returns the guide of the run that takes alternative i of node d, and marks it taken.
func (t *tree) guide(d, i int) *Guide {
	n := t.stack[d]
	gd := &Guide{Shard: t.shard, Shards: t.shards, Part: t.part, Parts: t.parts, sh: t.sh, SplitFrom: t.base, log: make([]logged, 0, max(0, t.decisions-d-1))}
	gd.Bound = t.bound
	gd.footprints, gd.persistent = stollerRuns(t.br)
	if gd.Bound >= 0 {
		used := n.preempts
		if n.kind == rt.DecideGoroutine && n.current >= 0 && i != n.current {
			used++
		}
		gd.Bound = t.bound - used
	}
	gd.Prefix = make([]int32, d+1)
	gd.Kinds = make([]rt.DecisionKind, d+1)
	for k, m := range t.stack[:d] {
		gd.Prefix[k] = int32(altValue(m.kind, m.alts[m.pick]))
		gd.Kinds[k] = m.kind
	}
	gd.Prefix[d] = int32(altValue(n.kind, n.alts[i]))
	gd.Kinds[d] = n.kind
	if t.br.sleeping() {
		gd.Sleep = append([]Sleeper(nil), n.sleep...)
		// Nor do they under the clock's step: a run ends when the test returns, with due
		// timers unfired, so a step the clock's firing commutes with may still be the one
		// after which the clock cannot run, and with it what the timers' callbacks would do.
		if n.kind == rt.DecideGoroutine && !n.at.above(t.sh) && n.alts[i].G != rt.ClockID {
			// Alternatives explored before this one sleep in its subtree (Godefroid's
			// sleep sets): they wake as soon as a dependent step runs. At and above a
			// sharded search's split node they do not, since another shard may own the
			// runs that would stand for those it prunes.
			for j, a := range n.alts {
				if n.done[j] && j != i {
					s := Sleeper{G: a.G, Op: a.Op, Objs: a.Objects(), Yields: a.Yields}
					if n.foot != nil {
						s.foot = n.foot[j]
					}
					gd.Sleep = append(gd.Sleep, s)
				}
			}
		}
	}
	n.done[i] = true
	n.pick = i
	return gd
}

// setFoot records the footprint of the step of n's pick; objs is the number of objects used
// before the decision.
func (n *node) setFoot(f *footprint, objs int32) {
	if f == nil || n.kind != rt.DecideGoroutine {
		return
	}
	if n.foot == nil {
		n.foot = make([]*footprint, len(n.alts))
	}
	f.nobjs = objs
	n.foot[n.pick] = f
}

func (n *node) skip(i int, why string) {
	n.done[i] = true
	if n.why == nil {
		n.why = make([]string, len(n.alts))
	}
	n.why[i] = why
}

func asleepIn(s []Sleeper, g rt.GID) bool {
	for _, x := range s {
		if x.G == g {
			return true
		}
	}
	return false
}

// naive explores every alternative of every node: the ground truth.
type naive struct{}

func (naive) initial(n *node, _ *rt.Result, _ int) {
	for i := range n.back {
		n.back[i] = true
	}
}
func (naive) afterRun(*tree, *rt.Result) {}
func (naive) sleeping() bool             { return false }

// bounded is naive search under a preemption bound (CHESS).
type bounded struct{ naive }

// exitBlock and its variants (ExitBlock-RW, -DD, -RWDD) live in exitblock.go.

// absorbFinder notes how the race analysis of a run ended: late or too large.
func (t *tree) absorbFinder(rf *raceFinder) {
	t.late = t.late || rf.late
	t.tooLarge = t.tooLarge || rf.tooLarge
	t.work += rf.total + rf.work
}
