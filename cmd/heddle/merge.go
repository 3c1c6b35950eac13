package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/suite"
)

const mergeUsage = `usage: heddle merge [-out dir] [-v] [-json] DIR|FILE...

Combines the results of the shards of heddle test -shard i/n into one exploration per test:
one set of bugs (the same bug found by several shards once, with its simplest schedule), one
schedule tree, and the sum of the statistics. The search is complete only if every shard's is
and all n shards are there. DIR is searched for the shards' exploration files; FILE is one.
Nothing is written unless every file reads. It prints the merged tests as heddle test prints
its tests, in go test's format.

Flags:
`

// cmdMerge combines the results of heddle test -shard i/n (suite.Merge).
func cmdMerge(args []string) int {
	fs := flag.NewFlagSet("heddle merge", flag.ContinueOnError)
	out := fs.String("out", record.ResultDir, "results directory to write the merged explorations to")
	verbose := fs.Bool("v", false, "print every merged test, with its statistics, as heddle test -v does")
	jsonOut := fs.Bool("json", false, "print test2json's events, as heddle test -json does")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), mergeUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitUsage
	}
	code, err := suite.Merge(os.Stdout, os.Stderr, fs.Args(), *out, *verbose, *jsonOut)
	if err != nil {
		fmt.Fprintln(os.Stderr, "heddle merge:", err)
		return exitUsage
	}
	return code
}
