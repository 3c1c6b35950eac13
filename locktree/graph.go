package locktree

import (
	"maps"
	"slices"
)

// maxCycles bounds the number of cycles longer than two that the graph lists. Elementary
// cycles can be exponentially many; 2-cycles, which are at most one per edge, are all listed.
const maxCycles = 1000

// searchBudget bounds the assignments of acquisitions to the edges of one cycle that deadlock
// tries. A cycle it gives up on is not predicted.
const searchBudget = 1 << 14

// graph builds the lock-order graph, its cycles, and the cycles that can deadlock.
func (r *recorder) graph() (Graph, []Deadlock) {
	names := slices.AppendSeq(make([]string, 0, len(r.locks)), maps.Keys(r.locks))
	sortIDs(names)
	id := make(map[string]int, len(names))
	for i, n := range names {
		id[n] = i
	}

	keys := slices.Collect(maps.Keys(r.edges))
	slices.SortFunc(keys, comparePairs)
	g := Graph{Nodes: names, Edges: make([]Edge, len(keys))}
	adj := make([][]int, len(names))
	for i, k := range keys {
		e := r.edges[k]
		gs := slices.Clone(e.gs)
		sortIDs(gs)
		g.Edges[i] = Edge{From: k[0], To: k[1], G: gs, Pos: e.pos}
		adj[id[k[0]]] = append(adj[id[k[0]]], id[k[1]])
	}

	cycles, truncated := elementaryCycles(adj)
	g.Truncated = truncated
	g.Cycles = make([][]string, len(cycles))
	var predicted []Deadlock
	for i, c := range cycles {
		g.Cycles[i] = make([]string, len(c))
		for j, v := range c {
			g.Cycles[i][j] = names[v]
		}
		if d, ok := r.deadlock(g.Cycles[i]); ok {
			predicted = append(predicted, d)
		}
	}
	return g, predicted
}

// elementaryCycles returns the elementary cycles of a graph whose vertices are numbered in
// natural order of their names and whose adjacency lists are sorted. Each cycle starts at its
// smallest vertex; cycles are sorted by length, then vertex by vertex. It reports whether it
// stopped at maxCycles.
func elementaryCycles(adj [][]int) ([][]int, bool) {
	var cycles [][]int
	for v, ws := range adj {
		for _, w := range ws {
			if w > v && slices.Contains(adj[w], v) {
				cycles = append(cycles, []int{v, w})
			}
		}
	}
	j := newJohnson(adj)
	j.run()
	cycles = append(cycles, j.cycles...)
	slices.SortFunc(cycles, func(a, b []int) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return slices.Compare(a, b)
	})
	return cycles, j.truncated
}

// johnson enumerates the elementary cycles longer than two with Johnson's algorithm
// ("Finding all the elementary circuits of a directed graph", SIAM J. Comput. 4(1), 1975),
// which takes time linear in the size of the graph per cycle found, so maxCycles also bounds
// its running time.
type johnson struct {
	adj, radj [][]int
	comp      []int // strongly connected component of each vertex

	s       int    // the start vertex, the smallest of every cycle now being found
	in      []bool // vertices of the component of s among vertices ≥ s
	blocked []bool
	b       [][]int
	stack   []int

	cycles    [][]int
	truncated bool
}

func newJohnson(adj [][]int) *johnson {
	n := len(adj)
	j := &johnson{
		adj:     adj,
		radj:    make([][]int, n),
		in:      make([]bool, n),
		blocked: make([]bool, n),
		b:       make([][]int, n),
	}
	for v, ws := range adj {
		for _, w := range ws {
			j.radj[w] = append(j.radj[w], v)
		}
	}
	j.comp = components(adj)
	return j
}

func (j *johnson) run() {
	for j.s = 0; j.s < len(j.adj) && !j.truncated; j.s++ {
		// Cycles whose smallest vertex is s lie in the part of s's component above s that
		// both reaches s and is reachable from it.
		fwd := j.reach(j.adj)
		bwd := j.reach(j.radj)
		var members []int
		for v := range fwd {
			if bwd[v] {
				members = append(members, v)
			}
		}
		if len(members) < 3 {
			continue
		}
		for _, v := range members {
			j.in[v] = true
			j.blocked[v] = false
			j.b[v] = j.b[v][:0]
		}
		j.circuit(j.s)
		for _, v := range members {
			j.in[v] = false
		}
	}
}

// reach returns the vertices of s's component, not below s, that s reaches along adj.
func (j *johnson) reach(adj [][]int) map[int]bool {
	seen := map[int]bool{j.s: true}
	todo := []int{j.s}
	for len(todo) > 0 {
		v := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, w := range adj[v] {
			if w > j.s && j.comp[w] == j.comp[j.s] && !seen[w] {
				seen[w] = true
				todo = append(todo, w)
			}
		}
	}
	return seen
}

func (j *johnson) circuit(v int) bool {
	found := false
	j.stack = append(j.stack, v)
	j.blocked[v] = true
	for _, w := range j.adj[v] {
		if j.truncated {
			break
		}
		switch {
		case !j.in[w]:
		case w == j.s:
			found = true
			j.emit()
		case !j.blocked[w]:
			if j.circuit(w) {
				found = true
			}
		}
	}
	if found {
		j.unblock(v)
	} else {
		for _, w := range j.adj[v] {
			if j.in[w] && !slices.Contains(j.b[w], v) {
				j.b[w] = append(j.b[w], v)
			}
		}
	}
	j.stack = j.stack[:len(j.stack)-1]
	return found
}

// emit records the cycle on the stack.
func (j *johnson) emit() {
	switch {
	case len(j.stack) == 2:
		// Listed by elementaryCycles, beyond the limit.
	case len(j.cycles) == maxCycles:
		j.truncated = true
	default:
		j.cycles = append(j.cycles, slices.Clone(j.stack))
	}
}

func (j *johnson) unblock(u int) {
	j.blocked[u] = false
	ws := j.b[u]
	j.b[u] = nil
	for _, w := range ws {
		if j.blocked[w] {
			j.unblock(w)
		}
	}
}

// components returns the strongly connected component of each vertex (Tarjan's algorithm).
func components(adj [][]int) []int {
	n := len(adj)
	comp := make([]int, n)
	index := make([]int, n)
	low := make([]int, n)
	onStack := make([]bool, n)
	for v := range index {
		index[v] = -1
	}
	var stack []int
	next, ncomp := 0, 0
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range adj[v] {
			if index[w] < 0 {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp[w] = ncomp
				if w == v {
					break
				}
			}
			ncomp++
		}
	}
	for v := range adj {
		if index[v] < 0 {
			visit(v)
		}
	}
	return comp
}

// deadlock decides whether a cycle of the lock-order graph can deadlock, following Goodlock:
// it looks for one acquisition per edge such that the goroutines are distinct (a goroutine
// cannot wait in two places), no two of them held a common gate lock or took their edges in
// an order that happens-before fixes (they could not be at those acquisitions at the same
// time), and each goroutine's wait conflicts with the next one's hold (read locks; see
// doc.go).
func (r *recorder) deadlock(cycle []string) (Deadlock, bool) {
	s := search{
		r:       r,
		cycle:   cycle,
		writers: r.writers,
		options: make([][]*acquisition, len(cycle)),
		picked:  make([]*acquisition, len(cycle)),
		budget:  searchBudget,
	}
	gs := make([][]string, len(cycle))
	for i, from := range cycle {
		e := r.edges[[2]string{from, cycle[(i+1)%len(cycle)]}]
		s.options[i] = e.acqs
		gs[i] = e.gs
	}
	if !distinctGoroutines(gs) || !s.try(0) {
		return Deadlock{}, false
	}
	d := Deadlock{Locks: cycle, Steps: make([]Step, len(cycle))}
	for i, a := range s.picked {
		d.Steps[i] = Step{
			G:        a.g,
			Holds:    cycle[i],
			HoldPos:  a.holding(cycle[i]).pos,
			Acquires: a.lock,
			Pos:      a.pos,
		}
	}
	return d, true
}

// distinctGoroutines reports whether each edge of a cycle can be given a goroutine that took
// it, no goroutine twice: a maximum bipartite matching (Kuhn's algorithm). It rejects most
// cycles that cannot deadlock, such as those longer than the number of goroutines, before
// the costlier search.
func distinctGoroutines(gs [][]string) bool {
	owner := make(map[string]int) // goroutine → edge it is matched to
	for _, es := range gs {
		for _, g := range es {
			owner[g] = -1
		}
	}
	if len(owner) < len(gs) {
		return false
	}
	seen := make(map[string]bool)
	var augment func(i int) bool
	augment = func(i int) bool {
		for _, g := range gs[i] {
			if seen[g] {
				continue
			}
			seen[g] = true
			if j := owner[g]; j < 0 || augment(j) {
				owner[g] = i
				return true
			}
		}
		return false
	}
	for i := range gs {
		clear(seen)
		if !augment(i) {
			return false
		}
	}
	return true
}

// search is a backtracking search for the acquisitions that form a deadlock.
type search struct {
	r       *recorder
	cycle   []string
	writers map[string]map[string]bool
	options [][]*acquisition // the acquisitions of each edge of the cycle
	picked  []*acquisition
	budget  int
}

func (s *search) try(i int) bool {
	if s.budget == 0 {
		return false
	}
	s.budget--
	if i == len(s.options) {
		return s.waits()
	}
	for _, a := range s.options[i] {
		if s.compatible(a, i) {
			s.picked[i] = a
			if s.try(i + 1) {
				return true
			}
		}
	}
	return false
}

func (s *search) compatible(a *acquisition, i int) bool {
	for j, p := range s.picked[:i] {
		if p.g == a.g || gated(p.held, a.held) || s.r.ordered(s.nestKey(p, j), s.nestKey(a, i)) {
			return false
		}
	}
	return true
}

// nestKey names the nestings of acquisition a as the cycle's i-th edge.
func (s *search) nestKey(a *acquisition, i int) nestKey {
	return nestKey{a.g, s.cycle[i], a.lock}
}

// gated reports whether two held sets share a lock that keeps their goroutines apart.
func gated(h1, h2 []hold) bool {
	for _, x := range h1 {
		for _, y := range h2 {
			if x.lock == y.lock && !(x.read && y.read) {
				return true
			}
		}
	}
	return false
}

// waits reports whether each picked goroutine can wait for the next one. A read-read pair needs
// a writer queued in between, which must be a goroutine outside the cycle.
func (s *search) waits() bool {
	for i, a := range s.picked {
		next := s.picked[(i+1)%len(s.picked)]
		lock := s.cycle[(i+1)%len(s.cycle)]
		if !a.read || !next.holding(lock).read {
			continue
		}
		outside := false
		for w := range s.writers[lock] {
			if !slices.ContainsFunc(s.picked, func(p *acquisition) bool { return p.g == w }) {
				outside = true
				break
			}
		}
		if !outside {
			return false
		}
	}
	return true
}
