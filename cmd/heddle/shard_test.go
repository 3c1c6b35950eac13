package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heddledbg/heddle/driver"
	"github.com/heddledbg/heddle/instrument"
	"github.com/heddledbg/heddle/internal/golden"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/suite"
	"github.com/heddledbg/heddle/wire"
)

// heddleEnv runs heddle in dir with extra environment variables.
func heddleEnv(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(heddleBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// TestShardTranscripts runs heddle test -shard and heddle merge on the many package and
// compares what they print with golden files; the steps share one results directory, in
// order: three shards, their merge (in text, with -v and with -json, as heddle test prints
// its tests), a merge with a shard missing, and bad input.
func TestShardTranscripts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores a test module")
	}
	wd, _ := os.Getwd()
	dir := "testdata/mixed"
	out := t.TempDir()
	// An earlier version's plain exploration file, which merge reads as it reads compressed ones.
	corrupt := filepath.Join(t.TempDir(), "shard-0-of-2", "x", "TestX", record.PlainExplorationFile)
	os.MkdirAll(filepath.Dir(corrupt), 0o755)
	os.WriteFile(corrupt, []byte(`{"heddle": "exploration", "version": 1, "stats": {`), 0o644)
	status := filepath.Join(t.TempDir(), "status")
	for _, tc := range []struct {
		name string // the golden file's, or empty for a step without one
		env  []string
		args []string
		code int
		// check, if set, checks the results directory after the step.
		check func(t *testing.T)
	}{
		{"shard-0", nil, []string{"test", "-out", out, "-shard", "0/3", "./many"}, exitBug, nil},
		{"shard-1", nil, []string{"test", "-out", out, "-shard", "1/3", "./many"}, exitBug, nil},
		{"", []string{"TEST_TOTAL_SHARDS=3", "TEST_SHARD_INDEX=2", "TEST_SHARD_STATUS_FILE=" + status}, []string{"test", "-out", out, "./many"}, exitBug, func(t *testing.T) {
			if _, err := os.Stat(status); err != nil {
				t.Errorf("Bazel's status file: %v", err)
			}
			if _, err := os.Stat(filepath.Join(record.ShardDir(out, 2, 3), "example.com/mixed/many/TestLeak", record.ExplorationFile)); err != nil {
				t.Errorf("shard 2/3 from Bazel's environment: %v", err)
			}
		}},
		{"merge", nil, []string{"merge", "-out", out, out}, exitBug, nil},
		{"merge-v", nil, []string{"merge", "-v", "-out", filepath.Join(out, "v"), out}, exitBug, nil},
		{"merge-json", nil, []string{"merge", "-json", "-out", filepath.Join(out, "json"), out}, exitBug, nil},
		{"merge-missing", nil, []string{"merge", "-out", filepath.Join(out, "partial"), record.ShardDir(out, 0, 3), record.ShardDir(out, 2, 3)}, exitBug, nil},
		{"merge-corrupt", nil, []string{"merge", "-out", filepath.Join(out, "corrupt"), corrupt}, exitUsage, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(out, "corrupt")); err == nil {
				t.Errorf("merge of a corrupt file wrote results")
			}
		}},
		{"merge-unsharded", nil, []string{"merge", filepath.Join(out, "example.com/mixed/many/TestLeak", record.ExplorationFile)}, exitUsage, nil},
		{"bad-flag", nil, []string{"test", "-shard", "3/3", "./many"}, exitUsage, nil},
		{"bad-bazel", []string{"TEST_TOTAL_SHARDS=3", "TEST_SHARD_INDEX=three"}, []string{"test", "./many"}, exitUsage, nil},
		{"bad-job", []string{"JOB_COMPLETION_INDEX=4"}, []string{"test", "./many"}, exitUsage, nil},
		{"bad-job-total", []string{"JOB_COMPLETION_INDEX=4", "HEDDLE_SHARDS=4"}, []string{"test", "./many"}, exitUsage, nil},
	} {
		stdout, stderr, code := heddleEnv(t, dir, tc.env, tc.args...)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d\n%s\n%s", strings.Join(tc.args, " "), code, tc.code, stdout, stderr)
		}
		if tc.check != nil {
			tc.check(t)
		}
		if tc.name == "" {
			continue
		}
		if strings.HasPrefix(tc.name, "bad-") {
			// The flag package's usage text after the error is help's golden file.
			stderr, _, _ = strings.Cut(stderr, "usage:")
		}
		if strings.HasSuffix(tc.name, "-json") {
			checkTest2JSON(t, stdout)
			stdout = normalizeEvents(t, stdout)
		}
		got := normalize(stdout+"--- stderr\n"+stderr, out, filepath.Join(wd, dir))
		got = strings.ReplaceAll(got, filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(corrupt)))), "$TMP")
		golden.Check(t, filepath.Join("testdata", "shard", tc.name+".golden"), got)
	}
}

// TestShardMerge: the merge of n shards' results of heddle test equals the unsharded
// exploration's: for dfs the same runs (the leaves of the schedule tree, by their paths) and
// for every strategy the same bugs, whose merged traces replay; a kernel's fixed twin stays
// silent.
func TestShardMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores a test module")
	}
	for _, tc := range []struct {
		dir, path, strategy, run string
		exact                    bool // the merged runs are the unsharded exploration's
	}{
		{"testdata/mixed", "example.com/mixed/many", "dfs", "TestLeak", true},
		{"testdata/mixed", "example.com/mixed/many", "dpor", "TestLeak|TestLostUpdate", false},
		{"../../testdata/kernels", "example.com/kernels/threelockcycle", "dfs", "TestBug|TestFixed", true},
		{"../../testdata/kernels", "example.com/kernels/threelockcycle", "dpor", "TestBug|TestFixed", false},
	} {
		dir, path := tc.dir, tc.path
		pkg := "./" + filepath.Base(path)
		t.Run(filepath.Base(path)+"/"+tc.strategy, func(t *testing.T) {
			whole := t.TempDir()
			heddle(t, dir, "test", "-strategy", tc.strategy, "-run", tc.run, "-out", whole, pkg)
			for _, n := range []int{2, 3} {
				out := t.TempDir()
				for i := range n {
					args := []string{"test", "-strategy", tc.strategy, "-run", tc.run, "-out", out, "-shard", strconv.Itoa(i) + "/" + strconv.Itoa(n), pkg}
					if i == 1 {
						args = append(args, "-workers", "2") // a shard split among workers too
					}
					if _, stderr, code := heddle(t, dir, args...); code != exitBug && code != exitOK {
						t.Fatalf("shard %d/%d: exit %d\n%s", i, n, code, stderr)
					}
				}
				if stdout, stderr, code := heddle(t, dir, "merge", "-out", out, out); code != exitBug && code != exitOK {
					t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, stderr)
				}
				for _, test := range strings.Split(tc.run, "|") {
					want := readExploration(t, filepath.Join(record.TestDir(whole, path, test), record.ExplorationFile))
					got := readExploration(t, filepath.Join(record.TestDir(out, path, test), record.ExplorationFile))
					if !got.Stats.Complete {
						t.Errorf("%d shards, %s: merged search not complete", n, test)
					}
					if g, w := explorationKeys(got), explorationKeys(want); !slices.Equal(g, w) {
						t.Errorf("%d shards, %s: bugs %v, want %v", n, test, g, w)
					}
					if (len(want.Bugs) == 0) != (test == "TestFixed") {
						t.Errorf("%s: unsharded, %d bugs: only the fixed twin should have none", test, len(want.Bugs))
					}
					gl, wl := leafPaths(got), leafPaths(want)
					if complete := got.Stats.Runs - got.Stats.Aborted - got.Stats.Elsewhere - got.Stats.Diverged; complete != len(gl) {
						t.Errorf("%d shards, %s: %d complete runs counted, %d leaves", n, test, complete, len(gl))
					}
					if tc.exact && !slices.Equal(gl, wl) {
						t.Errorf("%d shards, %s: %d runs, want the unsharded exploration's %d", n, test, len(gl), len(wl))
					}
					for _, b := range got.Bugs {
						replays(t, dir, pkg, test, filepath.Join(record.TestDir(out, path, test), b.Trace), b.Kind)
					}
				}
			}
		})
	}
}

// replays replays the merged trace of a bug of test in package pkg 100 times, in the test's
// instrumented binary, and checks that every replay ends in the bug.
func replays(t *testing.T, dir, pkg, test, trace, kind string) {
	t.Helper()
	v, err := record.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	tr, ok := v.(*record.Trace)
	if !ok {
		t.Fatalf("%s is not a trace", trace)
	}
	abs, _ := filepath.Abs(dir)
	res, err := instrument.Build(context.Background(), instrument.Config{Dir: abs, Packages: []string{pkg}, Test: true, BuildFlags: suite.WithRace(nil, true)})
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(res.WorkDir)
	gorace, err := suite.RaceEnv(res.WorkDir)
	if err != nil {
		t.Fatal(err)
	}
	bin := res.Binaries[0]
	w := &driver.Worker{Path: bin.Path, Dir: bin.Dir, Args: wire.TestArgs(true), Env: []string{wire.EnvPackage + "=" + bin.Package, gorace}}
	s := tr.Schedule()
	for i := range 100 {
		got, err := driver.Replay(context.Background(), w, test, s, wire.Options{})
		if err != nil {
			t.Fatalf("%s: replay %d: %v", trace, i, err)
		}
		if string(got.Verdict.Kind) != kind {
			t.Fatalf("%s: replay %d: verdict %s (%s), want %s", trace, i, got.Verdict.Kind, got.Verdict.Message, kind)
		}
	}
}

func readExploration(t testing.TB, path string) *record.Exploration {
	t.Helper()
	v, err := record.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	e, ok := v.(*record.Exploration)
	if !ok {
		t.Fatalf("%s is not an exploration", path)
	}
	return e
}

func explorationKeys(e *record.Exploration) []string {
	var ks []string
	for _, b := range e.Bugs {
		ks = append(ks, b.Key)
	}
	slices.Sort(ks)
	return ks
}

// leafPaths returns the path of every leaf of an exploration's tree, sorted: the schedule of
// each complete run, as the steps the run chose.
func leafPaths(e *record.Exploration) []string {
	byID := map[int]record.Node{}
	for _, n := range e.Tree {
		byID[n.ID] = n
	}
	var paths []string
	for _, n := range e.Tree {
		if n.Leaf == nil {
			continue
		}
		var p []string
		for m := n; m.Parent >= 0; m = byID[m.Parent] {
			p = append(p, m.G+" "+m.Op+" "+m.Obj)
		}
		slices.Reverse(p)
		paths = append(paths, strings.Join(p, " | "))
	}
	slices.Sort(paths)
	return paths
}

// BenchmarkShards measures the wall time of an exhaustive exploration (dfs of the many
// package's TestLostUpdate, 5,775 runs) made by n shards, run as n heddle test processes at
// once on this machine, against one process (n=1), and then of heddle merge. Each process
// builds the test binary itself (from the build cache after the first), as each CI job would.
// Metrics: merge-ms, the merge's wall time; runs, the runs of all shards (the splitting's
// overhead is what exceeds n=1's).
func BenchmarkShards(b *testing.B) {
	dir := "testdata/mixed"
	// -hang 60s: n processes on 2 cores can stall a goroutine in testing's code for longer
	// than the default tenth of 10s that makes heddle give up on a test.
	args := []string{"test", "-strategy", "dfs", "-run", "TestLostUpdate", "-budget", "10m", "-hang", "60s"}
	for _, n := range []int{1, 2, 3, 4, 7} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			var merge time.Duration
			runs := 0
			for range b.N {
				out := b.TempDir()
				errs := make(chan error, n)
				for i := range n {
					a := append(slices.Clone(args), "-out", out, "./many")
					if n > 1 {
						a = append(a, "-shard", strconv.Itoa(i)+"/"+strconv.Itoa(n))
					}
					go func() {
						cmd := exec.Command(heddleBin, a...)
						cmd.Dir = dir
						msg, err := cmd.CombinedOutput()
						if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == exitBug {
							err = nil
						}
						if err != nil {
							err = fmt.Errorf("%s: %v\n%s", strings.Join(a, " "), err, msg)
						}
						errs <- err
					}()
				}
				for range n {
					if err := <-errs; err != nil {
						b.Fatal(err)
					}
				}
				if n > 1 {
					b.StopTimer()
					start := time.Now()
					cmd := exec.Command(heddleBin, "merge", "-out", out, out)
					if err := cmd.Run(); err != nil {
						if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitBug {
							b.Fatal(err)
						}
					}
					merge += time.Since(start)
					b.StartTimer()
				}
				e := readExploration(b, filepath.Join(record.TestDir(out, "example.com/mixed/many", "TestLostUpdate"), record.ExplorationFile))
				if !e.Stats.Complete {
					b.Fatalf("%d shards: merged search not complete", n)
				}
				runs = e.Stats.Runs
			}
			b.ReportMetric(float64(merge.Milliseconds())/float64(b.N), "merge-ms")
			b.ReportMetric(float64(runs), "runs")
		})
	}
}
