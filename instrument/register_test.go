package instrument

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHarnessLinks checks that Runtime covers every package of heddle's module that
// the harness links: one it missed would be instrumented, and its tests would not build under
// heddle (an import cycle through the harness).
func TestHarnessLinks(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", workerPath).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", workerPath, err)
	}
	var links []string
	for _, p := range strings.Fields(string(out)) {
		if p == modulePath || strings.HasPrefix(p, modulePath+"/") {
			links = append(links, p)
		}
	}
	if len(links) == 0 {
		t.Fatalf("go list -deps %s lists no package of %s", workerPath, modulePath)
	}
	for _, p := range links {
		if !Runtime(p) {
			t.Errorf("the harness links %s, which Runtime does not cover", p)
		}
	}
}

// TestBuildRuntimePackage builds the tests of a package that the harness links: its internal
// tests are registered from the external test package, and the binary builds and lists the
// worker test.
func TestBuildRuntimePackage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with the go command")
	}
	res, err := Build(context.Background(), Config{Dir: "..", Packages: []string{"./locktree"}, Test: true})
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(res.WorkDir)
	if len(res.Binaries) != 1 {
		t.Fatalf("binaries %v, failed %v; want locktree's test", res.Binaries, res.Failed)
	}
	out, err := exec.Command(res.Binaries[0].Path, "-test.list", ".").Output()
	if err != nil {
		t.Fatalf("%s -test.list: %v", res.Binaries[0].Path, err)
	}
	if !strings.Contains(string(out), "TestHeddleWorker") {
		t.Errorf("the test binary lists %q, without the worker test", out)
	}
	files, _ := filepath.Glob(filepath.Join(res.WorkDir, "src", "*zz_heddle_register_x_test.go"))
	if len(files) != 1 {
		t.Fatalf("external registration files %v, want one", files)
	}
	src, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), `Register("TestFigure5", heddle__pkg.TestFigure5)`) {
		t.Errorf("the registration does not register locktree's internal test TestFigure5:\n%s", src)
	}
}

// TestBuildOwnDependency builds a package of heddle's own module that depends on a module it
// always instruments (x/tools' go/packages imports x/sync's errgroup): the rewritten files of
// that module are read from a copy, since the go command refuses an overlay of files beneath
// GOMODCACHE, and heddle's module needs a go.mod of its own that points there.
func TestBuildOwnDependency(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with the go command")
	}
	res, err := Build(context.Background(), Config{Dir: "..", Packages: []string{"./instrument"}})
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(res.WorkDir)
	if len(res.Failed) != 0 {
		t.Fatalf("failed: %v", res.Failed)
	}
	gomod, err := os.ReadFile(filepath.Join(res.WorkDir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(gomod), "golang.org/x/sync =>") {
		t.Errorf("the build's go.mod does not replace x/sync with its instrumented copy:\n%s", gomod)
	}
}
