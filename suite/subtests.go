package suite

import (
	"slices"
	"strings"

	"github.com/heddledbg/heddle/record"
)

// A subtestResult is a subtest as go test reports it under its test: its name, "PASS",
// "FAIL" or "SKIP", its level under the test (1 for TestX/sub), and a skip's log.
type subtestResult struct {
	test, status string
	depth        int
	output       string
}

// subtestResults says how each subtest of test ended across the exploration, in the order in
// which the runs first started them (started): failed if a bug's run ended in it or in one of
// its own subtests (failedIn), as go test fails a subtest's parents with it; else skipped if it
// skipped itself in a run (skips), or heddle left it out; else passed.
func subtestResults(test string, started []string, skips []record.Skip, failedIn []string) []subtestResult {
	// An exploration file written before subtests were recorded names only the skips. (Clip:
	// the appends must not write into the caller's array.)
	started = slices.Clip(started)
	for _, k := range skips {
		if !slices.Contains(started, k.Test) {
			started = append(started, k.Test)
		}
	}
	var subs []subtestResult
	for _, name := range started {
		sub := subtestResult{test: name, status: "PASS", depth: 1 + strings.Count(strings.TrimPrefix(name, test+"/"), "/")}
		if slices.ContainsFunc(failedIn, func(f string) bool { return f == name || strings.HasPrefix(f, name+"/") }) {
			sub.status = "FAIL"
		} else if i := slices.IndexFunc(skips, func(k record.Skip) bool { return k.Test == name }); i >= 0 {
			sub.status, sub.output = "SKIP", skips[i].Output
		}
		subs = append(subs, sub)
	}
	return subs
}

// failedIn returns the subtests in which the bugs' runs ended.
func failedIn(bugs []*record.Trace) []string {
	var in []string
	for _, t := range bugs {
		if t != nil && t.Verdict.Subtest != "" {
			in = append(in, t.Verdict.Subtest)
		}
	}
	return in
}
