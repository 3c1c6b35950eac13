package suite

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/record"
)

// TestMerge merges the shards' explorations of a test by calling Merge, as heddle merge does:
// the bug that one shard found is the merged test's, the runs add up, and the search is
// complete only if every shard's is and every shard is there; a missing shard makes the exit
// code a usage error's.
func TestMerge(t *testing.T) {
	bug := record.Bug{ID: 0, Kind: "deadlock", Message: "all goroutines are asleep", Key: "deadlock|x.go:3", Hits: 2}
	for _, tc := range []struct {
		name     string
		shards   []int // the shards given, of 2
		bugs     [][]record.Bug
		code     int
		verdict  string // the line Merge prints of the test
		runs     int
		complete bool
	}{
		{"clean", []int{0, 1}, [][]record.Bug{nil, nil}, ExitOK, "ok  \texample.com/p", 6, true},
		{"bug", []int{0, 1}, [][]record.Bug{nil, {bug}}, ExitBug, "--- FAIL: TestX", 6, true},
		{"missing", []int{1}, [][]record.Bug{nil}, ExitUsage, "ok  \texample.com/p", 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, out := t.TempDir(), t.TempDir()
			for i, s := range tc.shards {
				e := &record.Exploration{Heddle: "exploration", Version: record.Version, Program: record.Program{Package: "example.com/p", Test: "TestX"},
					Strategy: "dfs", Shard: &record.Shard{Index: s, Of: 2}, Tree: []record.Node{}, Bugs: tc.bugs[i], Stats: record.Stats{Runs: 3, Complete: true}}
				if e.Bugs == nil {
					e.Bugs = []record.Bug{}
				}
				dir := record.TestDir(record.ShardDir(in, s, 2), "example.com/p", "TestX")
				if err := record.WriteFile(filepath.Join(dir, record.ExplorationFile), e); err != nil {
					t.Fatal(err)
				}
			}
			var stdout, stderr strings.Builder
			code, err := Merge(&stdout, &stderr, []string{in}, out, false, false)
			if err != nil || code != tc.code {
				t.Fatalf("Merge = %d, %v; want %d", code, err, tc.code)
			}
			if wantErr := map[bool]string{true: "heddle merge: example.com/p TestX: missing shard 0/2\n"}[len(tc.shards) < 2]; stderr.String() != wantErr {
				t.Errorf("standard error = %q, want %q", stderr.String(), wantErr)
			}
			if !strings.Contains(stdout.String(), tc.verdict) {
				t.Errorf("Merge printed\n%s\nwant a line %q", stdout.String(), tc.verdict)
			}
			v, err := record.ReadFile(filepath.Join(record.TestDir(out, "example.com/p", "TestX"), record.ExplorationFile))
			if err != nil {
				t.Fatal(err)
			}
			e := v.(*record.Exploration)
			if e.Stats.Runs != tc.runs || e.Stats.Complete != tc.complete || len(e.Bugs) != len(tc.bugs[len(tc.bugs)-1]) {
				t.Errorf("merged: %d runs, complete %v, %d bugs; want %d, %v, %d", e.Stats.Runs, e.Stats.Complete, len(e.Bugs), tc.runs, tc.complete, len(tc.bugs[len(tc.bugs)-1]))
			}
		})
	}
}
