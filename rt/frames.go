package rt

import (
	"strconv"
	"strings"
)

// Which code a frame of a stack belongs to: the program's, the standard library's, or heddle's.
// Every classifier of frames (the race report's filter, the user's call site of an operation,
// the stacks a program reads of itself) and every list of heddle's own code (the instrumenter's,
// the debugger's, the explorer's) starts here.

// ModulePath is the path of heddle's module.
const ModulePath = "github.com/heddledbg/heddle"

// RuntimePackages are heddle's packages that are linked into a program under test, by import
// path under ModulePath: "" is the module's root package, and "rt/..." is rt and the packages
// under it. They are the source that runtime_embed.go embeds (its test checks that), they are
// never instrumented, and their frames are never the program's.
var RuntimePackages = []string{"", "rt/...", "worker", "explorer", "wire", "record", "locktree", "lin", "internal/testmatch"}

// RuntimePackage reports whether the package of import path pkg is one of RuntimePackages.
func RuntimePackage(pkg string) bool {
	rel, ok := strings.CutPrefix(pkg, ModulePath+"/")
	if pkg == ModulePath {
		rel, ok = "", true
	}
	if !ok {
		return false
	}
	for _, p := range RuntimePackages {
		if tree, ok := strings.CutSuffix(p, "/..."); ok && (rel == tree || strings.HasPrefix(rel, tree+"/")) || rel == p {
			return true
		}
	}
	return false
}

// FuncPackage returns the import path of the package of the function that the runtime names fn,
// as tracebacks, the race detector and runtime.Frame spell it: "example.com/p.(*T).m.func1",
// "slices.Delete[go.shape.[]*example.com/q.T,…]". The type arguments go first, since they may
// name any package; then the path ends at the first dot after its last slash, as the linker
// escapes the dots and other special characters of a path's last element ("%2e" in
// "gopkg.in/yaml%2ev3.Marshal").
func FuncPackage(fn string) string {
	if i := strings.IndexByte(fn, '['); i >= 0 {
		fn = fn[:i]
	}
	slash := strings.LastIndexByte(fn, '/')
	if dot := strings.IndexByte(fn[slash+1:], '.'); dot >= 0 {
		fn = fn[:slash+1+dot]
	}
	if strings.IndexByte(fn, '%') < 0 {
		return fn
	}
	var b strings.Builder
	for i := 0; i < len(fn); i++ {
		if fn[i] == '%' && i+2 < len(fn) {
			if c, err := strconv.ParseUint(fn[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(c))
				i += 2
				continue
			}
		}
		b.WriteByte(fn[i])
	}
	return b.String()
}

// heddleFunc reports whether the function named fn is heddle's code (RuntimePackages).
func heddleFunc(fn string) bool { return RuntimePackage(FuncPackage(fn)) }

// stdPackages holds the import paths of the standard library of the Go that built the program,
// as the instrumenter lists them (go list std) in a file it adds to this package. Only the
// toolchain can say: a module's path need not have a dot ("module r2", "goker/x" are the
// program's code), and the file names a binary records do not show GOROOT when it is built
// with -trimpath. Without the list (rt's own tests that do not set it), no frame is std's.
var stdPackages map[string]bool

// setStdPackages sets stdPackages from go list std's output.
func setStdPackages(list string) {
	stdPackages = make(map[string]bool)
	for _, p := range strings.Fields(list) {
		stdPackages[p] = true
	}
}

// stdFunc reports whether the function named fn is in the standard library.
func stdFunc(fn string) bool { return stdPackages[FuncPackage(fn)] }

// internalFrame reports whether the function named fn is Go's runtime's, or in one of heddle's
// packages that run on the program's goroutines between its code and an operation (rt and its
// shadows, the root package's assertions, lin's recorded calls, the harness that calls the
// test): its frames are never the user's call site. The search engine (explorer, wire,
// record, locktree) drives runs from outside them, and its own tests run programs written in
// its packages, whose frames are those programs'.
func internalFrame(fn string) bool {
	pkg := FuncPackage(fn)
	if pkg == "runtime" || !RuntimePackage(pkg) {
		return pkg == "runtime"
	}
	switch strings.TrimPrefix(pkg, ModulePath+"/") {
	case "explorer", "wire", "record", "locktree":
		return false
	}
	return true
}
