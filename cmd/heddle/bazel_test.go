package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/record"
)

// TestBazelShards runs a kernel's search as a Bazel sh_test with shard_count = 3
// (testdata/bazel), under dfs and under the default strategy: Bazel runs the three shards,
// each heddle test takes its share from TEST_TOTAL_SHARDS and TEST_SHARD_INDEX and touches
// TEST_SHARD_STATUS_FILE, and heddle merge of their results gives the unsharded search's bugs
// (and, under dfs, its runs). Bazel 4 cannot fetch its default external repositories offline;
// the stubs in testdata/bazel/stubs stand in for them (they build nothing a test uses).
func TestBazelShards(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Bazel")
	}
	bazel, err := exec.LookPath("bazel")
	if err != nil {
		t.Skip("SKIPPED, NOTHING WAS TESTED: bazel is not installed (scripts/test.sh installs Debian's bazel-bootstrap)")
	}
	ws, err := filepath.Abs("testdata/bazel")
	if err != nil {
		t.Fatal(err)
	}
	kernels, err := filepath.Abs("../../testdata/kernels")
	if err != nil {
		t.Fatal(err)
	}
	const path, pkg = "example.com/kernels/threelockcycle", "./threelockcycle"
	root, out := t.TempDir(), t.TempDir()
	startup := []string{"--output_user_root=" + root, "--max_idle_secs=30"}
	defer exec.Command(bazel, append(startup, "shutdown")...).Run()
	env := []string{"HEDDLE=" + heddleBin, "KERNELS=" + kernels, "OUT=" + out, "PATH", "HOME"}
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT", "GOPROXY", "GOFLAGS"} {
		value, _ := exec.Command("go", "env", v).Output()
		env = append(env, v+"="+strings.TrimSpace(string(value)))
	}
	// No convenience symlinks in the source tree: they would point into this test's temporary directory.
	args := append(startup, "test", "--symlink_prefix=/", "--spawn_strategy=local", "--test_output=errors", "--test_timeout=600")
	for _, s := range []string{"remote_coverage_tools", "rules_cc", "rules_java"} {
		args = append(args, "--override_repository="+s+"="+filepath.Join(ws, "stubs", s))
	}
	for _, e := range env {
		args = append(args, "--test_env="+e)
	}
	for _, strategy := range []string{"dfs", "portfolio"} {
		t.Run(strategy, func(t *testing.T) {
			whole := t.TempDir()
			heddle(t, kernels, "test", "-strategy", strategy, "-run", "TestBug|TestFixed", "-out", whole, pkg)
			cmd := exec.Command(bazel, append(slices.Clone(args), "//:"+strategy)...)
			cmd.Dir = ws
			var log bytes.Buffer
			cmd.Stdout, cmd.Stderr = &log, &log
			err := cmd.Run()
			// A shard whose share holds TestBug's deadlock fails, as a failed go test would:
			// Bazel then exits 3, "build OK, but some tests failed".
			if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 3) {
				t.Fatalf("bazel test //:%s: %v\n%s", strategy, err, log.String())
			}
			t.Logf("bazel test //:%s:\n%s", strategy, log.String())
			merged := filepath.Join(out, strategy)
			shards := filepath.Join(out, "shards-"+strategy)
			for i := range 3 {
				dir := record.ShardDir(out, i, 3)
				if _, err := os.Stat(dir); err != nil {
					t.Fatalf("shard %d of 3 left no results: %v", i, err)
				}
				os.MkdirAll(shards, 0o755)
				if err := os.Rename(dir, filepath.Join(shards, filepath.Base(dir))); err != nil {
					t.Fatal(err)
				}
			}
			if stdout, stderr, code := heddle(t, kernels, "merge", "-out", merged, shards); code != exitBug {
				t.Fatalf("merge: exit %d, want %d\n%s\n%s", code, exitBug, stdout, stderr)
			}
			for _, test := range []string{"TestBug", "TestFixed"} {
				want := readExploration(t, filepath.Join(record.TestDir(whole, path, test), record.ExplorationFile))
				got := readExploration(t, filepath.Join(record.TestDir(merged, path, test), record.ExplorationFile))
				if g, w := explorationKeys(got), explorationKeys(want); !slices.Equal(g, w) {
					t.Errorf("%s: merged bugs %v, want the unsharded search's %v", test, g, w)
				}
				if (len(want.Bugs) == 0) != (test == "TestFixed") {
					t.Errorf("%s: unsharded, %d bugs: only the fixed twin should have none", test, len(want.Bugs))
				}
				if strategy == "dfs" && !slices.Equal(leafPaths(got), leafPaths(want)) {
					t.Errorf("%s: merged %d runs, want the unsharded search's %d", test, len(leafPaths(got)), len(leafPaths(want)))
				}
			}
		})
	}
}
