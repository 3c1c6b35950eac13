package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/suite"
)

// cmdReplay replays a schedule or trace file and prints its interleaving (suite.Replay).
func cmdReplay(args []string) int {
	fs := flag.NewFlagSet("heddle replay", flag.ContinueOnError)
	out := fs.String("o", "", "write the replayed trace to `file`")
	dir := fs.String("C", "", "build the schedule's package in `dir` (default: where it was recorded)")
	race := fs.Bool("race", true, suite.RaceUsage)
	count := fs.Int("count", 1, "replay `n` times and say how many replays reproduced the schedule's verdict")
	// -v is accepted as in heddle test, where users type it out of habit; replay always
	// prints the whole interleaving, so it changes nothing.
	fs.Bool("v", false, "accepted for symmetry with heddle test; replay always prints the whole interleaving")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: heddle replay [-count n] [-v] [-o trace.json] [-C dir] [-race=false] FILE\n\nReplays the schedule saved in FILE (a .heddle file printed by heddle test) and prints its interleaving.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		// Asked for: on stdout, and no error, as heddle test -h.
		fs.SetOutput(os.Stdout)
		fs.Usage()
		return exitOK
	} else if err != nil {
		return exitUsage
	}
	if fs.NArg() != 1 {
		if fs.NArg() == 0 {
			fmt.Fprintln(os.Stderr, "heddle replay: no schedule file given")
		} else {
			fmt.Fprintf(os.Stderr, "heddle replay: want one schedule file, got %d\n", fs.NArg())
		}
		fs.Usage()
		return exitUsage
	}
	path := fs.Arg(0)
	s, err := record.ReadSchedule(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "heddle:", err)
		return exitUsage
	}
	if *count < 1 {
		fmt.Fprintf(os.Stderr, "heddle replay: -count %d: want 1 or more\n", *count)
		return exitUsage
	}
	if s.Program.Package == "" || s.Program.Test == "" {
		fmt.Fprintf(os.Stderr, "heddle: %s: \"program\" must name the package and the test to replay\n", path)
		return exitUsage
	}
	ctx, cancel := interruptible()
	defer cancel()
	var output bytes.Buffer
	trs, err := suite.Replay(ctx, os.Stderr, &output, path, s, *dir, *race, *count)
	if err != nil {
		fmt.Fprintln(os.Stderr, "heddle:", err)
		return exitUsage
	}
	return reportReplay(s, trs, output.String(), *out)
}

// reportReplay prints the first replay of schedule s, what the program printed in it, its
// verdict, and how many of the replays reproduced the schedule's verdict.
func reportReplay(s *record.Schedule, trs []*record.Trace, output, out string) int {
	tr := trs[0]
	if len(trs) > 1 {
		same := 0
		for _, t := range trs {
			if t.Verdict.Kind == tr.Verdict.Kind && t.Verdict.Message == tr.Verdict.Message && len(t.Events) == len(tr.Events) {
				same++
			}
		}
		want := tr.Verdict.Kind
		if s.Verdict != nil {
			want = s.Verdict.Kind
		}
		reproduced := 0
		for _, t := range trs {
			if t.Verdict.Kind == want {
				reproduced++
			}
		}
		defer fmt.Printf("reproduced %d/%d (verdict %s), identical %d/%d\n", reproduced, len(trs), want, same, len(trs))
	}
	fmt.Printf("replaying %s %s (%d decisions)\n\n", s.Program.Package, s.Program.Test, len(s.Decisions))
	suite.PrintInterleaving(os.Stdout, tr, "", true)
	fmt.Println()
	if output != "" {
		fmt.Println("output of the program:")
		for _, l := range strings.Split(strings.TrimSuffix(output, "\n"), "\n") {
			fmt.Println("    " + l)
		}
		fmt.Println()
	}
	if out != "" {
		if err := record.WriteFile(out, tr); err != nil {
			fmt.Fprintln(os.Stderr, "heddle:", err)
			return exitUsage
		}
	}
	switch tr.Verdict.Kind {
	case "diverged":
		fmt.Fprintf(os.Stderr, "heddle: the replay diverged from the schedule: %s\n", tr.Verdict.Message)
		return exitUsage
	case "ok":
		fmt.Println("verdict: ok")
		if s.Verdict != nil && s.Verdict.Kind != "ok" {
			fmt.Printf("the schedule was recorded with verdict %s; it did not reproduce\n", s.Verdict.Kind)
		}
		return exitOK
	}
	fmt.Printf("verdict: %s: %s\n", tr.Verdict.Kind, tr.Verdict.Message)
	for _, g := range tr.Verdict.Goroutines {
		fmt.Printf("  %-8s %s\n", g.ID, tr.State(g))
		for _, fr := range g.Stack {
			fmt.Printf("             %s\n                 %s:%d\n", fr.Func, fr.File, fr.Line)
		}
	}
	suite.PrintHistory(os.Stdout, tr.Verdict.History, "")
	return exitBug
}
