package locktree

import (
	"cmp"
	"slices"
	"strings"
)

// nest is a pair of nodes of one tree, inner below outer: the goroutine acquired inner's lock
// while holding outer's.
type nest struct{ outer, inner *node }

// indexedTree is a lock tree with its nests, in preorder of the inner node and, for one inner
// node, from the root down.
type indexedTree struct {
	g       string
	nests   []nest
	byLocks map[[2]string][]nest // keyed by outer and inner lock
}

func index(g *goroutine) indexedTree {
	t := indexedTree{g: g.id, byLocks: make(map[[2]string][]nest)}
	var above []*node
	var walk func(n *node)
	walk = func(n *node) {
		for _, a := range above {
			t.nests = append(t.nests, nest{a, n})
			k := [2]string{a.lock, n.lock}
			t.byLocks[k] = append(t.byLocks[k], nest{a, n})
		}
		above = append(above, n)
		for _, c := range n.children {
			walk(c)
		}
		above = above[:len(above)-1]
	}
	for _, c := range g.root.children {
		walk(c)
	}
	return t
}

// compare compares every pair of lock trees as in the paper (section 3, "Deadlock Detection"):
// for every node n of t1, no node below n may be above an occurrence of n's lock in t2.
//
// The paper avoids warnings for gated inversions by marking the occurrences in t2 of the locks
// on t1's current path and skipping nodes below marks. That accepts a gate that t2 took below
// the other lock of the inversion; here a gate must be above both nodes of the inversion in
// both trees, as the paper defines gate locks ("taken as the first thing by both threads,
// before any of the other two locks are taken"). The cases in between, where t2 takes the gate
// inside the inversion, are still reported: the gate is then itself inverted with that lock.
//
// There is one warning per pair of locks, from the first pair of goroutines in natural order
// that shows an unprotected inversion, and one suppressed entry per pair of locks and set of
// gates.
//
// An inversion whose nestings are ordered (recorder.ordered) is suppressed as well.
func (r *recorder) compare(gs []*goroutine) ([]Warning, []Suppressed) {
	writers := r.writers
	trees := make([]indexedTree, len(gs))
	for i, g := range gs {
		trees[i] = index(g)
	}
	warned := make(map[[2]string]Warning)
	suppressed := make(map[string]Suppressed)
	for i, t1 := range trees {
		for _, t2 := range trees[i+1:] {
			for _, n1 := range t1.nests {
				a, b := n1.outer.lock, n1.inner.lock
				pair := orderedPair(a, b)
				for _, n2 := range t2.byLocks[[2]string{b, a}] {
					if _, ok := warned[pair]; ok {
						break
					}
					// t1 holds a and waits for b, which t2 holds; t2 waits for a.
					if !conflict(writers, b, n1.inner.read, n2.outer.read, t1.g, t2.g) ||
						!conflict(writers, a, n2.inner.read, n1.outer.read, t1.g, t2.g) {
						continue
					}
					gates := gates(n1.outer, n2.outer)
					if len(gates) == 0 && r.ordered(nestKey{t1.g, a, b}, nestKey{t2.g, b, a}) {
						k := pair[0] + "\x00" + pair[1] + "\x00ordered"
						if _, ok := suppressed[k]; !ok {
							suppressed[k] = Suppressed{Locks: pair, Gates: []string{}, Ordered: true}
						}
						continue
					}
					if len(gates) == 0 {
						warned[pair] = Warning{
							Locks:  pair,
							First:  Side{G: t1.g, Path: n1.inner.path()},
							Second: Side{G: t2.g, Path: n2.inner.path()},
						}
						break
					}
					k := pair[0] + "\x00" + pair[1] + "\x00" + strings.Join(gates, "\x00")
					if _, ok := suppressed[k]; !ok {
						suppressed[k] = Suppressed{Locks: pair, Gates: gates}
					}
				}
			}
		}
	}

	warnings := make([]Warning, 0, len(warned))
	for _, w := range warned {
		warnings = append(warnings, w)
	}
	slices.SortFunc(warnings, func(x, y Warning) int { return comparePairs(x.Locks, y.Locks) })
	sup := make([]Suppressed, 0, len(suppressed))
	for _, s := range suppressed {
		if _, ok := warned[s.Locks]; !ok {
			sup = append(sup, s)
		}
	}
	slices.SortFunc(sup, func(x, y Suppressed) int {
		if c := comparePairs(x.Locks, y.Locks); c != 0 {
			return c
		}
		if c := slices.CompareFunc(x.Gates, y.Gates, compareIDs); c != 0 {
			return c
		}
		return cmp.Compare(b2i(x.Ordered), b2i(y.Ordered))
	})
	return warnings, sup
}

func comparePairs(x, y [2]string) int {
	return slices.CompareFunc(x[:], y[:], compareIDs)
}

// conflict reports whether a goroutine acquiring lock (for reading if waitRead) can wait for a
// goroutine holding it (for reading if holdRead). Two readers wait for each other only through
// a writer queued between them, which must be a goroutine other than g1 and g2: those two are
// busy waiting for each other.
func conflict(writers map[string]map[string]bool, lock string, waitRead, holdRead bool, g1, g2 string) bool {
	if !waitRead || !holdRead {
		return true
	}
	for w := range writers[lock] {
		if w != g1 && w != g2 {
			return true
		}
	}
	return false
}

// gates returns the locks held above both o1 and o2 that keep their goroutines apart: held by
// both, and by at least one of them for writing, since two readers can share a lock.
func gates(o1, o2 *node) []string {
	above := make(map[string]bool) // lock → held for reading
	for n := o1.parent; n.parent != nil; n = n.parent {
		above[n.lock] = n.read
	}
	var gs []string
	for n := o2.parent; n.parent != nil; n = n.parent {
		if read, ok := above[n.lock]; ok && !(read && n.read) {
			gs = append(gs, n.lock)
		}
	}
	sortIDs(gs)
	return gs
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
