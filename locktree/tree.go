package locktree

import (
	"fmt"
	"slices"
	"strings"
)

// node is a node of a lock tree under construction.
type node struct {
	lock     string
	read     bool
	pos      Pos
	parent   *node
	children []*node
	// index finds a child by lock and mode once n has more than indexFrom children: a test
	// that makes a thousand maps, each with its own locks, gave the root hundreds of
	// thousands, and every acquisition searched them one by one.
	index map[childKey]*node
}

type childKey struct {
	lock string
	read bool
}

// indexFrom is the number of children from which a node indexes them.
const indexFrom = 16

// child returns the child of n for lock in the given mode, adding it if n has none: in the
// paper's words, "the lock operation creates a new child of the current node if the new lock
// has not previously been taken" at this point of the tree.
func (n *node) child(lock string, read bool, pos Pos) *node {
	k := childKey{lock, read}
	if n.index != nil {
		if c := n.index[k]; c != nil {
			return c
		}
	} else {
		for _, c := range n.children {
			if c.lock == lock && c.read == read {
				return c
			}
		}
	}
	c := &node{lock: lock, read: read, pos: pos, parent: n}
	n.children = append(n.children, c)
	switch {
	case n.index != nil:
		n.index[k] = c
	case len(n.children) > indexFrom:
		n.index = make(map[childKey]*node, 2*len(n.children))
		for _, c := range n.children {
			n.index[childKey{c.lock, c.read}] = c
		}
	}
	return c
}

// path returns the locks from the root down to n.
func (n *node) path() []string {
	var p []string
	for ; n.parent != nil; n = n.parent {
		p = append(p, n.lock)
	}
	slices.Reverse(p)
	return p
}

func (n *node) export() Node {
	out := Node{Lock: n.lock, Read: n.read, Pos: n.pos, Children: make([]Node, len(n.children))}
	for i, c := range n.children {
		out.Children[i] = c.export()
	}
	return out
}

// hold is a lock that a goroutine holds.
type hold struct {
	lock string
	read bool
	n    int    // acquisitions not yet released: more than one after a reentry
	pos  Pos    // where it was acquired
	hb   *Stamp // when it was acquired
}

// goroutine is the lock state and lock tree of one goroutine.
type goroutine struct {
	id   string
	root *node
	held []hold // in acquisition order
	// path[i] is the tree node of held[i]. After an out-of-order release it is shorter than
	// held until current rebuilds it.
	path []*node
}

func (g *goroutine) find(lock string) int {
	return slices.IndexFunc(g.held, func(h hold) bool { return h.lock == lock })
}

// current returns the node whose path from the root is the held locks, first extending path
// to cover locks whose nodes an out-of-order release invalidated.
func (g *goroutine) current() *node {
	n := g.root
	if len(g.path) > 0 {
		n = g.path[len(g.path)-1]
	}
	for _, h := range g.held[len(g.path):] {
		n = n.child(h.lock, h.read, h.pos)
		g.path = append(g.path, n)
	}
	return n
}

// acquisition is a distinct way a goroutine acquired a lock: the same lock in the same mode,
// holding the same locks in the same modes.
type acquisition struct {
	g    string
	lock string
	read bool
	pos  Pos    // the first such acquisition
	held []hold // a copy of what the goroutine held
}

func (a *acquisition) holding(lock string) hold {
	return a.held[slices.IndexFunc(a.held, func(h hold) bool { return h.lock == lock })]
}

// edge is an edge of the lock-order graph under construction.
type edge struct {
	gs   []string // in order of first use
	pos  Pos
	acqs []*acquisition
}

// recorder replays events into lock trees and the lock-order graph.
type recorder struct {
	goroutines map[string]*goroutine
	// work is the analysis's so far (maxWork).
	work int
	// holders lists for each lock the goroutines holding it, in acquisition order; it finds the
	// owner when a goroutine releases a lock that another goroutine acquired.
	holders map[string][]string
	// writers lists for each lock the goroutines that ever write-locked it. Under Go's writer
	// preference any of them may block a read acquisition (see doc.go).
	writers      map[string]map[string]bool
	locks        map[string]bool
	edges        map[[2]string]*edge
	acquisitions map[string]*acquisition
	reentries    []Reentry
	seen         map[Reentry]bool
	nestings     map[nestKey]*nesting
}

// nestKey names the nestings of one goroutine that acquired inner while holding outer.
type nestKey struct{ g, outer, inner string }

// maxNestings bounds the occurrences kept of one nestKey. Past it the nesting is taken to
// overlap anything: ordered compares every pair of occurrences.
const maxNestings = 1024

// nesting lists the occurrences of one nestKey: for each, when the goroutine acquired outer
// (hold) and when it acquired inner (wait: where it would wait if inner were taken).
type nesting struct {
	hold, wait []*Stamp
	overflow   bool
}

// maxWork bounds an analysis, in locks held at an acquisition, summed: the key of an
// acquisition, its nestings and its edges cost the locks its goroutine holds, so a goroutine
// that locks every bucket of a map at once made the analysis, and the graph, quadratic.
const maxWork = 1 << 18

func newRecorder() *recorder {
	return &recorder{
		goroutines:   make(map[string]*goroutine),
		holders:      make(map[string][]string),
		writers:      make(map[string]map[string]bool),
		locks:        make(map[string]bool),
		edges:        make(map[[2]string]*edge),
		acquisitions: make(map[string]*acquisition),
		reentries:    []Reentry{},
		seen:         make(map[Reentry]bool),
		nestings:     make(map[nestKey]*nesting),
	}
}

func (r *recorder) record(i int, e Event) {
	switch e.Op {
	case Acquire, RAcquire:
		r.acquire(e.G, e.Lock, e.Op == RAcquire, e.Pos, e.HB)
	case Release, RRelease:
		r.release(e.G, e.Lock, e.Op == RRelease)
	default:
		panic(fmt.Sprintf("locktree: event %d (%s on %s at %s:%d): unknown op %v",
			i, e.G, e.Lock, e.Pos.File, e.Pos.Line, e.Op))
	}
}

func (r *recorder) acquire(gid, lock string, read bool, pos Pos, hb *Stamp) {
	g := r.goroutines[gid]
	if g == nil {
		g = &goroutine{id: gid, root: &node{}}
		r.goroutines[gid] = g
	}
	r.locks[lock] = true
	if !read {
		// A reentrant Lock counts too: it waits forever in Lock, which is what blocks readers.
		if r.writers[lock] == nil {
			r.writers[lock] = make(map[string]bool)
		}
		r.writers[lock][gid] = true
	}
	if i := g.find(lock); i >= 0 {
		// As in the paper, a lock already on the path adds no node; unlike a Java monitor, a Go
		// mutex is not reentrant, so the goroutine would deadlock with itself here.
		g.held[i].n++
		re := Reentry{G: gid, Lock: lock, Read: read && g.held[i].read, Pos: pos}
		if !r.seen[re] {
			r.seen[re] = true
			r.reentries = append(r.reentries, re)
		}
		return
	}
	r.work += len(g.held) + 1
	cur := g.current()
	if a := r.acquisition(gid, lock, read, pos, g.held); a != nil {
		for _, h := range g.held {
			r.addEdge(h.lock, lock, gid, pos, a)
		}
	}
	for _, h := range g.held {
		r.nest(nestKey{gid, h.lock, lock}, h.hb, hb)
	}
	g.held = append(g.held, hold{lock: lock, read: read, n: 1, pos: pos, hb: hb})
	g.path = append(g.path, cur.child(lock, read, pos))
	r.holders[lock] = append(r.holders[lock], gid)
}

// acquisition returns the acquisition of lock by g while holding held, or nil if g acquired
// lock that way before: it then adds nothing to the graph.
func (r *recorder) acquisition(g, lock string, read bool, pos Pos, held []hold) *acquisition {
	var k strings.Builder
	k.WriteString(g)
	key := func(lock string, read bool) {
		k.WriteByte(0)
		k.WriteString(lock)
		if read {
			k.WriteByte('r')
		}
	}
	for _, h := range held {
		key(h.lock, h.read)
	}
	key(lock, read)
	if r.acquisitions[k.String()] != nil {
		return nil
	}
	a := &acquisition{g: g, lock: lock, read: read, pos: pos, held: slices.Clone(held)}
	r.acquisitions[k.String()] = a
	return a
}

func (r *recorder) addEdge(from, to, g string, pos Pos, a *acquisition) {
	k := [2]string{from, to}
	e := r.edges[k]
	if e == nil {
		e = &edge{pos: pos}
		r.edges[k] = e
	}
	if !slices.Contains(e.gs, g) {
		e.gs = append(e.gs, g)
	}
	e.acqs = append(e.acqs, a)
}

// nest records an occurrence of a nesting.
func (r *recorder) nest(k nestKey, hold, wait *Stamp) {
	n := r.nestings[k]
	if n == nil {
		n = &nesting{}
		r.nestings[k] = n
	}
	switch {
	case n.overflow:
	case hold == nil || wait == nil || len(n.hold) == maxNestings:
		n.overflow, n.hold, n.wait = true, nil, nil
	default:
		n.hold = append(n.hold, hold)
		n.wait = append(n.wait, wait)
	}
}

// ordered reports whether no occurrence of nesting k1 can overlap one of k2: for every pair,
// one goroutine acquires its inner lock before (in happens-before without locks) the other
// acquires its outer lock. Two such nestings cannot be held at once, so they cannot deadlock
// with each other, whatever order their locks are in.
func (r *recorder) ordered(k1, k2 nestKey) bool {
	n1, n2 := r.nestings[k1], r.nestings[k2]
	if n1 == nil || n2 == nil || n1.overflow || n2.overflow {
		return false
	}
	for i := range n1.hold {
		for j := range n2.hold {
			if !n1.wait[i].Before(n2.hold[j]) && !n2.wait[j].Before(n1.hold[i]) {
				return false
			}
		}
	}
	return true
}

// release undoes one acquisition of lock. A Go mutex belongs to no goroutine, so if gid does
// not hold lock, the release is charged to the goroutine that most recently acquired lock in
// the released mode. A release that matches no acquisition is a misuse the runtime reports;
// it is ignored here.
func (r *recorder) release(gid, lock string, read bool) {
	g := r.goroutines[gid]
	i := -1
	if g != nil {
		i = g.find(lock)
	}
	if i < 0 {
		hs := r.holders[lock]
		for k := len(hs) - 1; k >= 0 && i < 0; k-- {
			g = r.goroutines[hs[k]]
			if j := g.find(lock); g.held[j].read == read {
				i = j
			}
		}
		if i < 0 {
			return
		}
	}
	if g.held[i].n--; g.held[i].n > 0 {
		return
	}
	g.held = slices.Delete(g.held, i, i+1)
	// Releasing the innermost lock backs up the tree by one node. Releasing an outer lock
	// invalidates the nodes below it: the locks acquired after it are still held, but no longer
	// under it, and current rebuilds their path from the root when it is next needed.
	g.path = g.path[:min(len(g.path), i)]
	hs := r.holders[lock]
	j := slices.Index(hs, g.id)
	r.holders[lock] = slices.Delete(hs, j, j+1)
}

// sortedTrees returns the goroutines that acquired a lock, in natural order of their ids.
func (r *recorder) sortedTrees() []*goroutine {
	gs := make([]*goroutine, 0, len(r.goroutines))
	for _, g := range r.goroutines {
		gs = append(gs, g)
	}
	slices.SortFunc(gs, func(a, b *goroutine) int { return compareIDs(a.id, b.id) })
	return gs
}

func exportTrees(gs []*goroutine) []Tree {
	trees := make([]Tree, len(gs))
	for i, g := range gs {
		trees[i] = Tree{G: g.id, Root: g.root.export()}
	}
	return trees
}
