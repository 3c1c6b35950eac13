// Package corpus holds small concurrent programs with known answers, for testing heddle's
// engine: the test programs of Bruening's thesis, the examples of the Stoller, Java PathFinder
// and Bogor papers, and common Go concurrency bugs.
//
// Every buggy program has a correct twin that differs from it only in the fix, so that a test
// can check both that the bug is found and that the fix makes the report clean.
//
// A program is written against heddle's runtime directly (rt.Go instead of go, rt.Mutex, rt.Send
// and so on), as the instrumenter would rewrite it, down to the reports of its accesses to
// shared plain memory (rt.Load, rt.Store, rt.MapRead, rt.MapWrite), which the lockset check and
// the stoller strategy's dependency relation need. A body runs thousands of times in one
// process, so it creates every object it uses.
package corpus

import (
	"slices"

	"github.com/heddledbg/heddle/rt"
)

// Program is a program of the corpus.
type Program struct {
	Name string
	// Source names the paper and figure or section the program comes from, or the Go pattern.
	Source string
	// Body is the root goroutine of the program.
	Body func()
	// Want is the kind of bug an exhaustive search must report, or "" for a correct program.
	Want rt.VerdictKind
	// Twin names the program's correct twin (for a buggy program) or buggy twin (for a correct
	// one), or "" if it has none.
	Twin string
	// Time is the model of time the program's bug needs (TimeAdversarial for a timer that
	// must fire before work that does not wait).
	Time rt.TimeModel
}

// Programs lists the corpus, each buggy program followed by its twin.
var Programs = slices.Concat(thesis, papers, golang, spin)

// Lookup returns the program named name.
func Lookup(name string) (Program, bool) {
	for _, p := range Programs {
		if p.Name == name {
			return p, true
		}
	}
	return Program{}, false
}

// join runs each function in its own goroutine and waits for all of them, as a Go test waits
// for the goroutines it starts. A program whose goroutines block forever therefore ends in a
// deadlock (the root waits too) rather than in a leak.
func join(fs ...func()) { joinBounded(nil, nil, fs...) }

// joinBounded is join whose goroutines, if bounds is not nil, declare their bounds
// (rt.Declare), as a static analysis of their code would give them, for Algorithm 2-MLD
// (stoller-ps); after bounds what the root does once join returns.
func joinBounded(after *rt.Bound, bounds []rt.Bound, fs ...func()) {
	var wg rt.WaitGroup
	wg.Add(len(fs))
	for i, f := range fs {
		rt.Go(func() {
			if bounds != nil {
				rt.Declare(bounds[i].Sync(&wg))
			}
			defer wg.Done()
			f()
		})
	}
	if after != nil {
		rt.Declare(after.Sync(&wg))
	}
	wg.Wait()
}
