package locktree

import "fmt"

// Pos is a source position.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

// Op is a lock operation.
type Op uint8

const (
	Acquire  Op = iota // Lock of a Mutex or RWMutex, or a successful TryLock
	Release            // Unlock
	RAcquire           // RLock of an RWMutex, or a successful TryRLock
	RRelease           // RUnlock
)

var opNames = [...]string{"acquire", "release", "racquire", "rrelease"}

func (op Op) String() string {
	if int(op) < len(opNames) {
		return opNames[op]
	}
	return fmt.Sprintf("Op(%d)", op)
}

// Event is one completed lock operation observed in a run. Analyze takes events in execution
// order.
type Event struct {
	G    string // goroutine id, e.g. "G1.2"
	Lock string // lock object id, e.g. "G1#3"
	Op   Op
	Pos  Pos
	// HB places an acquisition in the run's happens-before without the edges of locks; nil
	// when it is not known, and then nothing is taken to order it.
	HB *Stamp
}

// Stamp is an event's vector clock over goroutine slots, of the happens-before that
// synchronization other than locks gives (program order, go statements, channels, wait
// groups, atomics, …). Clock[Slot] counts the events of the event's own goroutine, itself
// included.
type Stamp struct {
	Slot  int
	Clock []int32
}

// Before reports whether x happens before y. Unknown stamps order nothing.
func (x *Stamp) Before(y *Stamp) bool {
	return x != nil && y != nil && x.Slot < len(y.Clock) && x.Slot < len(x.Clock) &&
		y.Clock[x.Slot] >= x.Clock[x.Slot]
}

// Report is the result of Analyze. It marshals to the "lockTrees" JSON of docs/formats.md.
type Report struct {
	Trees      []Tree       `json:"trees"`
	Warnings   []Warning    `json:"warnings"`
	Suppressed []Suppressed `json:"suppressed"`
	Graph      Graph        `json:"graph"`
	Reentries  []Reentry    `json:"reentries,omitempty"`
	// Names maps locks to the expressions the program names them by (from.mu, L3), where
	// known; the locks themselves are logical ids, which tell apart locks of the same name.
	Names map[string]string `json:"names,omitempty"`

	// Predicted lists the cycles of Graph.Cycles that some schedule can turn into a deadlock,
	// in the order of Graph.Cycles. The explorer reports each as a bug of kind "lockcycle".
	Predicted []Deadlock `json:"-"`
}

// Label is how a report shows lock: its name, else its id.
func (r *Report) Label(lock string) string {
	if n := r.Names[lock]; n != "" {
		return n
	}
	return lock
}

// Tree is the lock tree of one goroutine.
type Tree struct {
	G    string `json:"g"`
	Root Node   `json:"root"`
}

// Node is a node of a lock tree: the acquisition of Lock while holding the locks of its
// ancestors. The root stands for the goroutine and has no lock.
type Node struct {
	Lock     string `json:"lock,omitempty"`
	Read     bool   `json:"read,omitempty"` // acquired with RLock
	Pos      Pos    `json:"pos,omitzero"`   // the first acquisition at this node
	Children []Node `json:"children"`       // in the order of their first acquisition
}

// Warning is a lock-order inversion between two goroutines that no gate lock protects.
type Warning struct {
	Locks  [2]string `json:"locks"` // in natural order
	First  Side      `json:"first"`
	Second Side      `json:"second"`
}

// Side is one goroutine's half of an inversion: the path of locks from the root of its tree
// to the inner lock of the inversion.
type Side struct {
	G    string   `json:"g"`
	Path []string `json:"path"`
}

// Suppressed is a lock-order inversion that gate locks protect, or whose two nestings are
// ordered. There is one for each distinct set of gates, and one for the ordered ones; a pair
// of locks that also has an unprotected inversion is a Warning instead.
type Suppressed struct {
	Locks [2]string `json:"locks"`
	Gates []string  `json:"gates"`
	// Ordered reports an inversion without gates whose nestings never overlap: each time one
	// goroutine took the pair in one order happens, through synchronization other than locks,
	// before or after each time the other took it in the other order (see doc.go).
	Ordered bool `json:"ordered,omitempty"`
}

// Graph is the lock-order graph: an edge From→To says that some goroutine acquired To while
// holding From.
type Graph struct {
	Nodes []string `json:"nodes"`
	Edges []Edge   `json:"edges"`
	// Cycles are the elementary cycles, each rotated so that its smallest lock comes first,
	// sorted by length and then element by element.
	Cycles [][]string `json:"cycles"`
	// Truncated reports that cycles longer than two were cut off at a limit.
	Truncated bool `json:"truncated,omitempty"`
}

// Edge is an edge of the lock-order graph.
type Edge struct {
	From string   `json:"from"`
	To   string   `json:"to"`
	G    []string `json:"g"`   // the goroutines that took the edge
	Pos  Pos      `json:"pos"` // the first acquisition of To while holding From
}

// Reentry is an acquisition of a lock that the goroutine already held.
type Reentry struct {
	G    string `json:"g"`
	Lock string `json:"lock"`
	// Read reports that both acquisitions were read locks. A recursive RLock deadlocks only if
	// another goroutine calls Lock between the two; any other reentry always deadlocks.
	Read bool `json:"read,omitempty"`
	Pos  Pos  `json:"pos"`
}

// Deadlock is a cycle of the lock-order graph that some schedule can turn into a deadlock:
// each Steps[i].G holds Locks[i] and waits for the next lock of the cycle, which the next step's
// goroutine holds.
type Deadlock struct {
	Locks []string `json:"locks"`
	Steps []Step   `json:"steps"`
}

// Step is one goroutine's part of a Deadlock.
type Step struct {
	G        string `json:"g"`
	Holds    string `json:"holds"`
	HoldPos  Pos    `json:"holdPos"` // where Holds was acquired
	Acquires string `json:"acquires"`
	Pos      Pos    `json:"pos"` // where Acquires was acquired while holding Holds
}

// Analyze builds each goroutine's lock tree, compares the trees pairwise, and builds the
// lock-order graph with its cycles. Past maxWork, the trees and the graph are those of the
// events' beginning.
func Analyze(events []Event) *Report {
	r := newRecorder()
	for i, e := range events {
		if r.work > maxWork {
			break
		}
		r.record(i, e)
	}
	trees := r.sortedTrees()
	warnings, suppressed := r.compare(trees)
	graph, predicted := r.graph()
	return &Report{
		Trees:      exportTrees(trees),
		Warnings:   warnings,
		Suppressed: suppressed,
		Graph:      graph,
		Reentries:  r.reentries,
		Predicted:  predicted,
	}
}
