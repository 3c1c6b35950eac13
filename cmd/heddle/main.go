// Command heddle runs Go tests and programs under a controlled scheduler, explores their
// goroutine interleavings, and reports and replays the concurrency bugs it finds.
//
// Usage:
//
//	heddle test [-C dir] [build flags] [packages] [-run regexp] [-skip regexp] [-strategy s] [-budget b] [-json] [-v]
//	heddle run [build flags] [package] [-strategy s] [-budget b]
//	heddle replay [-count n] [-v] FILE
//	heddle merge [-out dir] DIR|FILE...
//	heddle serve FILE...
//	heddle demo
//	heddle dap [-listen address]
//	heddle lsp
//	heddle version
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/heddledbg/heddle/dap"
	"github.com/heddledbg/heddle/suite"
)

const version = "0.1.0"

const usage = `heddle explores goroutine interleavings of Go tests and programs.

Usage:

	heddle test [build flags] [packages] [flags]   explore the tests of packages
	heddle run [build flags] [package] [flags]     explore a main package
	heddle replay [-count n] [-v] FILE              replay a schedule or trace file
	heddle merge [-out dir] DIR|FILE...            combine the results of heddle test -shard i/n
	heddle serve FILE...                           open the web view on result files
	heddle demo                                    explore a bundled buggy example
	heddle dap [-listen address]                   serve the Debug Adapter Protocol (editors)
	heddle lsp                                     serve the Language Server Protocol (editors)
	heddle version                                 print the version

Run 'heddle test -h' or 'heddle run -h' for their flags. The default strategy, portfolio,
interleaves DPOR with PCT and random walks: small tests are explored completely, deep ones
are still sampled. 'heddle test -shard i/n' explores one of n shares of each test's search,
for n CI jobs; 'heddle merge' combines their results (docs/sharding.md).
`

func main() {
	// A process started by the debug adapter to run Delve for one incarnation.
	dap.ServeDelve()
	os.Exit(run(os.Args[1:]))
}

// Exit codes mirror go test's (suite.ExitOK).
const (
	exitOK    = suite.ExitOK
	exitBug   = suite.ExitBug
	exitUsage = suite.ExitUsage
)

func run(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "test":
		return cmdTest(args[1:], true)
	case "run":
		return cmdTest(args[1:], false)
	case "replay":
		return cmdReplay(args[1:])
	case "merge":
		return cmdMerge(args[1:])
	case "serve":
		return cmdServe(args[1:])
	case "demo":
		return cmdDemo(args[1:])
	case "version":
		fmt.Println("heddle", version)
		return exitOK
	case "help", "-h", "-help", "--help":
		fmt.Print(usage)
		return exitOK
	case "dap":
		return cmdDAP(args[1:])
	case "lsp":
		return cmdLSP(args[1:])
	}
	fmt.Fprintf(os.Stderr, "heddle: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}

// interruptible returns a context that ends when heddle is interrupted (Ctrl-C) or asked to
// terminate (a CI job's timeout), so that workers are stopped and results kept.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
