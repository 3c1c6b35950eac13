package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/heddledbg/heddle/lsp"
)

const lspUsage = `usage: heddle lsp

Serves the Language Server Protocol on standard input and output, for editors: code lenses
to explore and debug each test, diagnostics at the bugs of the latest explorations found in
.heddle under the workspace folders, and a quick fix to replay each bug. See docs/lsp.md.
`

// cmdLSP serves the Language Server Protocol on standard input and output until the client
// sends exit. As the protocol asks, the exit status is 0 if the client shut the server down
// first and 1 otherwise.
func cmdLSP(args []string) int {
	fs := flag.NewFlagSet("heddle lsp", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), lspUsage) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "heddle lsp: unexpected arguments %q\n\n%s", fs.Args(), lspUsage)
		return exitUsage
	}
	ctx, cancel := interruptible()
	defer cancel()
	// Standard output carries the protocol: nothing else may write to it.
	if err := lsp.Serve(ctx, stdio{os.Stdin, os.Stdout}, lsp.Options{Version: version}); err != nil {
		fmt.Fprintln(os.Stderr, "heddle lsp:", err)
		return 1
	}
	return exitOK
}

// stdio is the connection to the client. Closing it does nothing: the process exits right
// after, and closing the standard files would not interrupt a pending read anyway.
type stdio struct {
	io.Reader
	io.Writer
}

func (stdio) Close() error { return nil }
