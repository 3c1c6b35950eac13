package suite

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heddledbg/heddle/record"
)

// TestKeepTest checks the bounds of a test's results directory: the latest exploration's
// files are kept first (its exploration file always, then its bugs' traces from the simplest
// schedule), then the newest of the other files, and what the bounds leave no room for is
// removed.
func TestKeepTest(t *testing.T) {
	type file struct {
		name string
		size int
		age  int // hours; the latest exploration's files are 0
	}
	latest := []current{
		{path: "deadlock-1" + record.TraceSuffix, simplicity: record.Simplicity{Replayable: true, Preemptions: 3}, trace: true},
		{path: "leak-2" + record.TraceSuffix, simplicity: record.Simplicity{Replayable: true, Preemptions: 1}, trace: true},
		{path: "warning-atomicity-1.schedule.json"},
		{path: record.ExplorationFile},
	}
	files := []file{
		{"deadlock-1" + record.TraceSuffix, 400, 0},
		{"leak-2" + record.TraceSuffix, 300, 0},
		{"warning-atomicity-1.schedule.json", 100, 0},
		{record.ExplorationFile, 1000, 0},
		{"fatal-3.trace.json", 200, 5}, // an earlier version's, plain
		{"explore-panic-1" + record.TraceSuffix, 100, 1},
		{".deadlock-1.trace.json.gz.123", 999999, 0}, // a write in progress
	}
	for _, tc := range []struct {
		name     string
		maxFiles int
		maxBytes int64
		want     []string // kept, besides the write in progress
		dropped  []string // of the latest exploration's
	}{
		{"no bound", 0, 0, []string{"deadlock-1", "leak-2", "warning", "exploration", "fatal-3", "explore-panic-1"}, nil},
		{"room for all", 20, 10 << 20, []string{"deadlock-1", "leak-2", "warning", "exploration", "fatal-3", "explore-panic-1"}, nil},
		{"files: the newest old one", 5, 0, []string{"deadlock-1", "leak-2", "warning", "exploration", "explore-panic-1"}, nil},
		{"files: the simplest bug", 2, 0, []string{"leak-2", "exploration"}, []string{"deadlock-1", "warning"}},
		{"bytes", 0, 1800, []string{"deadlock-1", "leak-2", "warning", "exploration"}, nil},
		{"bytes: the simplest bug, and what fits", 0, 1450, []string{"leak-2", "warning", "exploration"}, []string{"deadlock-1"}},
		{"the exploration whatever its size", 1, 10, []string{"exploration"}, []string{"deadlock-1", "leak-2", "warning"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			now := time.Now()
			for _, f := range files {
				p := filepath.Join(dir, f.name)
				if err := os.WriteFile(p, make([]byte, f.size), 0o644); err != nil {
					t.Fatal(err)
				}
				mt := now.Add(-time.Duration(f.age) * time.Hour)
				os.Chtimes(p, mt, mt)
			}
			wrote := slices.Clone(latest)
			for i := range wrote {
				wrote[i].path = filepath.Join(dir, wrote[i].path)
			}
			dropped, err := keepTest(dir, wrote, tc.maxFiles, tc.maxBytes)
			if err != nil {
				t.Fatal(err)
			}
			ents, _ := os.ReadDir(dir)
			var kept []string
			for _, e := range ents {
				if !strings.HasPrefix(e.Name(), ".") {
					kept = append(kept, short(e.Name()))
				}
			}
			if len(ents) == len(kept) {
				t.Error("the write in progress was removed")
			}
			want := slices.Sorted(slices.Values(tc.want))
			if slices.Sort(kept); !slices.Equal(kept, want) {
				t.Errorf("kept %v, want %v", kept, want)
			}
			var gotDropped []string
			for _, p := range dropped {
				gotDropped = append(gotDropped, short(filepath.Base(p)))
			}
			slices.Sort(gotDropped)
			if !slices.Equal(gotDropped, tc.dropped) {
				t.Errorf("dropped %v, want %v", gotDropped, tc.dropped)
			}
		})
	}
}

// short is a result file's name up to its first dot or digit's dash: deadlock-1, warning.
func short(name string) string {
	name, _, _ = strings.Cut(name, ".")
	if strings.HasPrefix(name, "warning-") {
		return "warning"
	}
	return name
}

// TestKeepOut checks the bound of the whole results directory: the oldest files of earlier
// runs go first, with the directories they leave empty, and this run's files stay.
func TestKeepOut(t *testing.T) {
	out := t.TempDir()
	now := time.Now()
	write := func(rel string, size int, age time.Duration) string {
		p := filepath.Join(out, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, now.Add(-age), now.Add(-age))
		return p
	}
	write("example.com/a/TestOld/deadlock-1.trace.json", 500, 3*time.Hour)
	write("example.com/a/TestOld/exploration.json", 100, 3*time.Hour)
	write("example.com/b/TestMid/exploration.json", 300, 2*time.Hour)
	this := write("example.com/c/TestNow/exploration.json", 2000, 0)
	removed, freed, err := keepOut(out, map[string]bool{filepath.Clean(this): true}, 2300)
	if err != nil {
		t.Fatal(err)
	}
	if removed != 2 || freed != 600 {
		t.Errorf("removed %d files, %d bytes; want 2, 600", removed, freed)
	}
	for rel, want := range map[string]bool{"example.com/a": false, "example.com/b/TestMid/exploration.json": true, "example.com/c/TestNow/exploration.json": true} {
		if _, err := os.Stat(filepath.Join(out, rel)); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", rel, err == nil, want)
		}
	}
	// This run's files stay, even over the bound.
	if removed, _, _ := keepOut(out, map[string]bool{filepath.Clean(this): true}, 1); removed != 1 {
		t.Errorf("removed %d files, want 1: every file but this run's", removed)
	}
	if _, err := os.Stat(this); err != nil {
		t.Errorf("this run's file removed: %v", err)
	}
}

// TestByteSize checks the sizes -keep-bytes and -keep-out-bytes take.
func TestByteSize(t *testing.T) {
	for in, want := range map[string]int64{"10MB": 10 << 20, "512kb": 512 << 10, "1GB": 1 << 30, "4096": 4096, "0": 0, "7B": 7} {
		var b byteSize
		if err := b.Set(in); err != nil || int64(b) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, b, err, want)
		}
	}
	for _, in := range []string{"", "ten", "-1MB", "1.5MB"} {
		var b byteSize
		if err := b.Set(in); err == nil {
			t.Errorf("Set(%q) succeeded", in)
		}
	}
	if b := byteSize(200 << 20); b.String() != "200MB" {
		t.Errorf("String() = %q, want 200MB", b.String())
	}
}
