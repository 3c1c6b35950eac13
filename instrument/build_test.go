package instrument

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// passthroughRuntime returns a copy of the runtime module whose core package
// rt and worker are the plain-Go stand-ins of testdata/passthrough: the
// shadow packages are the real ones. Programs built against it must behave
// exactly like their uninstrumented selves.
var passthroughRuntime = sync.OnceValues(func() (string, error) {
	real, err := RuntimeSource()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "heddle-passthrough-")
	if err != nil {
		return "", err
	}
	err = filepath.WalkDir(real, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(real, p)
		// Keep the shadow packages; drop rt's own files and the harness.
		if filepath.Dir(rel) == "rt" || filepath.Dir(rel) == "worker" || filepath.Dir(rel) == "." && rel != "go.mod" {
			return nil
		}
		return copyFile(p, filepath.Join(dir, rel))
	})
	if err != nil {
		return "", err
	}
	for _, f := range []string{"rt/rt.go", "worker/worker.go"} {
		if err := copyFile(filepath.Join("testdata", "passthrough", f), filepath.Join(dir, f)); err != nil {
			return "", err
		}
	}
	return dir, nil
})

func TestMain(m *testing.M) {
	// The tests' builds keep their rewrites apart from the user's.
	cacheDir, err := os.MkdirTemp("", "heddle-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv(cacheEnv, cacheDir)
	code := m.Run()
	os.RemoveAll(cacheDir)
	if dir, err := passthroughRuntime(); err == nil {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o666)
}

// build instruments and builds cfg against the passthrough runtime, cfg.Dir
// naming a module of testdata/mod.
func build(t *testing.T, cfg Config) *Result {
	t.Helper()
	rtDir, err := passthroughRuntime()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Dir = filepath.Join("testdata", "mod", cfg.Dir)
	cfg.Runtime = rtDir
	res, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(res.WorkDir) })
	return res
}

func run(t *testing.T, dir, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	return string(out)
}

// TestBuildRun builds a program that exercises every rewritten construct
// with and without instrumentation, and compares their output.
func TestBuildRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with the go command")
	}
	dir := filepath.Join("testdata", "mod", "basic")
	want := run(t, dir, "go", "run", ".")
	res := build(t, Config{Dir: "basic", Packages: []string{"."}})
	if len(res.Binaries) != 1 {
		t.Fatalf("got %d binaries, want 1", len(res.Binaries))
	}
	if got := run(t, dir, res.Binaries[0].Path); got != want {
		t.Errorf("instrumented program printed:\n%s\nwant:\n%s", got, want)
	}
	// The overlay rewrote the main module's packages, not the dependency
	// outside it.
	overlay, err := os.ReadFile(filepath.Join(res.WorkDir, "overlay.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"main.go", "q.go", "zz_heddle_main.go"} {
		if !strings.Contains(string(overlay), want) {
			t.Errorf("overlay lacks %s:\n%s", want, overlay)
		}
	}
	if strings.Contains(string(overlay), "dep.go") {
		t.Errorf("overlay instruments the dependency outside the main module:\n%s", overlay)
	}
}

// TestBuildTests builds a package with internal and external tests, a
// TestMain and a test file behind a build tag, and checks that the worker test runs every test registered with
// the harness. A package of the module that only a test imports is instrumented too.
func TestBuildTests(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with the go command")
	}
	res := build(t, Config{Dir: "tests", Packages: []string{".", "./xonly"}, Test: true, Tags: []string{"heddletag"}})
	if len(res.Binaries) != 2 {
		t.Fatalf("got %v, want two test binaries", res.Binaries)
	}
	overlay, err := os.ReadFile(filepath.Join(res.WorkDir, "overlay.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(overlay), "testonly.go") {
		t.Errorf("overlay lacks testonly.go, which the tests of xonly import:\n%s", overlay)
	}
	want := map[string][]string{
		"example.com/tests":       {"TestInternal", "TestTable", "TestExternal", "TestMainRan", "TestTagged"},
		"example.com/tests/xonly": {"TestOnlyExternal"},
	}
	for _, bin := range res.Binaries {
		out := run(t, filepath.Join("testdata", "mod", "tests"), bin.Path, "-test.run=^TestHeddleWorker$", "-test.v")
		for _, name := range want[bin.Package] {
			if !strings.Contains(out, "--- PASS: TestHeddleWorker/"+name+" ") {
				t.Errorf("%s: worker did not run %s:\n%s", bin.Package, name, out)
			}
		}
		if n := len(regexp.MustCompile(`(?m)^=== RUN   TestHeddleWorker/[^/\s]+$`).FindAllString(out, -1)); n != len(want[bin.Package]) {
			t.Errorf("%s: worker ran %d tests, want %d:\n%s", bin.Package, n, len(want[bin.Package]), out)
		}
		// The tests also pass when run directly, instrumented.
		run(t, filepath.Join("testdata", "mod", "tests"), bin.Path)
	}
}

// TestPositions checks that runtime.Caller and panics report the original
// file and line after rewritten statements. Each line of the program that
// reports its position ends with a comment "// line".
func TestPositions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with the go command")
	}
	dir := filepath.Join("testdata", "mod", "positions")
	src, err := filepath.Abs(filepath.Join(dir, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	for n, s := 1, bufio.NewScanner(f); s.Scan(); n++ {
		if strings.HasSuffix(s.Text(), "// line") {
			want = append(want, src+":"+strconv.Itoa(n))
		}
	}
	f.Close()

	// Built as for the debugger, without optimizations or inlining.
	res := build(t, Config{Dir: "positions", Packages: []string{"."}, BuildFlags: []string{"-gcflags=all=-N -l"}})
	cmd := exec.Command(res.Binaries[0].Path)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("program should panic; err = %v\n%s", err, out)
	}
	got := regexp.MustCompile(`(?m)^at (\S+)$`).FindAllStringSubmatch(string(out), -1)
	if len(got) != len(want)-1 {
		t.Fatalf("program reported %d positions, want %d:\n%s", len(got), len(want)-1, out)
	}
	for i, g := range got {
		if g[1] != want[i] {
			t.Errorf("position %d: got %s, want %s", i, g[1], want[i])
		}
	}
	// The last marked line panics; the traceback names it.
	if last := want[len(want)-1]; !strings.Contains(string(out), "\t"+last+" ") {
		t.Errorf("panic traceback lacks %s:\n%s", last, out)
	}
}

// TestBuildErrors checks the errors for a package that does not compile and
// for a package that does not exist.
func TestBuildErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with the go command")
	}
	rtDir, err := passthroughRuntime()
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(context.Background(), Config{Dir: filepath.Join("testdata", "mod", "bad"), Packages: []string{"."}, Runtime: rtDir})
	var be *BuildError
	if !errors.As(err, &be) {
		t.Fatalf("got %v, want a *BuildError", err)
	}
	for _, want := range []string{"bad.go:9:", "undefined: missing"} {
		if !strings.Contains(be.Output, want) {
			t.Errorf("compiler output lacks %q:\n%s", want, be.Output)
		}
	}

	_, err = Build(context.Background(), Config{Dir: filepath.Join("testdata", "mod", "basic"), Packages: []string{"./nosuchpkg"}, Runtime: rtDir})
	if err == nil || !strings.Contains(err.Error(), "nosuchpkg") {
		t.Errorf("got %v, want an error naming the missing package", err)
	}
}

// TestBuildModules builds modules whose go.mod the instrumented build must handle, and runs
// each program built with and without instrumentation:
//   - vendored: a module with a vendor directory;
//   - oldgo: a go.mod older than module graph pruning (go 1.17), which lists only its direct
//     requirements: raised to the runtime's version for the instrumented build, it must
//     require the others too, or the go command refuses it ("updates to go.mod needed",
//     soheilhy/cmux's go 1.11).
func TestBuildModules(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with the go command")
	}
	for _, mod := range []string{"vendored", "oldgo"} {
		t.Run(mod, func(t *testing.T) {
			dir := filepath.Join("testdata", "mod", mod)
			want := run(t, dir, "go", "run", ".")
			res := build(t, Config{Dir: mod, Packages: []string{"."}})
			if got := run(t, dir, res.Binaries[0].Path); got != want {
				t.Errorf("instrumented program printed %q, want %q", got, want)
			}
		})
	}
}
