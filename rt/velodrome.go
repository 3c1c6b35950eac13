package rt

import (
	"fmt"
	"strings"
)

// Atomicity by conflict-serializability: Velodrome (Flanagan, Freund and Yi, "Velodrome: a
// sound and complete dynamic atomicity checker for multithreaded programs", PLDI 2008). A run
// is serializable when its transactions (the executions of //heddle:atomic functions, and
// every operation outside them, a unary transaction) can be put in a serial order that keeps
// the order of every pair of conflicting operations; it is not exactly when the
// transactional happens-before graph, whose nodes are the transactions and whose edges are
// program order, synchronization and conflicting accesses, has a cycle. A
// cycle always goes through a transaction that is not unary: an edge only ever enters the
// current transaction of a goroutine, and a unary one has no successors yet when it does.
// So a cycle is a proof, on the run that shows it, that a region is not atomic.
//
// The graph is built as the run goes (§4): each goroutine's current transaction, each
// variable's last write and each goroutine's last read of it, and each synchronization
// object's last release by each goroutine give the edges of an operation, all into the
// current transaction of the goroutine that performs it. The synchronization edges are those
// of the lockset check's full order (access.go: the full clocks, locks included), consumed
// where those clocks acquire, release and join, so the two orders are the same by
// construction. A run builds no graph until its first region starts: the transactions before
// it are unary and closed, nothing can enter them any more, so they are on no cycle.

// txOff leaves the graph out, for BenchmarkTxGraph's measure of its cost.
var txOff bool

// A txGraph is one run's transactional happens-before graph.
type txGraph struct {
	nodes []txNode
	gs    []txThread
	// rel holds, by slot of the full clocks, each goroutine's last transaction that released
	// to it: a release merges, as the clocks' does, and a goroutine's later release stands for
	// its earlier ones, which program order puts before it.
	rel  [][]txLast
	vars []txVar // by variable of the lockset check
	// The search for a path, reused: the generation of each node's visit, and the edge by
	// which it was reached.
	seen  []uint32
	via   []txEdge
	gen   uint32
	stack []int32
	// cycle is the first cycle found: the edge that closed it, into a region, then the path
	// from that region back to the edge's source.
	cycle []txEdge
}

// A txNode is a transaction: a region (an index in run.regions) or, with region -1, unary
// operations of goroutine g. Consecutive operations of a goroutine outside regions share one
// node while no other goroutine's transaction orders them (Velodrome's merging of unary
// transactions, §4): nothing enters a unary node after its first operation, so the merged
// node has the paths of the chain it stands for.
type txNode struct {
	g      GID
	region int32
	out    []txEdge
}

// A txOp is an operation, as a cycle's report names it: a step (its event) or a plain access.
type txOp struct {
	ev    int32 // the step's event, or -1 for an access
	pos   string
	write bool
}

// A txEdge orders transaction from before to: src, an operation of from, before dst, one of
// to. A program order edge has no src.
type txEdge struct {
	from, to int32
	src, dst txOp
}

type txThread struct {
	// node is the goroutine's current transaction, the region while inside one; -1 before
	// its first operation.
	node     int32
	inRegion bool
	// fresh is the event for which node was made: a step's later edges enter the same node.
	fresh int32
}

type txLast struct {
	g    GID
	node int32
	op   txOp
}

type txVar struct {
	w     txLast // g is NoG before the first write
	reads []txLast
}

// reset empties t for a new run, keeping its storage.
//
//go:norace
func (t *txGraph) reset() {
	for i := range t.nodes {
		t.nodes[i].out = t.nodes[i].out[:0]
	}
	t.nodes = t.nodes[:0]
	t.gs = t.gs[:0]
	for i := range t.rel {
		t.rel[i] = t.rel[i][:0]
	}
	for i := range t.vars {
		t.vars[i].reads = t.vars[i].reads[:0]
	}
	t.vars = t.vars[:0]
	t.cycle = nil
}

//go:norace
func (t *txGraph) thread(g GID) *txThread {
	for int(g) >= len(t.gs) {
		t.gs = append(t.gs, txThread{node: -1, fresh: -1})
	}
	return &t.gs[g]
}

//go:norace
func (t *txGraph) newNode(g GID, region int32) int32 {
	n := int32(len(t.nodes))
	if len(t.nodes) < cap(t.nodes) {
		t.nodes = t.nodes[:n+1]
		t.nodes[n].g, t.nodes[n].region = g, region
	} else {
		t.nodes = append(t.nodes, txNode{g: g, region: region})
	}
	return n
}

// current returns the transaction of g's operation op (ev its event, -1 for an access):
// inside a region, the region; outside, g's unary node when nothing of another goroutine's
// orders op (ordered false), else a new unary node after it.
//
//go:norace
func (t *txGraph) current(g GID, ordered bool, op txOp) int32 {
	th := t.thread(g)
	if th.inRegion || th.node >= 0 && op.ev >= 0 && th.fresh == op.ev {
		return th.node
	}
	if !ordered && th.node >= 0 && t.nodes[th.node].region < 0 {
		th.fresh = -1
		return th.node
	}
	n := t.newNode(g, -1)
	if th.node >= 0 {
		t.edge(th.node, n, txOp{ev: -1}, op)
	}
	th.node, th.fresh = n, op.ev
	return n
}

// enter starts region reg of g: a new transaction after g's last.
//
//go:norace
func (t *txGraph) enter(g GID, reg int32) {
	th := t.thread(g)
	n := t.newNode(g, reg)
	if th.node >= 0 {
		t.edge(th.node, n, txOp{ev: -1}, txOp{ev: -1})
	}
	th.node, th.inRegion, th.fresh = n, true, -1
}

// exit ends g's region: its next operation starts a new transaction.
//
//go:norace
func (t *txGraph) exit(g GID) { t.thread(g).inRegion = false }

// edge adds from → to, and looks for a cycle when to is a region that already has
// successors: the only way the new edge can close one (§4).
//
//go:norace
func (t *txGraph) edge(from, to int32, src, dst txOp) {
	if from == to {
		return
	}
	n := &t.nodes[from]
	if k := len(n.out); k > 0 && n.out[k-1].to == to {
		return
	}
	n.out = append(n.out, txEdge{from: from, to: to, src: src, dst: dst})
	if t.cycle == nil && t.nodes[to].region >= 0 && len(t.nodes[to].out) > 0 {
		t.findCycle(to, from)
	}
}

// findCycle searches a path from → … → to, depth first; with the edge to → from just added,
// it is a cycle.
//
//go:norace
func (t *txGraph) findCycle(from, to int32) {
	t.gen++
	if t.gen == 0 {
		clear(t.seen)
		t.gen = 1
	}
	for len(t.seen) < len(t.nodes) {
		t.seen = append(t.seen, 0)
		t.via = append(t.via, txEdge{})
	}
	t.stack = append(t.stack[:0], from)
	t.seen[from] = t.gen
	for len(t.stack) > 0 {
		n := t.stack[len(t.stack)-1]
		t.stack = t.stack[:len(t.stack)-1]
		for _, e := range t.nodes[n].out {
			if t.seen[e.to] == t.gen {
				continue
			}
			t.seen[e.to], t.via[e.to] = t.gen, e
			if e.to == to {
				t.cycle = t.cycle[:0]
				for m := to; m != from; m = t.via[m].from {
					t.cycle = append(t.cycle, t.via[m])
				}
				// The closing edge, then the path from its head back to its tail.
				last := t.nodes[to].out[len(t.nodes[to].out)-1]
				for i, j := 0, len(t.cycle)-1; i < j; i, j = i+1, j-1 {
					t.cycle[i], t.cycle[j] = t.cycle[j], t.cycle[i]
				}
				t.cycle = append([]txEdge{last}, t.cycle...)
				return
			}
			t.stack = append(t.stack, e.to)
		}
	}
}

// acquire adds the edges of g's operation at event e that acquires slot: from the last
// transaction of each other goroutine that released to it.
//
//go:norace
func (t *txGraph) acquire(e *Event, slot ObjID) {
	if int(slot) >= len(t.rel) {
		return
	}
	op := txOp{ev: e.Step}
	ordered := false
	for _, l := range t.rel[slot] {
		if l.g != e.G {
			ordered = true
			break
		}
	}
	if !ordered {
		return
	}
	cur := t.current(e.G, true, op)
	for _, l := range t.rel[slot] {
		if l.g != e.G {
			t.edge(l.node, cur, l.op, op)
		}
	}
}

// release makes g's transaction of event e the last that released to slot.
//
//go:norace
func (t *txGraph) release(e *Event, slot ObjID) {
	op := txOp{ev: e.Step}
	cur := t.current(e.G, false, op)
	for int(slot) >= len(t.rel) {
		t.rel = append(t.rel, nil)
	}
	t.rel[slot] = setLast(t.rel[slot], txLast{g: e.G, node: cur, op: op})
}

//go:norace
func setLast(ls []txLast, l txLast) []txLast {
	for i := range ls {
		if ls[i].g == l.g {
			ls[i] = l
			return ls
		}
	}
	return append(ls, l)
}

// fork orders a go statement of parent, at its event ev, before everything child does.
//
//go:norace
func (t *txGraph) fork(parent, child GID, ev int32) {
	op := txOp{ev: ev}
	p := t.current(parent, false, op)
	n := t.newNode(child, -1)
	t.edge(p, n, op, txOp{ev: -1})
	t.thread(child).node = n
}

// rendezvous orders a completed channel operation both ways, as the clocks' join does: what
// w did before it parked comes before cur's step ev, and that step before w's completion,
// which starts a new transaction of w. A close orders only the second way.
//
//go:norace
func (t *txGraph) rendezvous(cur, w GID, ev int32, both bool) {
	op := txOp{ev: ev}
	c := t.current(cur, true, op)
	t.thread(max(cur, w))
	wt := &t.gs[w]
	if both && wt.node >= 0 {
		t.edge(wt.node, c, txOp{ev: -1}, op)
	}
	if wt.inRegion {
		// A wait inside a region has ended the run (atomicWait); its edge is the region's.
		t.edge(c, wt.node, op, txOp{ev: -1})
		return
	}
	n := t.newNode(w, -1)
	if wt.node >= 0 {
		t.edge(wt.node, n, txOp{ev: -1}, txOp{ev: -1})
	}
	t.edge(c, n, op, txOp{ev: -1})
	wt.node, wt.fresh = n, -1
}

// access adds the edges of g's read or write of variable v: from the last write, and for a
// write from the last reads, of other goroutines (§4: the read and write conflicts).
//
//go:norace
func (t *txGraph) access(g GID, v int32, write bool, pos string) {
	for int(v) >= len(t.vars) {
		if len(t.vars) < cap(t.vars) {
			t.vars = t.vars[:len(t.vars)+1]
			t.vars[len(t.vars)-1].w = txLast{g: NoG}
		} else {
			t.vars = append(t.vars, txVar{w: txLast{g: NoG}})
		}
	}
	x := &t.vars[v]
	op := txOp{ev: -1, pos: pos, write: write}
	ordered := x.w.g != NoG && x.w.g != g
	if write && !ordered {
		for _, l := range x.reads {
			if l.g != g {
				ordered = true
				break
			}
		}
	}
	cur := t.current(g, ordered, op)
	if x.w.g != NoG && x.w.g != g {
		t.edge(x.w.node, cur, x.w.op, op)
	}
	if write {
		for _, l := range x.reads {
			if l.g != g {
				t.edge(l.node, cur, l.op, op)
			}
		}
		x.reads = x.reads[:0]
		x.w = txLast{g: g, node: cur, op: op}
		return
	}
	x.reads = setLast(x.reads, txLast{g: g, node: cur, op: op})
}

// txStart builds the graph from g's region reg on, the run's first if no graph is being
// built: the run's synchronization and accesses are followed (the lockset check's clocks are
// kept), and it is not a serial search, whose regions are never preempted while they can go
// on.
//
//go:norace
func (r *run) txStart(g *goroutine, reg int32) {
	if r.tx == nil {
		if !accessesUsed.Load() || r.cfg.IgnoreAccesses || r.cfg.Serial || g.id < 0 || txOff {
			return
		}
		r.tx = &r.accessState().tx
		r.tx.reset()
		r.noteSolo()
	}
	r.tx.enter(g.id, reg)
}

// txEnd makes a run that passed with a cycle in its graph a bug of kind atomicity: the
// region the cycle closed on is definitely not atomic. A run that failed keeps its failure,
// which the serial search may still find no serial order gives (docs/atomicity.md).
//
//go:norace
func (r *run) txEnd() {
	if r.tx == nil || len(r.tx.cycle) == 0 || r.verdict.Kind != VerdictOK {
		return
	}
	t := r.tx
	// From the region the cycle closed on, round to it.
	cycle := append(t.cycle[1:len(t.cycle):len(t.cycle)], t.cycle[0])
	nd := &t.nodes[cycle[0].from]
	reg := &r.regions[nd.region]
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s is not atomic: %s's execution of it is on a cycle of the run's transactional happens-before graph (Velodrome), so no serial order of the transactions keeps the order of the run's conflicts:", reg.Func, r.gname(r.gs[nd.g]))
	for _, e := range cycle {
		fmt.Fprintf(&sb, "\n%s → %s: ", r.txNodeName(e.from), r.txNodeName(e.to))
		if e.src.ev < 0 && e.src.pos == "" {
			fmt.Fprintf(&sb, "program order, then %s", r.txOpName(e.dst))
		} else {
			fmt.Fprintf(&sb, "%s before %s", r.txOpName(e.src), r.txOpName(e.dst))
		}
	}
	r.verdict = Verdict{Kind: VerdictAtomicity, Message: sb.String(), Atomicity: &AtomicFunc{Func: reg.Func, Decl: reg.Decl}}
}

//go:norace
func (r *run) txNodeName(n int32) string {
	nd := &r.tx.nodes[n]
	if nd.region < 0 {
		return r.gname(r.gs[nd.g])
	}
	reg := &r.regions[nd.region]
	return r.gname(r.gs[nd.g]) + " in " + reg.Func
}

// txOpName names an operation: a step by its operation, object and, in detail mode, its
// position; an access by its kind and position.
//
//go:norace
func (r *run) txOpName(op txOp) string {
	if op.ev < 0 {
		if op.pos == "" {
			return "its next operation"
		}
		return rw(op.write) + " at " + shortPos(op.pos)
	}
	e := &r.events[op.ev]
	if file, line, _ := Position(e.PC); file != "" {
		return fmt.Sprintf("%s at %s:%d", e.Op, shortFile(file), line)
	}
	s := e.Op.String()
	if e.Obj >= 0 && int(e.Obj) < len(r.objs) {
		s += " of " + r.objName(e.Obj)
	}
	return fmt.Sprintf("%s (step %d)", s, e.Step)
}

//go:norace
func shortFile(file string) string {
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		return file[i+1:]
	}
	return file
}
