package instrument

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// cacheBuild builds the test binaries of every package of the module at dir against the
// passthrough runtime, with the rewrite cache in cacheDir, and returns the result and the
// overlay by the files it replaces, read relative to dir.
func cacheBuild(t *testing.T, dir, cacheDir string) (*Result, map[string]string) {
	t.Helper()
	rtDir, err := passthroughRuntime()
	if err != nil {
		t.Fatal(err)
	}
	res, err := Build(context.Background(), Config{Dir: dir, Packages: []string{"./..."}, Test: true, Runtime: rtDir,
		Env: append(os.Environ(), cacheEnv+"="+cacheDir)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(res.WorkDir) })
	if len(res.Failed) > 0 {
		t.Fatalf("packages failed: %v", res.Failed)
	}
	data, err := os.ReadFile(filepath.Join(res.WorkDir, "overlay.json"))
	if err != nil {
		t.Fatal(err)
	}
	var overlay struct{ Replace map[string]string }
	if err := json.Unmarshal(data, &overlay); err != nil {
		t.Fatal(err)
	}
	files := make(map[string]string)
	for name, dst := range overlay.Replace {
		content, err := os.ReadFile(dst)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(dir, name)
		if err != nil || strings.HasPrefix(rel, "..") {
			rel = name // the runtime's list of the standard library
		}
		files[filepath.ToSlash(rel)] = string(content)
	}
	for _, bin := range res.Binaries {
		if !bin.NoTestFiles {
			run(t, bin.Dir, bin.Path)
		}
	}
	return res, files
}

// copyTestModule copies the module testdata/mod/name into a new temporary directory.
func copyTestModule(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "mod", name))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCacheRewrites builds a module, builds it again unchanged, and then after each edit of
// one file, and checks which packages each build rewrote: none when nothing changed, and the
// edited file's package and those that import it, directly or not, after an edit. Every
// build's overlay holds what a build without the cache would have: the first build's, but for
// the file edited.
func TestCacheRewrites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with the go command")
	}
	const mod = "example.com/layers"
	dir := copyTestModule(t, "layers")
	cacheDir := t.TempDir()
	first, want := cacheBuild(t, dir, cacheDir)
	all := []string{mod + "/alone", mod + "/base", mod + "/mid", mod + "/top"}
	if got := slices.Sorted(slices.Values(first.Rewritten)); !slices.Equal(got, all) {
		t.Fatalf("first build rewrote %v, want %v", got, all)
	}
	for _, tc := range []struct {
		name string
		edit string // the file edited, "" for none
		want []string
	}{
		{"unchanged", "", nil},
		{"leaf", "base/base.go", []string{mod + "/base", mod + "/mid", mod + "/top"}},
		{"again", "", nil},
		{"middle test", "mid/mid_test.go", []string{mod + "/mid"}},
		{"top", "top/top.go", []string{mod + "/top"}},
		{"independent", "alone/alone.go", []string{mod + "/alone"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.edit != "" {
				name := filepath.Join(dir, tc.edit)
				src, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				src = append(src, "\n// Edited by "+t.Name()+".\n"...)
				if err := os.WriteFile(name, src, 0o666); err != nil {
					t.Fatal(err)
				}
			}
			res, got := cacheBuild(t, dir, cacheDir)
			if rewritten := slices.Sorted(slices.Values(res.Rewritten)); !slices.Equal(rewritten, tc.want) {
				t.Errorf("rewrote %v, want %v", rewritten, tc.want)
			}
			for name, content := range got {
				if w, ok := want[name]; !ok {
					t.Errorf("overlay has %s, which the first build's had not", name)
				} else if content != w && name != tc.edit {
					t.Errorf("overlay's %s differs from the first build's:\n%s\nwant:\n%s", name, content, w)
				} else if name == tc.edit {
					if content == w {
						t.Errorf("overlay's %s is the first build's, from before the edit", name)
					}
					want[name] = content
				}
			}
			for name := range want {
				if _, ok := got[name]; !ok {
					t.Errorf("overlay lacks %s", name)
				}
			}
		})
	}
}

// TestCacheCorrupt damages the entries of a build's cache, each differently, and checks that
// the next build takes none of them, rewrites their packages into the same overlay and stores
// whole entries again.
func TestCacheCorrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds with the go command")
	}
	dir := copyTestModule(t, "layers")
	cacheDir := t.TempDir()
	first, want := cacheBuild(t, dir, cacheDir)
	var entries []string
	filepath.WalkDir(cacheDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, "-r") {
			entries = append(entries, p)
		}
		return err
	})
	// The packages' entries and the standard library's list.
	if len(entries) != len(first.Rewritten)+1 {
		t.Fatalf("cache holds %d entries, want %d", len(entries), len(first.Rewritten)+1)
	}
	damage := []func([]byte) []byte{
		func(b []byte) []byte { return b[:len(b)/2] },                                      // half written
		func(b []byte) []byte { return nil },                                               // empty
		func(b []byte) []byte { b[len(b)-2] ^= 1; return b },                               // a bit flipped in the content
		func(b []byte) []byte { return []byte(strings.Replace(string(b), "v1", "v0", 1)) }, // another format
		func(b []byte) []byte { return []byte("not an entry") },
	}
	for i, name := range entries {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, damage[i%len(damage)](data), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	second, got := cacheBuild(t, dir, cacheDir)
	if !slices.Equal(slices.Sorted(slices.Values(second.Rewritten)), slices.Sorted(slices.Values(first.Rewritten))) {
		t.Errorf("after damage, rewrote %v, want %v", second.Rewritten, first.Rewritten)
	}
	for name, content := range want {
		if got[name] != content {
			t.Errorf("after damage, overlay's %s is:\n%s\nwant:\n%s", name, got[name], content)
		}
	}
	third, _ := cacheBuild(t, dir, cacheDir)
	if len(third.Rewritten) > 0 {
		t.Errorf("the build after the damaged one rewrote %v, want nothing", third.Rewritten)
	}
}
