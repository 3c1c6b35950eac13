package instrument

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/version"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/tools/go/packages"

	"github.com/heddledbg/heddle/rt"
)

// Config describes an instrumented build.
type Config struct {
	// Dir is the directory in which packages are resolved and the go
	// command runs, inside the module to build. Empty means the current
	// directory.
	Dir string

	// Packages are the package patterns to build, as for go build.
	Packages []string

	// Test builds one test binary per package (go test -c) instead of
	// programs.
	Test bool

	// Tags are build tags.
	Tags []string

	// BuildFlags are further flags for the go command, such as
	// "-gcflags=all=-N -l" for the debugger or "-race".
	BuildFlags []string

	// Instrument lists the import path patterns of packages outside the
	// main module to instrument too. By default only packages of the main
	// module, golang.org/x/sync's and golang.org/x/time's packages and
	// testify's assert are instrumented (alwaysInstrumented); the rest run as
	// trusted atomic code.
	// Patterns use the syntax of the go command: "..." matches any string,
	// and a trailing "/..." also matches the path without it.
	Instrument []string

	// Skip lists the import path patterns of packages not to instrument.
	Skip []string

	// Out is the directory to write binaries to. Empty means a directory
	// under the work directory.
	Out string

	// Env is the environment of the go command, as for exec.Cmd; nil means
	// the current process's.
	Env []string

	// KeepGoing builds the other packages when one of the packages to
	// build does not compile, as go test does: the failures are in
	// Result.Failed instead of an error.
	KeepGoing bool

	// Runtime is a directory holding the source of the module
	// github.com/heddledbg/heddle to build against. Empty means
	// RuntimeSource.
	Runtime string
}

// Result describes a completed instrumented build.
type Result struct {
	Binaries []Binary

	// Warnings tell about packages left uninstrumented, and why.
	Warnings []string

	// Failed lists the packages that did not build, with Config.KeepGoing.
	Failed []*BuildError

	// WorkDir holds the rewritten files, the overlay and the go.mod used
	// for the build. The caller removes it when done.
	WorkDir string

	// Rewritten lists the packages that the build rewrote, in the order it did: those it
	// did not find in the rewrite cache (see HEDDLECACHE in the package's documentation).
	Rewritten []string
}

// A Binary is one built executable.
type Binary struct {
	Package string // import path of the package built
	Path    string // path of the executable
	Test    bool   // a test binary
	Dir     string // the package's directory, where go test would run its tests
	// NoTestFiles is a test binary's package without test files: go test reports it as
	// "[no test files]", runs nothing, and so does heddle.
	NoTestFiles bool
}

// A BuildError reports that the go command failed to build a package. Its
// Output is the go command's own, which names the user's files and lines.
type BuildError struct {
	Package string
	Output  string
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("building %s:\n%s", e.Package, strings.TrimRight(e.Output, "\n"))
}

// modeSyntax is what the rewrite needs of each instrumented package.
const modeSyntax = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
	packages.NeedImports | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo |
	packages.NeedModule

// Build instruments the packages of cfg and the packages they depend on, and
// builds them with the go command, without writing into the user's tree: the
// rewritten files are given to the go command as an overlay, and a copy of
// the user's go.mod adds heddle's runtime.
func Build(ctx context.Context, cfg Config) (*Result, error) {
	b, err := newBuilder(ctx, cfg)
	if err != nil {
		return nil, err
	}
	res := &Result{WorkDir: b.work}
	roots, err := b.load()
	if err == nil {
		err = b.addStd()
	}
	if err == nil {
		err = b.writeOverlay()
	}
	if err == nil {
		res.Binaries, err = b.buildAll(roots)
	}
	res.Warnings = b.warnings
	res.Failed = b.failed
	res.Rewritten = b.rewritten
	b.cache.trim(time.Now())
	if err != nil {
		os.RemoveAll(b.work)
		return nil, err
	}
	return res, nil
}

type builder struct {
	ctx        context.Context
	cfg        Config
	dir        string // absolute cfg.Dir
	env        []string
	work       string
	gomod      string // the user's go.mod
	mainModule string
	runtime    string
	overlay    map[string]string // original path → rewritten file
	pending    []pendingFile     // rewritten files, written by writeOverlay
	warnings   []string
	failed     []*BuildError // with KeepGoing: packages to build that did not
	// cached are the directories in the module cache of the modules that have instrumented
	// packages, by module path: the go command does not let an overlay replace files in the
	// module cache, so the build uses a copy of each (writeOverlay).
	cached map[string]string
	// plain are the packages of the main module that the tests of heddle's runtime import:
	// rewritten, they would import rt, and rt's own tests would import themselves.
	plain map[string]bool
	// langs are the Go files of the build's packages that are in modules, with their modules'
	// language (keepLanguage).
	langs map[string]fileLang
	// modules are the versions of the modules whose packages the build loads, but the main
	// module's, by path: a go.mod whose go version is raised past 1.17 must require them all
	// (requireLoaded).
	modules map[string]string

	cache     cache
	goEnv     []byte          // go env's report of the variables that change every package
	done      map[string]bool // the files rewritten
	rec       *cacheEntry     // while rewriting a package: what it adds, for the cache
	rewritten []string        // the packages rewritten, not taken from the cache
}

// fail records that the package to build at path does not build, with
// KeepGoing; it reports whether it did.
func (b *builder) fail(path string, err error) bool {
	var be *BuildError
	if !b.cfg.KeepGoing || !errors.As(err, &be) {
		return false
	}
	if !b.hasFailed(path) {
		be.Package = path
		b.failed = append(b.failed, be)
	}
	return true
}

func (b *builder) hasFailed(path string) bool {
	return slices.ContainsFunc(b.failed, func(e *BuildError) bool { return e.Package == path })
}

func newBuilder(ctx context.Context, cfg Config) (*builder, error) {
	b := &builder{ctx: ctx, cfg: cfg, overlay: make(map[string]string), done: make(map[string]bool)}
	var err error
	if b.dir, err = filepath.Abs(cmp(cfg.Dir, ".")); err != nil {
		return nil, err
	}
	if len(cfg.Packages) == 0 {
		return nil, errors.New("instrument: no packages to build")
	}
	env := cfg.Env
	if env == nil {
		env = os.Environ()
	}
	// -modfile does not combine with workspaces.
	b.env = append(slices.Clip(env), "GOWORK=off")
	// GOMOD, and what changes every package's rewriting (the types of the standard library
	// and the files the build takes), for the cache.
	out, err := b.goCmd("env", "GOMOD", "GOVERSION", "GOROOT", "GOOS", "GOARCH", "CGO_ENABLED", "GOFLAGS", "GOEXPERIMENT", "GOMODCACHE").Output()
	if err != nil {
		return nil, fmt.Errorf("instrument: go env GOMOD in %s: %w", b.dir, err)
	}
	gomod, _, _ := strings.Cut(string(out), "\n")
	b.gomod = strings.TrimSpace(gomod)
	b.goEnv = out
	b.cache = openCache(b.env)
	if b.gomod == "" || b.gomod == os.DevNull {
		return nil, fmt.Errorf("instrument: %s is not inside a module", b.dir)
	}
	data, err := os.ReadFile(b.gomod)
	if err != nil {
		return nil, fmt.Errorf("instrument: %w", err)
	}
	b.mainModule = modfile.ModulePath(data)
	if b.vendored() {
		b.warnings = append(b.warnings, "vendor directory ignored: the instrumented build takes dependencies from the module cache")
	}
	b.runtime = cfg.Runtime
	if b.runtime == "" && b.mainModule != modulePath {
		if b.runtime, err = RuntimeSource(); err != nil {
			return nil, err
		}
	}
	if b.work, err = os.MkdirTemp("", "heddle-build-"); err != nil {
		return nil, err
	}
	return b, nil
}

func cmp(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (b *builder) goCmd(args ...string) *exec.Cmd {
	cmd := exec.CommandContext(b.ctx, "go", args...)
	cmd.Dir = b.dir
	cmd.Env = b.env
	return cmd
}

// buildFlags returns the flags common to loading and building.
func (b *builder) buildFlags() []string {
	var flags []string
	if b.vendored() {
		flags = append(flags, "-mod=mod")
	}
	if len(b.cfg.Tags) > 0 {
		flags = append(flags, "-tags="+strings.Join(b.cfg.Tags, ","))
	}
	return append(flags, b.cfg.BuildFlags...)
}

// A root is a package to build.
type root struct {
	path    string
	name    string // package name
	dir     string
	noTests bool // in test mode, the package has no test files
}

// load loads the packages to build and the packages of theirs to instrument,
// and rewrites the latter.
func (b *builder) load() ([]root, error) {
	lcfg := &packages.Config{
		Context:    b.ctx,
		Mode:       packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps | packages.NeedModule,
		Dir:        b.dir,
		Env:        b.env,
		BuildFlags: b.buildFlags(),
		// A package of the main module that only the tests import (errgroup in the tests
		// of semaphore) must be instrumented too: its goroutines run the tests' code.
		Tests: b.cfg.Test,
	}
	graph, err := packages.Load(lcfg, b.cfg.Packages...)
	if err != nil {
		return nil, fmt.Errorf("instrument: loading %s: %w", strings.Join(b.cfg.Packages, " "), err)
	}
	b.plain = runtimeTestDeps(graph)
	// A package with test files has a test main, "pkg.test", in the graph.
	hasTests := make(map[string]bool)
	for _, p := range graph {
		if t, ok := strings.CutSuffix(p.ID, ".test"); ok {
			hasTests[t] = true
		}
	}
	var roots []root
	var msgs []PackageError
	for _, p := range graph {
		if _, isTest := testVariant(p); isTest || strings.HasSuffix(p.ID, ".test") {
			continue // the compiler reports errors in test files, from the overlay build
		}
		if len(p.Errors) > 0 && len(p.GoFiles) > 0 {
			// The package exists but does not build.
			var out []string
			for _, e := range p.Errors {
				out = append(out, e.Error())
			}
			if b.fail(p.PkgPath, &BuildError{Output: strings.Join(out, "\n") + "\n"}) {
				roots = append(roots, root{path: p.PkgPath, name: p.Name, dir: pkgDir(p)})
				continue
			}
		}
		name := p.PkgPath
		if name == "" {
			name = p.ID
		}
		for _, e := range p.Errors {
			msgs = append(msgs, PackageError{Package: name, Pos: e.Pos, Msg: e.Msg})
		}
		// A package of tests only is fine to test, not to build.
		if len(p.GoFiles) == 0 && len(p.Errors) == 0 && !b.cfg.Test {
			msgs = append(msgs, PackageError{Package: name, Msg: fmt.Sprintf("%s: no Go files", p.PkgPath)})
		}
		roots = append(roots, root{path: p.PkgPath, name: p.Name, dir: pkgDir(p), noTests: b.cfg.Test && !hasTests[p.PkgPath]})
	}
	if len(msgs) > 0 {
		return nil, b.loadError(msgs)
	}

	rootPaths := make(map[string]bool)
	for _, r := range roots {
		rootPaths[r.path] = true
	}
	var paths []string
	seen := make(map[string]bool) // by ID: a test variant imports more than its package
	listed := make(map[string]bool)
	packages.Visit(graph, func(p *packages.Package) bool {
		if seen[p.ID] {
			return false
		}
		seen[p.ID] = true
		b.noteLang(p)
		if m := p.Module; m != nil && !m.Main && m.Version != "" {
			if b.modules == nil {
				b.modules = make(map[string]string)
			}
			b.modules[m.Path] = m.Version
		}
		if testOf, isTest := testVariant(p); isTest || strings.HasSuffix(p.ID, ".test") {
			// The package under test and its external tests are loaded again below with it.
			// Another package of the main module compiled for the tests, because it imports
			// the package under test (coder/websocket's wstest), is in the graph only so when
			// the pattern names the package alone: it is rewritten as itself. A dependency's
			// (x/sync's errgroup, compiled again for heddle's own tests) goes through the copy
			// of its module that the listing of its own variant arranges.
			if isTest && p.PkgPath != testOf && p.PkgPath != testOf+"_test" && !listed[p.PkgPath] &&
				p.Module != nil && p.Module.Path == b.mainModule && b.instrumented(p) {
				listed[p.PkgPath] = true
				paths = append(paths, p.PkgPath)
			}
			return true
		}
		// A root of heddle's own runtime is loaded for its test functions, not rewritten.
		if !listed[p.PkgPath] && (b.instrumented(p) || b.cfg.Test && rootPaths[p.PkgPath]) {
			listed[p.PkgPath] = true
			paths = append(paths, p.PkgPath)
		}
		return true
	}, nil)
	if len(paths) == 0 {
		return roots, nil
	}

	rootsByPath := make(map[string]root)
	for _, r := range roots {
		rootsByPath[r.path] = r
	}
	rewritten, err := b.rewriteAll(lcfg, graph, paths, rootsByPath)
	if err != nil {
		return nil, err
	}
	if b.cfg.Test {
		for _, r := range roots {
			if !rewritten[r.path] {
				b.register(r, nil)
			}
		}
	} else {
		for _, r := range roots {
			if r.name == "main" {
				b.addFile(filepath.Join(r.dir, "zz_heddle_main.go"), mainFile())
			}
		}
	}
	return roots, nil
}

// rewriteAll rewrites the packages at paths, and registers the tests of those that are roots
// in test mode, taking what it can from the cache. It returns the packages it handled.
func (b *builder) rewriteAll(lcfg *packages.Config, graph []*packages.Package, paths []string, roots map[string]root) (map[string]bool, error) {
	keys := b.unitKeys(graph, paths, roots)
	handled := make(map[string]bool)
	var misses []string
	for _, path := range paths {
		key, ok := keys[path]
		if !ok {
			misses = append(misses, path)
			continue
		}
		e, ok := b.cache.get(key)
		if !ok {
			misses = append(misses, path)
			continue
		}
		for _, f := range e.Files {
			b.addFile(f.Name, f.Content)
		}
		b.warnings = append(b.warnings, e.Warnings...)
		if e.Module != "" {
			b.addCached(e.ModulePath, e.Module)
		}
		handled[path] = true
	}
	if len(misses) == 0 {
		return handled, nil
	}

	lcfg.Mode = modeSyntax
	lcfg.Tests = b.cfg.Test
	pkgs, err := packages.Load(lcfg, misses...)
	if err != nil {
		return nil, fmt.Errorf("instrument: loading %s: %w", strings.Join(misses, " "), err)
	}
	units := make(map[string][]*packages.Package) // path → its packages, test variants included
	for _, p := range pkgs {
		testOf, isTest := testVariant(p)
		if _, root := roots[testOf]; isTest && !root {
			continue // tests of dependencies are not built
		}
		if strings.HasSuffix(p.ID, ".test") {
			continue // the generated test main
		}
		unit := p.PkgPath
		if isTest {
			unit = testOf
		}
		units[unit] = append(units[unit], p)
	}
	for _, path := range misses {
		b.rec = &cacheEntry{}
		warnings := len(b.warnings)
		ok, err := b.rewriteUnit(path, units[path], roots)
		rec := b.rec
		b.rec = nil
		if err != nil {
			return nil, err
		}
		handled[path] = true
		b.rewritten = append(b.rewritten, path)
		if key, cacheable := keys[path]; ok && cacheable {
			rec.Warnings = slices.Clone(b.warnings[warnings:])
			b.cache.put(key, rec)
		}
	}
	return handled, nil
}

// rewriteUnit rewrites the packages of pkgs, the package at path and in test mode its test
// variants, and registers its tests if it is a root in test mode. It reports whether all went
// well, so that the result may be cached: with KeepGoing, a root that does not build is recorded
// as failed instead of returning an error.
func (b *builder) rewriteUnit(path string, pkgs []*packages.Package, roots map[string]root) (bool, error) {
	r, isRoot := roots[path]
	ok := true
	var tests []*packages.Package
	for _, p := range pkgs {
		_, isTest := testVariant(p)
		if len(p.Errors) > 0 {
			// Let the compiler report the errors on the original source.
			err := b.compileOriginal(p)
			if isRoot && b.fail(path, err) {
				ok = false
				continue
			}
			return false, err
		}
		if isTest {
			tests = append(tests, p)
		}
		if Runtime(p.PkgPath) || b.plain[p.PkgPath] {
			continue
		}
		if usesCgo(p) {
			b.warnings = append(b.warnings, fmt.Sprintf("%s uses cgo: left uninstrumented", p.PkgPath))
			continue
		}
		if dir := cachedDir(p.Module); dir != "" {
			b.addCached(p.Module.Path, dir)
		}
		for i, f := range p.Syntax {
			name := p.CompiledGoFiles[i]
			if b.done[name] {
				continue
			}
			b.done[name] = true
			if err := b.rewrite(p, f, name); err != nil {
				if b.cfg.KeepGoing && isRoot {
					b.fail(path, &BuildError{Output: err.Error() + "\n"})
					ok = false
					continue
				}
				return false, err
			}
		}
	}
	if b.cfg.Test && isRoot {
		b.register(r, tests)
	}
	return ok, nil
}

// addCached notes that the build rewrites files of module path, in the module cache at dir.
func (b *builder) addCached(path, dir string) {
	if b.cached == nil {
		b.cached = make(map[string]string)
	}
	b.cached[path] = dir
	if b.rec != nil {
		b.rec.ModulePath, b.rec.Module = path, dir
	}
}

// addStd adds to rt a file that lists the standard library of the go command that builds the
// program (go list std): rt tells the standard library's frames from the program's by it,
// whatever the program's module is called.
func (b *builder) addStd() error {
	out, err := b.stdList()
	if err != nil {
		return err
	}
	dir := b.runtime
	if b.mainModule == modulePath {
		dir = filepath.Dir(b.gomod)
	}
	b.addFile(filepath.Join(dir, "rt", "zz_heddle_std.go"), stdFile(out))
	return nil
}

// A LoadError holds the go command's complaints about requested packages that it could not
// load, such as a directory that does not exist: go test's "setup failed".
type LoadError struct {
	Patterns []string // the packages requested
	Errors   []PackageError
}

// A PackageError is one complaint of the go command about a package.
type PackageError struct {
	Package string // its import path, or the pattern that named it
	Pos     string // "file:line:col", "-" or ""
	Msg     string
}

func (e PackageError) String() string {
	if e.Pos == "" {
		return e.Msg
	}
	return e.Pos + ": " + e.Msg
}

func (e *LoadError) Error() string {
	var msgs []string
	for _, pe := range e.Errors {
		msgs = append(msgs, pe.String())
	}
	return fmt.Sprintf("instrument: cannot load %s:\n\t%s", strings.Join(e.Patterns, " "), strings.Join(msgs, "\n\t"))
}

// loadError turns the go command's complaints about the requested packages
// into one error.
func (b *builder) loadError(msgs []PackageError) error {
	slices.SortFunc(msgs, func(a, b PackageError) int {
		if c := strings.Compare(a.Package, b.Package); c != 0 {
			return c
		}
		return strings.Compare(a.String(), b.String())
	})
	return &LoadError{Patterns: b.cfg.Packages, Errors: slices.Compact(msgs)}
}

// compileOriginal builds the package p without instrumentation, to return the
// compiler's own report of its errors.
func (b *builder) compileOriginal(p *packages.Package) error {
	args := []string{"build"}
	pkg := p.PkgPath
	if testOf, ok := testVariant(p); ok {
		args = []string{"test", "-c"}
		pkg = testOf
	}
	args = append(args, "-o", os.DevNull)
	args = append(args, b.buildFlags()...)
	args = append(args, pkg)
	out, err := b.goCmd(args...).CombinedOutput()
	if err == nil {
		// The type checker and the compiler disagree; report the
		// former.
		var msgs []string
		for _, e := range p.Errors {
			msgs = append(msgs, e.Error())
		}
		out = []byte(strings.Join(msgs, "\n"))
	}
	return &BuildError{Package: pkg, Output: string(out)}
}

// testVariant reports whether p is a package compiled for the tests of
// another ("p [p.test]" or "p_test [p.test]"), and of which.
func testVariant(p *packages.Package) (string, bool) {
	i := strings.Index(p.ID, " [")
	if i < 0 {
		return "", false
	}
	return strings.TrimSuffix(strings.TrimSuffix(p.ID[i+2:], "]"), ".test"), true
}

func pkgDir(p *packages.Package) string {
	if len(p.GoFiles) > 0 {
		return filepath.Dir(p.GoFiles[0])
	}
	return p.Dir
}

// runtimeTestDeps returns the packages that the tests of a package of heddle's runtime in
// graph import, directly or not.
func runtimeTestDeps(graph []*packages.Package) map[string]bool {
	deps := make(map[string]bool)
	var visit func(p *packages.Package)
	visit = func(p *packages.Package) {
		for _, imp := range p.Imports {
			if !deps[imp.PkgPath] {
				deps[imp.PkgPath] = true
				visit(imp)
			}
		}
	}
	for _, p := range graph {
		if testOf, isTest := testVariant(p); isTest && Runtime(testOf) {
			visit(p)
		}
	}
	return deps
}

// instrumented reports whether p is to be rewritten.
func (b *builder) instrumented(p *packages.Package) bool {
	if Runtime(p.PkgPath) || b.plain[p.PkgPath] {
		return false
	}
	if matchAny(b.cfg.Skip, p.PkgPath) {
		return false
	}
	if p.Module != nil && p.Module.Path == b.mainModule {
		return true
	}
	return p.Module != nil && (matchAny(b.cfg.Instrument, p.PkgPath) || matchAny(alwaysInstrumented, p.PkgPath))
}

// alwaysInstrumented lists the packages outside the main module that are instrumented without
// being asked (Config.Skip still leaves them out): libraries whose goroutines run the program's
// functions and whose waits are the program's synchronization. Left alone, each call back would
// come from a goroutine heddle did not start, and each wait would block where heddle cannot see
// it: the test could not be explored. ants' MultiPool releases its pools through an errgroup
// (golang.org/x/sync), and its tests wait with testify's Eventually, which runs the condition
// in a goroutine of its own on a real ticker. golang.org/x/time's rate limiter takes the
// program's readings of the clock and reads the clock itself (Reservation.Delay, Cancel):
// left alone, it would mix the real time with the run's virtual time, and a wait for a token
// computed from the two never ends (pion/transport's vnet TestTBFQueue spun to a livelock).
var alwaysInstrumented = []string{"golang.org/x/sync/...", "github.com/stretchr/testify/assert", "golang.org/x/time/..."}

// Runtime reports whether pkgPath is part of heddle's runtime (rt.RuntimePackages), which is
// linked into every program under test and never instrumented. The tests of such a package run
// outside heddle's control.
func Runtime(pkgPath string) bool { return rt.RuntimePackage(pkgPath) }

func matchAny(patterns []string, pkgPath string) bool {
	for _, pat := range patterns {
		if matchPattern(pat, pkgPath) {
			return true
		}
	}
	return false
}

// matchPattern reports whether pkgPath matches the go command pattern pat.
func matchPattern(pat, pkgPath string) bool {
	re := regexp.QuoteMeta(pat)
	re = strings.ReplaceAll(re, `\.\.\.`, `.*`)
	if strings.HasSuffix(re, `/.*`) {
		re = strings.TrimSuffix(re, `/.*`) + `(/.*)?`
	}
	ok, _ := regexp.MatchString("^"+re+"$", pkgPath)
	return ok
}

func usesCgo(p *packages.Package) bool {
	for _, f := range p.Syntax {
		for _, imp := range f.Imports {
			if imp.Path.Value == `"C"` {
				return true
			}
		}
	}
	return false
}

// rewrite rewrites one file of p and adds it to the overlay.
func (b *builder) rewrite(p *packages.Package, f *ast.File, name string) error {
	src, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("instrument: %w", err)
	}
	out, changed, err := rewriteFile(p.Fset, f, src, name, p.Types, p.TypesInfo)
	if err != nil {
		return fmt.Errorf("instrument: %w", err)
	}
	if changed {
		b.addFile(name, out)
	}
	return nil
}

// addFile makes the go command see content at path name.
func (b *builder) addFile(name string, content []byte) {
	if b.rec != nil {
		b.rec.Files = append(b.rec.Files, cachedFile{name, content})
	}
	dst := filepath.Join(b.work, "src", strconv.Itoa(len(b.overlay))+"_"+filepath.Base(name))
	b.overlay[name] = dst
	b.pending = append(b.pending, pendingFile{dst, content})
}

type pendingFile struct {
	path    string
	content []byte
}

// writeOverlay writes the rewritten files, the overlay and the go.mod.
func (b *builder) writeOverlay() error {
	if err := os.MkdirAll(filepath.Join(b.work, "src"), 0o777); err != nil {
		return err
	}
	if err := b.keepLanguage(); err != nil {
		return err
	}
	for _, f := range b.pending {
		if err := os.WriteFile(f.path, f.content, 0o666); err != nil {
			return err
		}
	}
	copies, err := b.copyCached()
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(struct{ Replace map[string]string }{b.overlay}, "", "\t")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(b.work, "overlay.json"), data, 0o666); err != nil {
		return err
	}
	if !b.ownModfile() {
		return nil
	}
	gomod, err := os.ReadFile(b.gomod)
	if err != nil {
		return err
	}
	mf, err := modfile.Parse(b.gomod, gomod, nil)
	if err != nil {
		return fmt.Errorf("instrument: %w", err)
	}
	if b.mainModule != modulePath {
		if err := mf.AddRequire(modulePath, "v0.0.0"); err != nil {
			return err
		}
		if err := mf.AddReplace(modulePath, "", b.runtime, ""); err != nil {
			return err
		}
	}
	for path, dir := range copies {
		if err := mf.AddReplace(path, "", dir, ""); err != nil {
			return err
		}
	}
	// A module may not require a module with a later go version.
	if mf.Go == nil || version.Compare("go"+mf.Go.Version, "go"+runtimeGo) < 0 {
		old := "unset"
		if mf.Go != nil {
			old = mf.Go.Version
		}
		b.warnings = append(b.warnings, fmt.Sprintf("%s: go version %s raised to %s, the runtime's, for the instrumented build; its files keep their language by build constraints", b.gomod, old, runtimeGo))
		if mf.Go == nil || version.Compare("go"+mf.Go.Version, "go1.17") < 0 {
			b.requireLoaded(mf)
		}
		if err := mf.AddGoStmt(runtimeGo); err != nil {
			return err
		}
	}
	if gomod, err = mf.Format(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(b.work, "go.mod"), gomod, 0o666); err != nil {
		return err
	}
	sum, err := os.ReadFile(strings.TrimSuffix(b.gomod, ".mod") + ".sum")
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	return os.WriteFile(filepath.Join(b.work, "go.sum"), sum, 0o666)
}

// requireLoaded adds to mf, as indirect requirements, the modules of the loaded packages that
// it does not require. From go 1.17 on, a go.mod lists every module that provides a package
// of the build (the graph is pruned to them); one of an earlier version (soheilhy/cmux's, go
// 1.11) lists its direct requirements only, and the go command refuses it once its go version
// is raised: "updates to go.mod needed". The versions are those the go command selected from
// the whole graph, so the selection stays the same.
func (b *builder) requireLoaded(mf *modfile.File) {
	required := make(map[string]bool)
	for _, r := range mf.Require {
		required[r.Mod.Path] = true
	}
	for _, path := range slices.Sorted(maps.Keys(b.modules)) {
		if !required[path] && path != modulePath {
			mf.AddNewRequire(path, b.modules[path], true)
		}
	}
}

// cachedDir returns the directory of module m in the module cache, or "" if m is not read from
// it: a module read from the cache has a version (one replaced by a directory has none).
func cachedDir(m *packages.Module) string {
	if m == nil {
		return ""
	}
	if m.Replace != nil {
		m = m.Replace
	}
	if m.Version == "" {
		return ""
	}
	return m.Dir
}

// copyCached copies each module of b.cached out of the module cache into the work directory,
// moves the overlay's entries for its files onto the copy, and returns the copies' directories
// by module path, for go.mod's replace directives.
func (b *builder) copyCached() (map[string]string, error) {
	if len(b.cached) == 0 {
		return nil, nil
	}
	copies := make(map[string]string)
	for path, dir := range b.cached {
		dst, err := b.cache.moduleCopy(path, dir)
		if err != nil {
			return nil, err
		}
		if dst == "" {
			dst = filepath.Join(b.work, "mod", strconv.Itoa(len(copies)))
			if err := copyModule(dst, path, dir); err != nil {
				return nil, err
			}
		}
		for name, rewritten := range b.overlay {
			if rel, err := filepath.Rel(dir, name); err == nil && !strings.HasPrefix(rel, "..") {
				delete(b.overlay, name)
				b.overlay[filepath.Join(dst, rel)] = rewritten
			}
		}
		copies[path] = dst
	}
	return copies, nil
}

// copyModule copies module path out of the module cache at dir to dst, for an instrumented
// build.
func copyModule(dst, path, dir string) error {
	if err := os.CopyFS(dst, os.DirFS(dir)); err != nil {
		return fmt.Errorf("instrument: copying %s out of the module cache: %w", path, err)
	}
	return raiseGo(filepath.Join(dst, "go.mod"), path)
}

// raiseGo sets the go version of the go.mod at file, of module path, to the runtime's if it is
// older (the rewritten code calls generic functions) or missing, creating the file if needed.
// The module's files keep their language (keepLanguage).
func raiseGo(file, path string) error {
	data, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if os.IsNotExist(err) {
		data = []byte("module " + path + "\n")
	}
	mf, err := modfile.Parse(file, data, nil)
	if err != nil {
		return fmt.Errorf("instrument: %w", err)
	}
	if mf.Go != nil && version.Compare("go"+mf.Go.Version, "go"+runtimeGo) >= 0 {
		return nil
	}
	if err := mf.AddGoStmt(runtimeGo); err != nil {
		return err
	}
	if data, err = mf.Format(); err != nil {
		return err
	}
	return os.WriteFile(file, data, 0o666)
}

// vendored reports whether the main module vendors its dependencies and
// the build flags leave the choice to the go command. The go command reads
// vendor/modules.txt directly, not through the overlay, so it cannot be told
// about the runtime module; such builds use the module cache instead.
func (b *builder) vendored() bool {
	for _, f := range b.cfg.BuildFlags {
		if strings.HasPrefix(f, "-mod=") {
			return false
		}
	}
	_, err := os.Stat(filepath.Join(filepath.Dir(b.gomod), "vendor", "modules.txt"))
	return err == nil && b.mainModule != modulePath
}

// buildAll builds one binary per root: a test binary for each package in
// test mode, else a program for each main package.
func (b *builder) buildAll(roots []root) ([]Binary, error) {
	out := b.cfg.Out
	if out == "" {
		out = filepath.Join(b.work, "bin")
	}
	out, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o777); err != nil {
		return nil, err
	}
	built, err := b.buildTests(roots, out)
	if err != nil {
		return nil, err
	}
	var bins []Binary
	used := make(map[string]bool)
	for _, r := range roots {
		if b.hasFailed(r.path) {
			continue
		}
		if built[r.path] {
			bins = append(bins, Binary{Package: r.path, Path: filepath.Join(out, path.Base(r.path)+".test"), Test: true, Dir: r.dir, NoTestFiles: r.noTests})
			continue
		}
		name := path.Base(r.path)
		if b.cfg.Test {
			name += ".test"
		}
		for i := 2; used[name]; i++ {
			name = fmt.Sprintf("%s-%d", path.Base(r.path), i)
			if b.cfg.Test {
				name += ".test"
			}
		}
		used[name] = true
		bin := filepath.Join(out, name)
		args := []string{"build"}
		if b.cfg.Test {
			args = []string{"test", "-c"}
		}
		program := b.cfg.Test || r.name == "main"
		if program {
			args = append(args, "-o", bin)
		}
		// Other packages are only compiled, to report their errors.
		args = append(args, b.overlayFlags()...)
		args = append(args, r.path)
		if output, err := b.goCmd(args...).CombinedOutput(); err != nil {
			if b.ctx.Err() != nil {
				return nil, b.ctx.Err()
			}
			if err := (&BuildError{Package: r.path, Output: string(output)}); !b.fail(r.path, err) {
				return nil, err
			}
			continue
		}
		if program {
			bins = append(bins, Binary{Package: r.path, Path: bin, Test: b.cfg.Test, Dir: r.dir, NoTestFiles: r.noTests})
		}
	}
	return bins, nil
}

// ownModfile reports whether the build uses a go.mod of its own: one that requires heddle's
// runtime, or, in heddle's own module, that replaces the dependencies it instruments with their
// copies out of the module cache (the go command refuses an overlay of files beneath it).
func (b *builder) ownModfile() bool {
	return b.mainModule != modulePath || len(b.cached) > 0
}

// overlayFlags returns the go command's flags for building the instrumented packages.
func (b *builder) overlayFlags() []string {
	args := []string{"-overlay", filepath.Join(b.work, "overlay.json")}
	if b.ownModfile() {
		args = append(args, "-modfile", filepath.Join(b.work, "go.mod"))
	}
	return append(args, b.buildFlags()...)
}

// buildTests builds the test binaries of roots in test mode with one go command, into out,
// each named as go test -c names it there, and returns the packages it built. One go command
// sets up once, and links the binaries in parallel, where one for each package would do both
// in turn. If it fails, it returns the packages whose binaries it wrote: buildAll builds each of
// the others alone, for the go command's report of that package. With fewer than two packages
// to build, or two of the same name, it builds nothing.
func (b *builder) buildTests(roots []root, out string) (map[string]bool, error) {
	if !b.cfg.Test {
		return nil, nil
	}
	var pkgs []string
	names := make(map[string]bool)
	for _, r := range roots {
		if b.hasFailed(r.path) {
			continue
		}
		name := path.Base(r.path) + ".test"
		if names[name] {
			return nil, nil
		}
		names[name] = true
		pkgs = append(pkgs, r.path)
		os.Remove(filepath.Join(out, name))
	}
	if len(pkgs) < 2 {
		return nil, nil
	}
	args := append([]string{"test", "-c", "-o", out + string(filepath.Separator)}, b.overlayFlags()...)
	// Its errors are reported by the builds of the packages that fail, alone.
	b.goCmd(append(args, pkgs...)...).Run()
	if b.ctx.Err() != nil {
		return nil, b.ctx.Err()
	}
	built := make(map[string]bool)
	for _, p := range pkgs {
		if _, err := os.Stat(filepath.Join(out, path.Base(p)+".test")); err == nil {
			built[p] = true
		}
	}
	return built, nil
}
