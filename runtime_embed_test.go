package heddle_test

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/heddledbg/heddle"
	"github.com/heddledbg/heddle/rt"
)

// TestRuntimePackages checks that rt.RuntimePackages, the one list of heddle's packages linked
// into programs under test, names exactly the packages whose source runtime_embed.go's
// //go:embed line puts in RuntimeFS:
// every package in RuntimeFS is one of them, every one of them is in RuntimeFS, and no other
// package of the module is one.
func TestRuntimePackages(t *testing.T) {
	embedded := goDirs(t, heddle.RuntimeFS)
	for _, d := range embedded {
		if !rt.RuntimePackage(pkgOf(d)) {
			t.Errorf("%s is embedded in RuntimeFS but not one of rt.RuntimePackages", pkgOf(d))
		}
	}
	for _, p := range rt.RuntimePackages {
		dir, _ := strings.CutSuffix(p, "/...")
		if dir == "" {
			dir = "."
		}
		if !slices.Contains(embedded, dir) {
			t.Errorf("rt.RuntimePackages lists %q, whose source RuntimeFS does not hold", p)
		}
	}
	for _, d := range goDirs(t, os.DirFS(".")) {
		if rt.RuntimePackage(pkgOf(d)) && !slices.Contains(embedded, d) {
			t.Errorf("%s is one of rt.RuntimePackages but RuntimeFS does not embed it", pkgOf(d))
		}
	}
}

func pkgOf(dir string) string {
	if dir == "." {
		return rt.ModulePath
	}
	return rt.ModulePath + "/" + dir
}

// goDirs returns the directories of fsys that hold a package's non-test Go files, outside
// testdata and the directories the go command ignores.
func goDirs(t *testing.T, fsys fs.FS) []string {
	var dirs []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return fs.SkipDir
			}
			if p != "." {
				if _, err := fs.Stat(fsys, path.Join(p, "go.mod")); err == nil {
					return fs.SkipDir // another module
				}
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			dir := path.Dir(p)
			if !slices.Contains(dirs, dir) {
				dirs = append(dirs, dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(filepath.FromSlash(err.Error()))
	}
	return dirs
}
