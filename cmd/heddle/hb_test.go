package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heddledbg/heddle/driver"
	"github.com/heddledbg/heddle/instrument"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/suite"
	"github.com/heddledbg/heddle/wire"
)

// The programs of testdata/hb, one package per primitive that rt replaces, and what each
// shows. TestBug of each has a race that go test -race reports, TestFixed none.
var hbPrograms = []struct{ pkg, shows string }{
	{"counter", "n++ by two goroutines joined by a WaitGroup; fixed by a channel semaphore"},
	{"field", "a struct field written by two goroutines; fixed: different fields"},
	{"funcvalue", "a func value replaced while it is called"},
	{"mutex", "a write after Unlock; fixed: under Lock"},
	{"rlock", "c.hits++ under RLock; fixed: under Lock"},
	{"rwmutex", "RUnlock does not order RLock; Unlock orders RLock"},
	{"rlockatomic", "an atomic add and a plain read under RLock; fixed: atomic counter under RLock"},
	{"atomic", "atomic.AddUint64 against a plain copy of the struct"},
	{"atomicflag", "an atomic store orders what precedes it before the load that sees it"},
	{"semaphore", "a buffered channel as a semaphore: capacity 2 admits both"},
	{"chansend", "a send happens before its receive completes"},
	{"chanrecv", "the receive of an unbuffered channel happens before the send completes"},
	{"chanclose", "a close happens before the receive that sees it"},
	{"selects", "a select's communication orders as a plain one"},
	{"waitgroup", "every Done happens before Wait returns"},
	{"once", "Once's function happens before every Do returns"},
	{"cond", "Cond orders nothing by itself"},
	{"syncmap", "a Store happens before the Load that returns its value"},
	{"context", "cancel happens before <-ctx.Done() returns"},
	{"ctxsiblings", "sibling contexts cancelled by several goroutines: heddle's bookkeeping stays unseen"},
	{"afterfunc", "setting a timer happens before its function runs"},
	{"timer", "Reset happens before the receive of the tick"},
	{"gostmt", "a go statement happens before the goroutine starts"},
	{"exit", "a goroutine's exit orders nothing"},
}

// hbCount is how many times go test -race runs each program: its detector reports a pair of
// racing accesses once per process, and TestBug's race is in every run.
const hbCount = 20

// TestHappensBefore runs every program of testdata/hb under heddle, with default settings, and
// under go test -race -count=hbCount, and requires both to report TestBug's race and to leave
// TestFixed alone.
func TestHappensBefore(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the happens-before programs twice")
	}
	dir, _ := filepath.Abs("../../testdata/hb")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	var listed []string
	for _, p := range hbPrograms {
		listed = append(listed, p.pkg)
	}
	slices.Sort(listed)
	if !slices.Equal(dirs, listed) {
		t.Fatalf("testdata/hb has %q, the table %q", dirs, listed)
	}
	goFailed := make(chan map[string]bool, 1)
	go func() { goFailed <- goTestRace(t, dir, hbCount) }()
	res, err := instrument.Build(context.Background(), instrument.Config{Dir: dir, Packages: []string{"./..."}, Test: true, BuildFlags: suite.WithRace(nil, true)})
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(res.WorkDir)
	gorace, err := suite.RaceEnv(res.WorkDir)
	if err != nil {
		t.Fatal(err)
	}
	heddle := map[string]string{}
	for _, bin := range res.Binaries {
		w := &driver.Worker{Path: bin.Path, Dir: bin.Dir, Args: wire.TestArgs(true),
			Env: []string{wire.EnvPackage + "=" + bin.Package, gorace}}
		for _, test := range []string{"TestBug", "TestFixed"} {
			f := explore(t, w, test, rt.TimeQuantum)
			var kinds []string
			for _, b := range f.bugs {
				kinds = append(kinds, b.Kind+": "+b.Message)
			}
			heddle[path.Base(bin.Package)+"."+test] = strings.Join(kinds, "; ")
		}
	}
	failed := <-goFailed
	for _, p := range hbPrograms {
		t.Run(p.pkg, func(t *testing.T) {
			for _, test := range []string{"TestBug", "TestFixed"} {
				key := p.pkg + "." + test
				h, g := heddle[key], failed[key]
				want := test == "TestBug"
				if g != want {
					t.Errorf("%s: go test -race -count=%d failed: %v, want %v (%s)", test, hbCount, g, want, p.shows)
				}
				if got := strings.HasPrefix(h, "race: ") && !strings.Contains(h, "; "); got != want {
					t.Errorf("%s: heddle found %q, want a race: %v (%s)", test, h, want, p.shows)
				}
			}
		})
	}
}

// goTestRace runs go test -race -count=n on pkgs in dir (every package if none) and returns
// the tests that failed in any run, as "package.Test" by the package's last element.
func goTestRace(t *testing.T, dir string, n int, pkgs ...string) map[string]bool {
	if len(pkgs) == 0 {
		pkgs = []string{"./..."}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	failed := map[string]bool{}
	// TestBug and TestFixed run in processes of their own: a race of TestBug's whose second
	// access comes late (a goroutine that writes after its Done) is reported during the test
	// that runs then, and a loaded machine made that TestFixed once.
	for _, sel := range [][]string{{"-run", "^TestBug$"}, {"-run", "^TestFixed$"}, {"-skip", "^(TestBug|TestFixed)$"}} {
		args := append([]string{"test", "-race", "-json", fmt.Sprintf("-count=%d", n)}, sel...)
		cmd := exec.CommandContext(ctx, "go", append(args, pkgs...)...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil && len(out) == 0 {
			t.Errorf("go test -race %s: %v", strings.Join(sel, " "), err)
		}
		for _, line := range bytes.Split(out, []byte("\n")) {
			var e struct{ Action, Package, Test string }
			if json.Unmarshal(line, &e) == nil && e.Action == "fail" && e.Test != "" {
				failed[path.Base(e.Package)+"."+e.Test] = true
			}
		}
	}
	return failed
}
