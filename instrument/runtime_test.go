package instrument

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
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
	cmd := exec.Command("go", "build", ".", "./rt/...", "./harness/...", "./explorer/...", "./worker", "./timeline/...", "./locktree/...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the extracted runtime does not build: %v\n%s", err, out)
	}
}

// TestBuildRealRuntime builds the test modules against heddle's own runtime
// and runs the binaries outside a controlled run, where rt must behave like
// the standard packages. (Runs under the scheduler go through the worker
// protocol of package harness, which the explorer's tests drive.)
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
