// Package instrument rewrites unmodified Go packages onto heddle's controlled
// runtime and builds them with the go command.
//
// # Rewriting
//
// Instrumented code imports shadow packages instead of the standard ones
// whose operations are scheduling points or must replay: sync, sync/atomic,
// time, context, math/rand, math/rand/v2, io and net become
// github.com/heddledbg/heddle/rt/sync, …/rt/sync/atomic, …/rt/time,
// …/rt/context, …/rt/math/rand, …/rt/math/rand/v2, …/rt/io and …/rt/net. They keep the
// standard package names and declare every exported name of their counterparts, so the rest
// of a file compiles unchanged. io.Pipe and net.Pipe in them are the standard library's own
// files passed through this rewriter (TestShadowAPI generates them). The language's own concurrency is rewritten onto
// package rt:
//
//	go f(x, y)              { t0 := x; t1 := y; rt.Go(func() { f(t0, t1) }) }
//	go fn()                 rt.Go(fn)
//	make(chan T, n)         rt.MakeChan[T](n)
//	ch <- v                 rt.Send(ch, v)
//	<-ch                    rt.Recv(ch)
//	v, ok := <-ch           v, ok := rt.Recv2(ch)
//	for v := range ch {…}   for c := ch; ; { v, ok := rt.Recv2(c); if !ok { break }; {…} }
//	close(ch), len(ch)      rt.Close(ch), rt.Len(ch)
//	select {…}              a switch on rt.Select(hasDefault, rt.RecvCase(c0), rt.SendCase(c1, v1), …)
//	runtime.Gosched()       rt.Gosched() (also Goexit and NumGoroutine)
//	os.Exit(code)           rt.Exit(code)
//	testing.AllocsPerRun    rt.AllocsPerRun (whose count holds heddle's allocations too)
//	runtime.ReadMemStats    rt.ReadMemStats (likewise)
//
// Subtests run on goroutines that the testing package starts, so calls of two methods of
// *testing.T (also through embedding) go to the harness, which runs a subtest in its parent's
// place and makes t.Parallel a no-op within a run:
//
//	t.Run(name, f)          worker.Run(t, name, f)
//	t.Parallel()            worker.Parallel(t)
//
// The function value, receiver and arguments of a go statement, and the
// channel and value operands of a select, are evaluated where Go evaluates
// them, once and in source order. A break in a select case still leaves the
// select, labels keep their targets, and a select that is a terminating
// statement stays one.
//
// Identifiers that instrumentation introduces start with "heddle__", which
// user code must not use; nothing hides them from a debugger. Rewriting never adds or
// removes a line: inserted text stays on the line of the statement it
// replaces, and line directives (/*line file:line:col*/) give every token of
// the user's code its original position, so compiler errors, panics,
// runtime.Caller and breakpoints all refer to the user's own lines. The code a
// rewritten select runs is placed on the lines where the compiler places a select's, in
// the same order, so that a debugger steps through it as through Go's (selectStmt).
//
// # Building
//
// Build instruments the packages of the main module that the requested
// packages depend on, and the few libraries whose goroutines run the
// program's functions (golang.org/x/sync, testify's assert) or that read the
// clock the program reads (golang.org/x/time), leaving the
// standard library and other modules as trusted, uninstrumented code
// (Config.Instrument and Config.Skip adjust the
// set; packages using cgo are left alone with a warning, and heddle's own
// runtime never is instrumented). Nothing is written into the user's tree:
// the rewritten files reach the go command through -overlay, and a copy of
// the user's go.mod, passed with -modfile, requires github.com/heddledbg/heddle
// and replaces it with the runtime source that RuntimeSource extracts from
// the heddle binary, so that builds work offline.
//
// For tests, Build adds to each package a test file that registers its
// TestXxx functions with the harness of package worker, the internal and the
// external test package each registering their own, and a TestHeddleWorker
// test through which heddle runs them; a TestMain stays as it is. For a main
// package it adds a file that hands main to the harness.
//
// # Caching
//
// The rewriter's output is cached across builds, as the go command caches compiled packages:
// a package whose files, dependencies, heddle and go command are those of an earlier build
// takes its rewritten files from the cache, without the type-checking load that rewriting
// needs, and a change to one file rewrites only its package and the packages that import it,
// directly or not (Result.Rewritten lists the packages a build rewrote). The cache is the
// directory $HEDDLECACHE, by default heddle/rewrite in the user's cache directory
// (os.UserCacheDir); HEDDLECACHE=off turns it off. Entries unused for five days are deleted,
// by a build that looks once a day; deleting the directory at any time is safe. A damaged
// entry is a miss, never a wrong build: each holds a hash of its content. The go command's
// go list std, which rt needs, is cached by the go command's version and environment too, and
// so are the copies of modules of the module cache whose packages are instrumented, which the
// build otherwise makes anew each time, in a new place that the go command compiles again.
//
// Because the go command reads vendor/modules.txt without the overlay, a
// vendored module is built with -mod=mod, from the module cache. A module
// whose go version predates the runtime's is built at the runtime's
// version. Both cases are reported in Result.Warnings.
package instrument
