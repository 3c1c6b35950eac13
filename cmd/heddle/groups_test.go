package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/internal/golden"
)

// TestGroups runs heddle run -group and heddle test -group on the process groups of
// testdata/groups (programs, and test binaries for reqreplytests): the buggy group
// must reveal its bug across processes, with a report that shows every process's goroutines
// (the golden file, without times and run counts), its saved schedule must reproduce the bug
// on every one of 100 replays of heddle replay, and the fixed twin must report nothing. The
// buggy group's search stops at its first bug (-stop), so that the report, interleaving
// included, depends on the seed alone.
func TestGroups(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores process groups")
	}
	dir, _ := filepath.Abs("../../testdata/groups")
	for _, c := range []struct {
		name string
		// cmd is run for groups of programs, test for groups of test binaries.
		cmd        string
		bug, fixed []string
		kind       string
		// fixedBudget bounds the twin's search, whose state space is too large to finish.
		fixedBudget string
	}{
		{name: "reqreply", cmd: "run", bug: []string{"./reqreply/server", "./reqreply/client"},
			fixed: []string{"./reqreplyfixed/server", "./reqreply/client"}, kind: "deadlock", fixedBudget: "60s"},
		{name: "philosophers", cmd: "run", bug: []string{"./philosophers/p1", "./philosophers/p2", "./philosophers/p3"},
			fixed: []string{"./philosophersfixed/p1", "./philosophersfixed/p2", "./philosophersfixed/p3"}, kind: "deadlock", fixedBudget: "300"},
		{name: "reqreplytests", cmd: "test", bug: []string{"./reqreplytests/server", "./reqreplytests/client"},
			fixed: []string{"./reqreplytestsfixed/server", "./reqreplytests/client"}, kind: "deadlock", fixedBudget: "60s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			stdout, stderr, code := heddle(t, dir, append([]string{c.cmd, "-group", "-stop", "-out", out, "-budget", "60s"}, c.bug...)...)
			if code != exitBug {
				t.Fatalf("heddle %s -group %s: exit %d, want %d\n%s%s", c.cmd, strings.Join(c.bug, " "), code, exitBug, stdout, stderr)
			}
			// The interleaving stays: its columns grouped by process are part of what is checked.
			report := strings.NewReplacer(heddleBin, "heddle", out, "$OUT", dir, "$DIR").Replace(stdout)
			report = durations.ReplaceAllString(counted(report), "T")
			golden.Check(t, filepath.Join(dir, c.name, "heddle.golden"), report)
			m := regexp.MustCompile(`schedule: (\S+)`).FindStringSubmatch(stdout)
			if m == nil || !strings.Contains(m[1], c.kind) {
				t.Fatalf("no %s schedule in the report:\n%s", c.kind, stdout)
			}
			stdout, stderr, code = heddle(t, dir, "replay", "-count", "100", m[1])
			if want := "reproduced 100/100 (verdict " + c.kind + "), identical 100/100"; code != exitBug || !strings.Contains(stdout, want) {
				t.Errorf("heddle replay -count 100 %s: exit %d, want %d and %q\n%s%s", m[1], code, exitBug, want, stdout, stderr)
			}
			stdout, stderr, code = heddle(t, dir, append([]string{c.cmd, "-group", "-out", t.TempDir(), "-budget", c.fixedBudget}, c.fixed...)...)
			if code != exitOK {
				t.Errorf("the fixed twin: exit %d, want %d\n%s%s", code, exitOK, stdout, stderr)
			}
		})
	}
}
