// Package locktree finds potential deadlocks in the lock operations of a single run, including
// deadlocks that the run itself did not hit.
//
// It implements the runtime deadlock analysis of Java PathFinder (Visser, Havelund, Brat, Park:
// "Model Checking Programs"), as presented in R. Kale, "Design of Software Model Checker",
// section 3, "Deadlock Detection", Figures 5 and 6; and the lock-order graph of Havelund's
// Goodlock algorithm, which that analysis refines.
//
// # Lock trees
//
// Each goroutine gets a lock tree that records the nesting in which it took locks. The root
// stands for the goroutine; while the goroutine holds a sequence of locks, the path from the
// root to its current node spells out those locks in acquisition order. Acquiring a lock adds a
// child to the current node, or reuses the child that already has that lock; releasing backs up
// the tree. Go, unlike Java monitors, lets a goroutine unlock an outer lock before an inner one,
// and lets one goroutine unlock a mutex that another locked. In both cases the current path is
// rebuilt from the locks that are still held, in the order they were acquired, so that a node's
// ancestors are always exactly the locks held when it was acquired.
//
// Acquiring a lock the goroutine already holds adds no node, as in the paper. It is recorded in
// [Report.Reentries]: a second Lock of a sync.Mutex deadlocks the goroutine with itself.
//
// # Comparing trees
//
// After the run every pair of trees is compared. Goroutine t1 acquiring B below A while t2
// acquires A below B is an inversion: t1 may hold A and wait for B while t2 holds B and waits
// for A. Such an inversion is harmless when both goroutines held a common gate lock above both
// nodes, since then they cannot be inside the two nestings at the same time. Unprotected
// inversions are [Report.Warnings]; the protected ones are [Report.Suppressed], with their gates.
// The paper's Figure 5 yields one warning (L3/L4) and two suppressed L2/L3 inversions, one gated
// by L1 and one by L4.
//
// Pairwise comparison cannot see a cycle through three or more goroutines (A→B, B→C, C→A):
// no two of its trees are inverted. The lock-order graph does see it.
//
// # The lock-order graph
//
// The graph has an edge A→B when some goroutine acquired B while holding A, whether A was its
// innermost lock or not. [Graph.Cycles] lists the elementary cycles of the graph. A cycle is a
// potential deadlock only if its edges can be taken by distinct goroutines at the same time: a
// cycle whose edges all come from one goroutine is not, and neither is one whose goroutines
// held a common gate lock while taking their edges (the graph's form of the gate-lock rule: the
// sets of locks they held must be disjoint). [Report.Predicted] lists the cycles that pass these
// tests, with the goroutines and source positions that form each.
//
// # Happens-before
//
// Two nestings of an inversion or a cycle can deadlock only if their goroutines can be inside
// them at once. When events carry a [Stamp], the vector clock of the happens-before that
// synchronization other than locks gives, an inversion is harmless when, for every pair of
// occurrences, one goroutine's acquisition of its inner lock happens before the other's
// acquisition of its outer lock: a receive loop that nests A→B and closes a channel as it
// ends, and a Close that waits for that channel before nesting B→A (yamux's Session). Such
// inversions are [Report.Suppressed] with Ordered set, and a cycle search never pairs two
// ordered nestings. Lock edges are left out of the clocks: that a lock ordered two critical
// sections in this run is what the analysis must not trust, since another schedule reorders
// them (Havelund's Goodlock uses only start and join for the same reason). An event without a
// stamp orders nothing, and a nesting seen more than a thousand times in a goroutine is
// taken to overlap anything, so that the check stays quadratic in a bounded number.
//
// # Read locks
//
// For a sync.RWMutex, two read acquisitions do not exclude each other, so an inversion or cycle
// made only of read acquisitions cannot deadlock by itself, and a lock held for reading by two
// goroutines is no gate. However, Go's RWMutex prefers writers: once a goroutine waits in Lock,
// new RLock calls block until it is done. A goroutine holding a read lock and waiting for
// another read lock can therefore deadlock if a third goroutine write-locks that lock. This
// package takes writer preference into account: two acquisitions of a lock conflict if either is
// a write acquisition, or if some goroutine outside the inversion or cycle write-locks it
// anywhere in the run. A read-only inversion in a program that never write-locks the locks
// involved is not reported; one where other goroutines do write-lock them is. The same
// reasoning makes a recursive RLock a deadlock risk; [Reentry.Read] marks it.
//
// # Order and limits
//
// Identifiers are ordered naturally, comparing runs of digits as numbers, so that G1.2 sorts
// before G1.10 and G1#3 before G1#10. Every list in a [Report] is sorted or in execution order,
// so the same events always produce the same report.
//
// The number of elementary cycles can grow exponentially with the number of locks. Every
// 2-cycle is always listed; longer cycles are listed up to a fixed limit, after which
// [Graph.Truncated] is set.
package locktree
