package instrument

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/tools/go/packages"
)

// The rewrite cache keeps the rewriter's output across builds, as the go command's build cache
// keeps compiled packages: a second build of unchanged sources rewrites nothing and skips the
// type-checking load that rewriting needs, and a change to one file rewrites only its package
// and the packages that depend on it.
//
// An entry holds what rewriting one package added to the overlay (its rewritten files, and for
// a package under test the files that register its tests) and its warnings. Its key is a hash
// of everything the output depends on: the heddle executable (the rewriter's code and the
// embedded runtime), the go command's version, GOROOT and build environment, the build flags
// and tags, and the package's own key. A package's key hashes its import path, its files'
// names and contents, its module's go version (the language the type checker applies) and the
// keys of the packages it imports, so that a change anywhere below a package, which may change
// its types, changes its key. Files in the module cache are immutable: those packages are
// keyed by their module's path and version and their files' names. The standard library is
// keyed by the go command's version and GOROOT.
//
// The cache lives in HEDDLECACHE, or the heddle directory of the user's cache directory
// (os.UserCacheDir); HEDDLECACHE=off turns it off. Entries are written to a temporary file and
// renamed into place, so a reader sees a whole entry or none; each carries a hash of its
// content, and one that does not match (a corrupt or truncated file) is a miss, rewritten by
// the build. A build that uses an entry sets its modification time (at most once an hour),
// and once a day a build deletes the entries unused for trimAge, as the go command trims its
// own cache.
//
// The cache also holds the copies of modules of the module cache whose packages are rewritten
// (the go command takes no overlay of the module cache's files), one per module version, so
// that every build compiles them from the same place and the go command's build cache keeps
// them; a copy unused for trimAge is deleted whole.

// cacheEnv names the environment variable that sets the cache's directory.
const cacheEnv = "HEDDLECACHE"

const (
	// cacheVersion changes with the format of entries and keys.
	cacheVersion = "heddle rewrite cache v1"
	// trimAge is how long an unused entry is kept.
	trimAge = 5 * 24 * time.Hour
	// trimInterval is how often a build looks for unused entries.
	trimInterval = 24 * time.Hour
	// touchInterval is how stale an entry's modification time may get before a use renews it.
	touchInterval = time.Hour
)

// A cache is a directory of rewritten packages. The zero cache (dir empty) is off: it misses
// and keeps nothing.
type cache struct {
	dir string
}

// openCache returns the cache named by the environment env (HEDDLECACHE), else the one in the
// user's cache directory.
func openCache(env []string) cache {
	dir := lookupEnv(env, cacheEnv)
	switch {
	case dir == "off":
		return cache{}
	case dir != "":
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		return cache{dir: dir}
	}
	user, err := os.UserCacheDir()
	if err != nil {
		return cache{}
	}
	return cache{dir: filepath.Join(user, "heddle", "rewrite")}
}

// lookupEnv returns the last value of key in env, as exec.Cmd would use it.
func lookupEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

// A cacheEntry is what rewriting one package added to the build.
type cacheEntry struct {
	Files    []cachedFile // overlay files, in the order they were added
	Warnings []string
	// ModulePath and Module are the package's module and its directory in the module cache
	// if the package's rewritten files reach the overlay from there (builder.cached).
	ModulePath, Module string `json:",omitempty"`
}

// A cachedFile is a file that the build gives the go command in place of, or beside, the
// user's file Name.
type cachedFile struct {
	Name    string
	Content []byte
}

type cacheKey [sha256.Size]byte

func (k cacheKey) String() string { return hex.EncodeToString(k[:]) }

func (c cache) file(k cacheKey) string {
	s := k.String()
	return filepath.Join(c.dir, s[:2], s+"-r")
}

// get returns the entry of key k, and whether there is a valid one.
func (c cache) get(k cacheKey) (*cacheEntry, bool) {
	if c.dir == "" {
		return nil, false
	}
	name := c.file(k)
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, false
	}
	body, ok := checkEntry(data)
	if !ok {
		return nil, false
	}
	var e cacheEntry
	if err := json.Unmarshal(body, &e); err != nil {
		return nil, false
	}
	if fi, err := os.Stat(name); err == nil && time.Since(fi.ModTime()) > touchInterval {
		now := time.Now()
		os.Chtimes(name, now, now) // only trimming reads the time: a failure costs an entry
	}
	return &e, true
}

// checkEntry returns the body of the stored entry data if its hash matches.
func checkEntry(data []byte) ([]byte, bool) {
	header, body, ok := bytes.Cut(data, []byte("\n"))
	if !ok {
		return nil, false
	}
	version, sum, ok := strings.Cut(string(header), "\t")
	if !ok || version != cacheVersion {
		return nil, false
	}
	got := sha256.Sum256(body)
	return body, sum == hex.EncodeToString(got[:])
}

// put stores e as the entry of key k. The cache is an optimization: a failure to store an
// entry is not the build's.
func (c cache) put(k cacheKey, e *cacheEntry) {
	if c.dir == "" {
		return
	}
	body, err := json.Marshal(e)
	if err != nil {
		return
	}
	sum := sha256.Sum256(body)
	data := fmt.Appendf(nil, "%s\t%x\n", cacheVersion, sum)
	c.write(c.file(k), append(data, body...))
}

// write writes data to name through a temporary file in the same directory renamed into
// place, so that no reader sees a partial file.
func (c cache) write(name string, data []byte) {
	if err := os.MkdirAll(filepath.Dir(name), 0o777); err != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(name), "tmp-")
	if err != nil {
		return
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		os.Remove(f.Name())
	}
}

// moduleCopy returns the cache's copy of module path, at dir in the module cache, for
// instrumented builds (builder.copyCached), making it if needed; "" if the cache is off. A copy
// at the same place in every build lets the go command's build cache keep the module's
// compiled packages, which name their source files. A copy is made beside its final place and
// renamed, so that no build sees a partial one.
func (c cache) moduleCopy(path, dir string) (string, error) {
	if c.dir == "" {
		return "", nil
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\nmodule %q %q go %s\n", cacheVersion, path, dir, runtimeGo))
	dst := filepath.Join(c.dir, "mod", hex.EncodeToString(sum[:8]))
	if fi, err := os.Stat(dst); err == nil {
		if time.Since(fi.ModTime()) > touchInterval {
			now := time.Now()
			os.Chtimes(dst, now, now)
		}
		return dst, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
		return "", fmt.Errorf("instrument: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), "tmp-")
	if err != nil {
		return "", fmt.Errorf("instrument: %w", err)
	}
	defer os.RemoveAll(tmp) // after a successful rename, there is nothing there
	if err := copyModule(filepath.Join(tmp, "m"), path, dir); err != nil {
		return "", err
	}
	if err := os.Rename(filepath.Join(tmp, "m"), dst); err != nil {
		if _, statErr := os.Stat(dst); statErr != nil {
			return "", fmt.Errorf("instrument: %w", err) // not another build's copy
		}
	}
	return dst, nil
}

// trim deletes the entries unused for trimAge, and temporary files left by interrupted
// writes, if it has not done so for trimInterval.
func (c cache) trim(now time.Time) {
	if c.dir == "" {
		return
	}
	mark := filepath.Join(c.dir, "trim.txt")
	if fi, err := os.Stat(mark); err == nil && now.Sub(fi.ModTime()) < trimInterval {
		return
	}
	// Mark first: of builds that start together, one trims.
	c.write(mark, fmt.Appendf(nil, "%d\n", now.Unix()))
	mods := filepath.Join(c.dir, "mod")
	filepath.WalkDir(c.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == mark {
			return nil
		}
		if d.IsDir() {
			if filepath.Dir(p) != mods {
				return nil
			}
			// A module's copy goes whole: its directory's time is its last use.
			if fi, err := d.Info(); err == nil && now.Sub(fi.ModTime()) > trimAge {
				os.RemoveAll(p)
			}
			return filepath.SkipDir
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		age := now.Sub(fi.ModTime())
		if strings.HasPrefix(d.Name(), "tmp-") && age > touchInterval || age > trimAge {
			os.Remove(p)
		}
		return nil
	})
}

// executableHash returns a hash of the running executable, which holds the rewriter and the
// runtime it rewrites onto: a new heddle never uses an older one's entries.
var executableHash = sync.OnceValues(func() ([]byte, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	f, err := os.Open(exe)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
})

// A keyer computes the keys of a build's packages.
type keyer struct {
	global []byte              // the hash of what every entry depends on
	memo   map[string]cacheKey // package ID → key
	err    error               // the first file that could not be read
}

// key returns the key of package p (see the comment at the top of the file).
func (k *keyer) key(p *packages.Package) cacheKey {
	if key, ok := k.memo[p.ID]; ok {
		return key
	}
	h := sha256.New()
	fmt.Fprintf(h, "package %q %q %q\n", p.ID, p.PkgPath, p.Name)
	if m := p.Module; m != nil {
		if m.Replace != nil {
			m = m.Replace
		}
		fmt.Fprintf(h, "module %q %q %q\n", m.Path, m.Version, m.GoVersion)
		for _, name := range p.GoFiles {
			fmt.Fprintf(h, "file %q\n", name)
			if m.Version != "" {
				continue // in the module cache, which never changes a file
			}
			data, err := os.ReadFile(name)
			if err != nil && k.err == nil {
				k.err = err
			}
			sum := sha256.Sum256(data)
			h.Write(sum[:])
		}
	}
	imports := make([]string, 0, len(p.Imports))
	for path := range p.Imports {
		imports = append(imports, path)
	}
	slices.Sort(imports)
	for _, path := range imports {
		sub := k.key(p.Imports[path])
		fmt.Fprintf(h, "import %q %x\n", path, sub)
	}
	var key cacheKey
	h.Sum(key[:0])
	k.memo[p.ID] = key
	return key
}

// unitKey returns the key of the entry of the package at path, made of the packages of pkgs
// (the package, and for a package under test its test variants).
func (k *keyer) unitKey(path string, root bool, pkgs []*packages.Package) cacheKey {
	h := sha256.New()
	h.Write(k.global)
	fmt.Fprintf(h, "unit %q root=%v\n", path, root)
	for _, p := range pkgs {
		key := k.key(p)
		h.Write(key[:])
	}
	var key cacheKey
	h.Sum(key[:0])
	return key
}

// unitKeys returns the cache keys of the packages at paths that the cache may hold, graph
// being the build's packages and their dependencies: none if the cache is off, and none of a
// package that the go command reported errors for.
func (b *builder) unitKeys(graph []*packages.Package, paths []string, roots map[string]root) map[string]cacheKey {
	if b.cache.dir == "" {
		return nil
	}
	exe, err := executableHash()
	if err != nil {
		return nil
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\nexecutable %x\n%s\n", cacheVersion, exe, b.goEnv)
	fmt.Fprintf(h, "flags %q test=%v main=%q runtime=%q\n", b.buildFlags(), b.cfg.Test, b.mainModule, b.runtime)
	k := &keyer{global: h.Sum(nil), memo: make(map[string]cacheKey)}
	byID := make(map[string]*packages.Package)
	byPath := make(map[string][]*packages.Package)
	packages.Visit(graph, nil, func(p *packages.Package) {
		byID[p.ID] = p
		byPath[p.PkgPath] = append(byPath[p.PkgPath], p)
	})
	keys := make(map[string]cacheKey)
	for _, path := range paths {
		var pkgs []*packages.Package
		if p := byID[path]; p != nil {
			pkgs = append(pkgs, p)
		} else if v := byPath[path]; len(v) > 0 {
			// Only a test variant of another package imports it: that variant's key covers the
			// package's own dependencies and more.
			pkgs = append(pkgs, slices.MinFunc(v, func(a, b *packages.Package) int { return strings.Compare(a.ID, b.ID) }))
		}
		_, root := roots[path]
		if b.cfg.Test && root {
			for _, id := range []string{path + " [" + path + ".test]", path + "_test [" + path + ".test]"} {
				if p := byID[id]; p != nil {
					pkgs = append(pkgs, p)
				}
			}
		}
		if len(pkgs) == 0 || slices.ContainsFunc(pkgs, func(p *packages.Package) bool { return len(p.Errors) > 0 }) {
			continue
		}
		keys[path] = k.unitKey(path, root, pkgs)
	}
	if k.err != nil {
		return nil
	}
	return keys
}

// stdList returns go list std's output, from the cache if an earlier build of the same go
// command and environment stored it.
func (b *builder) stdList() ([]byte, error) {
	key := cacheKey(sha256.Sum256(fmt.Appendf(nil, "%s\ngo list -e std\n%s", cacheVersion, b.goEnv)))
	if e, ok := b.cache.get(key); ok && len(e.Files) == 1 {
		return e.Files[0].Content, nil
	}
	out, err := b.goCmd("list", "-e", "std").Output()
	if err != nil {
		return nil, fmt.Errorf("instrument: go list std in %s: %w", b.dir, err)
	}
	b.cache.put(key, &cacheEntry{Files: []cachedFile{{Name: "std", Content: out}}})
	return out, nil
}
