package instrument

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// realModules are mature, dependency-light modules whose own tests pass under go test with
// this toolchain (github.com/cenkalti/backoff/v4 v4.3.0, for one, no longer does: go vet's
// tests check rejects an example). Their versions are pinned so that the test sees the same
// code every time.
var realModules = []string{
	"golang.org/x/sync@v0.24.0",
	"github.com/hashicorp/golang-lru/v2@v2.0.7",
}

// TestRealModules instruments every package of real modules, with their tests and example
// files, and builds one test binary per package against heddle's own runtime: the rewriter must
// produce valid, well-typed Go for code it was not written for (errgroup's md5all example
// once ended a select's switch header early, and semaphore's tests once ran errgroup's
// goroutines uninstrumented). The modules come from the module proxy, as go test would fetch
// them.
func TestRealModules(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads modules and builds them with the go command")
	}
	for _, mod := range realModules {
		t.Run(strings.ReplaceAll(mod, "/", "_"), func(t *testing.T) {
			out, err := exec.Command("go", "mod", "download", "-json", mod).Output()
			if err != nil {
				t.Fatalf("go mod download %s: %v", mod, err)
			}
			var info struct{ Dir, Error string }
			if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
				t.Fatalf("go mod download %s: %v %s", mod, err, info.Error)
			}
			dir := filepath.Join(t.TempDir(), "mod")
			if err := os.CopyFS(dir, os.DirFS(info.Dir)); err != nil {
				t.Fatal(err)
			}
			list := exec.Command("go", "list", "./...")
			list.Dir = dir
			pkgs, err := list.Output()
			if err != nil {
				t.Fatalf("go list: %v", err)
			}
			res, err := Build(context.Background(), Config{Dir: dir, Packages: []string{"./..."}, Test: true})
			if err != nil {
				t.Fatalf("instrumenting %s: %v", mod, err)
			}
			defer os.RemoveAll(res.WorkDir)
			built := map[string]bool{}
			for _, b := range res.Binaries {
				built[b.Package] = true
			}
			for _, p := range strings.Fields(string(pkgs)) {
				if !built[p] {
					t.Errorf("%s: no test binary for %s", mod, p)
				}
			}
		})
	}
}
