package rt

// Ending, if not nil, is called when a run ends with a bug or as one heddle cannot explore
// (VerdictUnsupported), with its verdict, by the goroutine that ends it and before any
// goroutine is torn down. A test harness sets the verdict's Subtest to the subtest the run
// was in: a failure is reported under its subtest, as go test reports it, and a subtest that
// heddle cannot explore is left out of the test's runs while its other subtests are explored.
var Ending func(v *Verdict)

// Subtest runs f, the function of a subtest, on the goroutine that the testing package started
// for it. t.Run blocks its caller until the subtest ends, so the subtest takes the place of the
// controlled goroutine that called t.Run: its operations are that goroutine's steps and the
// goroutines it starts are that goroutine's children, exactly as if f had been called directly.
//
// The goroutine is not one of the run's own, so the two ways in which rt ends a goroutine must
// not reach the testing package: a runtime.Goexit at teardown would be reported as a subtest
// that exited without finishing, and a panic would crash the process from testing's goroutine.
// If the run is torn down while f runs, Subtest calls end, which must end the goroutine the way
// the testing package expects (t.SkipNow). A panic in f ends the run with the verdict that a
// panic in the parent would have, and then waits for the teardown.
//
//go:norace
func Subtest(f func(), end func()) {
	r := active
	if r == nil {
		f()
		return
	}
	if r.aborted {
		end()
	}
	g := r.cur
	// The subtest's goroutine stands for g until it ends.
	gp, id := g.gp, g.goid
	g.gp, g.goid = getg(), goid()
	defer func() { g.gp, g.goid = gp, id }()
	returned := false
	defer func() {
		if !returned && r.aborted {
			end()
		}
	}()
	defer func() {
		if returned {
			return
		}
		// A nil recover is a Goexit: the test's own t.FailNow or t.SkipNow, or the teardown.
		if p := recover(); p != nil && !r.aborted {
			// Reported as a panic in the parent would be: its goroutine done, with the panic's
			// stack. g itself stays live, so that the teardown wakes this goroutine.
			done := *g
			done.state = gDone
			kind, msg := panicVerdict(p)
			r.fail(kind, msg, &done, panicStack())
			r.block(g)
		}
	}()
	f()
	returned = true
}
