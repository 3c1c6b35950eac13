// Package rt is heddle's controlled runtime: the part of heddle that is linked into the program
// under test.
//
// Under rt, exactly one goroutine of a run executes at a time. Every synchronization operation
// (a visible operation: mutex, channel, select, atomic, WaitGroup, Cond, Once, sync.Map, sleep
// and timers, goroutine start, heddle.Choose) is a scheduling point. At a scheduling point the
// running goroutine stops before the operation, and rt asks a Chooser which goroutine performs
// the next step. Every choice with more than one alternative is a decision, and the sequence of
// decisions (the schedule) fixes the whole execution, so any run can be replayed exactly.
//
// The model follows the Go runtime: a goroutine stopped before an operation that cannot complete
// (a Lock of a held mutex, a receive with no sender) is blocked; an operation that completes a
// blocked partner (a send to a waiting receiver) completes both, and the partner resumes
// eagerly, running its invisible code up to its next scheduling point before the next decision.
// Time is virtual: the clock is a pseudo-goroutine whose step fires the timers due. By default
// (TimeQuantum) every step moves the clock on by a quantum, a timer whose deadline has passed
// may fire at any later decision, and when no goroutine can run the clock jumps to the next
// deadline; TimeSynctest and TimeAdversarial are the other models (docs/time.md).
//
// The instrumenter rewrites user code onto this package (go statements, channel operations and
// select) and onto the shadow packages rt/sync, rt/sync/atomic, rt/time and rt/context, which
// alias the types defined here, and rt/net and rt/net/http/httptest, the virtual network, built
// on this package's channels and timers (with rt/net/http, which serves HTTP on controlled
// goroutines). Outside a run (package initialisation, TestMain) every
// operation behaves like its standard counterpart.
//
// The stand-ins of package sync and sync/atomic (Mutex, RWMutex, WaitGroup, Once, Cond, Map,
// Pool and the atomic types) have exactly the size, alignment and words of the types they
// replace, since programs depend on them (a padding to a cache line computed with
// unsafe.Sizeof is a constant that must not overflow). Their bytes are the standard type, which
// is what a stand-in is outside any run, and leave no room for more. Heddle's state of an object (its id in the run, whether
// it is locked, its counter, its waiters) lives beside it, in a side table of the run keyed by
// the object's address. The key keeps the object alive, so no other object takes its address
// before the run ends, and the table is emptied when the next run starts: an object first used
// in a run starts there as a zero value, whatever earlier runs or code outside the runs did
// with it, and an object in a package-level variable is the same object in every run. A copy
// is an object of its own, at its own address, and starts as a zero value: that is exact for
// the copies of zero values that programs make, and makes a copy of a held lock (which go
// vet's copylocks reports) unlocked. An atomic's id in the run is in a table by address too
// (atomic.go), and a Pool's values of a run are in a standard pool of the run's (pool.go).
//
// rt has no dependencies outside the standard library: it is compiled into every program under
// test. docs/runtime.md describes its behaviour.
package rt
