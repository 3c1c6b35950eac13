package instrument

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestRuntimeSource checks that the extracted runtime is a module that
// builds on its own, at its declared go version.
func TestRuntimeSource(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with the go command")
	}
	dir, err := RuntimeSource()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"go.mod", "rt/doc.go", "rt/sync/api.go", "rt/time/api.go"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("runtime lacks %s: %v", f, err)
		}
	}
	if again, err := RuntimeSource(); err != nil || again != dir {
		t.Errorf("RuntimeSource again = %q, %v; want %q", again, err, dir)
	}
	// Package lin is left out: it imports Porcupine, which the runtime module does not
	// require (so that every instrumented build stays offline); a module that uses lin
	// requires Porcupine itself, as the kernels' module does (TestKernels builds it).
	cmd := exec.Command("go", "build", ".", "./rt/...", "./worker/...", "./explorer/...", "./wire", "./record/...", "./locktree/...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the extracted runtime does not build: %v\n%s", err, out)
	}
}

// TestBuildRealRuntime builds the test modules against heddle's own runtime
// and runs the binaries outside a controlled run, where rt must behave like
// the standard packages. (Runs under the scheduler go through the worker
// protocol of package worker, which the explorer's tests drive.)
func TestBuildRealRuntime(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with the go command")
	}
	for _, c := range []struct {
		dir  string
		test bool
	}{{"basic", false}, {"tests", true}, {"positions", false}} {
		res, err := Build(context.Background(), Config{
			Dir:      filepath.Join("testdata", "mod", c.dir),
			Packages: []string{"./..."},
			Test:     c.test,
		})
		if err != nil {
			t.Errorf("%s: %v", c.dir, err)
			continue
		}
		dir := filepath.Join("testdata", "mod", c.dir)
		switch c.dir {
		case "basic":
			if got, want := run(t, dir, res.Binaries[0].Path), run(t, dir, "go", "run", "."); got != want {
				t.Errorf("instrumented program printed:\n%s\nwant:\n%s", got, want)
			}
		case "tests":
			for _, bin := range res.Binaries {
				run(t, dir, bin.Path)
			}
		}
		os.RemoveAll(res.WorkDir)
	}
}

// TestTrimRuntimes checks that extracting the runtime deletes the runtimes of earlier heddles
// unused for trimAge, and what an interrupted extraction left an hour ago, and keeps a runtime
// used recently and an extraction in progress.
func TestTrimRuntimes(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	root := filepath.Join(cache, "heddle")
	now := time.Now()
	entries := []struct {
		name string
		age  time.Duration
		kept bool
	}{
		{"rt-0000000000000001", trimAge + time.Hour, false},
		{"rt-0000000000000002", trimAge - time.Hour, true},
		{"tmp-rt-123", 2 * time.Hour, false},
		{"tmp-rt-456", time.Minute, true},
		{"rewrite", trimAge + time.Hour, true}, // the rewrite cache trims itself
	}
	for _, e := range entries {
		dir := filepath.Join(root, e.name)
		if err := os.MkdirAll(filepath.Join(dir, "rt"), 0o777); err != nil {
			t.Fatal(err)
		}
		// Extracted files are read-only.
		if err := os.WriteFile(filepath.Join(dir, "rt", "a.go"), []byte("package rt\n"), 0o444); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(dir, now.Add(-e.age), now.Add(-e.age)); err != nil {
			t.Fatal(err)
		}
	}
	dir, err := extractRuntime()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(dir) != root {
		t.Fatalf("runtime extracted to %s, want it in %s", dir, root)
	}
	for _, e := range entries {
		_, err := os.Stat(filepath.Join(root, e.name))
		if kept := err == nil; kept != e.kept {
			t.Errorf("%s (unused for %v): kept %v, want %v", e.name, e.age, kept, e.kept)
		}
	}
	// The runtime in use is marked as used, so that another heddle keeps it.
	old := now.Add(-trimAge)
	if err := os.Chtimes(dir, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := extractRuntime(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.ModTime().After(old.Add(time.Hour)) {
		t.Errorf("the runtime in use was not marked as used: modified %v", fi.ModTime())
	}
}
