// Package lin checks that a concurrent type is linearizable, in the spirit of JetBrains'
// Lincheck: a test runs operations on the type from several goroutines, recording each call
// and return with [History.Do], and [History.Check] then asks whether some sequential order
// of the operations, consistent with their real-time order (an operation that returned before
// another was called comes first), gives every operation the output it had under a
// sequential model of the type. The checker is Porcupine
// (github.com/anishathalye/porcupine).
//
// Under heddle, the calls and returns are recorded in the order of the controlled run, at
// steps of their own, so every explored interleaving is checked and a replay of a schedule
// records the same history. A call and another goroutine's return are scheduling points that
// depend on each other, so that the search tries both of their orders: which operations
// overlap decides which orders a history allows. A history that no sequential order explains ends the run with a
// bug of kind linearizability, whose report draws the history as a timeline of overlapping
// calls. Under plain go test, the calls and returns are ordered by a counter under a mutex,
// and a failed check fails the test with the same drawing: the test is a stress test of its
// own.
//
// The model's functions run inside Check, on the goroutine that calls it; they must not
// synchronize with the goroutines of the test.
package lin
