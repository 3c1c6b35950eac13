package rt

import (
	"os/exec"
	"sync"
	"testing"
)

// goListStd sets stdPackages as the instrumenter does, from the standard library of the go
// command that runs the test.
func goListStd(t *testing.T) {
	t.Helper()
	out, err := stdList()
	if err != nil {
		t.Fatalf("go list std: %v", err)
	}
	setStdPackages(string(out))
}

var stdList = sync.OnceValues(func() ([]byte, error) { return exec.Command("go", "list", "-e", "std").Output() })

// TestFrameClassifier checks the package, std-ness and heddle-ness of the functions that
// stacks name: generic instantiations whose type arguments name other packages (heddle's among
// them), closures, methods on pointer receivers, package main, modules whose path has no dot,
// and paths whose last element has one.
func TestFrameClassifier(t *testing.T) {
	goListStd(t)
	for _, tc := range []struct {
		fn, pkg         string
		std, heddle, rt bool // stdFunc, heddleFunc, internalFrame
	}{
		{"runtime.mapassign_faststr", "runtime", true, false, true},
		{"runtime/debug.Stack", "runtime/debug", true, false, false},
		{"internal/runtime/maps.(*Map).putSlot", "internal/runtime/maps", true, false, false},
		{"slices.insertionSortCmpFunc[...]", "slices", true, false, false},
		{"slices.Delete[go.shape.[]*github.com/heddledbg/heddle/rt.cancelCtx,go.shape.*github.com/heddledbg/heddle/rt.cancelCtx]", "slices", true, false, false},
		{"slices.Delete[go.shape.[]*r2/x.T]", "slices", true, false, false},
		{"sync.(*Mutex).Lock", "sync", true, false, false},
		{"vendor/golang.org/x/net/dns/dnsmessage.(*Parser).Start", "vendor/golang.org/x/net/dns/dnsmessage", true, false, false},
		{"main.main", "main", false, false, false},
		{"main.main.func1", "main", false, false, false},
		{"r2.TestBugCounter.func1", "r2", false, false, false},
		{"r2/race.(*stats).hit", "r2/race", false, false, false},
		{"myapp.(*server).serve.func2.1", "myapp", false, false, false},
		{"goker/x.run[...].func1", "goker/x", false, false, false},
		{"goker/x.(*List[go.shape.int]).Push", "goker/x", false, false, false},
		{"example.com/kernels/racymap.(*cache).put", "example.com/kernels/racymap", false, false, false},
		{"gopkg.in/yaml%2ev3.Marshal", "gopkg.in/yaml.v3", false, false, false},
		{"github.com/heddledbg/heddle/rt.(*run).decide", "github.com/heddledbg/heddle/rt", false, true, true},
		{"github.com/heddledbg/heddle/rt/sync.(*Map).Load", "github.com/heddledbg/heddle/rt/sync", false, true, true},
		{"github.com/heddledbg/heddle/rt.cancel[...].func1", "github.com/heddledbg/heddle/rt", false, true, true},
		{"github.com/heddledbg/heddle.Assert", "github.com/heddledbg/heddle", false, true, true},
		{"github.com/heddledbg/heddle/worker.runTest", "github.com/heddledbg/heddle/worker", false, true, true},
		{"github.com/heddledbg/heddle/lin.(*History).Do", "github.com/heddledbg/heddle/lin", false, true, true},
		{"github.com/heddledbg/heddle/explorer.TestLockCycleMessage.func1", "github.com/heddledbg/heddle/explorer", false, true, false},
		{"github.com/heddledbg/heddle/rt_test.TestStack.func1", "github.com/heddledbg/heddle/rt_test", false, false, false},
		{"github.com/heddledbg/heddle/bidir.TestStepBack", "github.com/heddledbg/heddle/bidir", false, false, false},
		{"github.com/heddledbg/heddlex/rt.F", "github.com/heddledbg/heddlex/rt", false, false, false},
	} {
		if got := FuncPackage(tc.fn); got != tc.pkg {
			t.Errorf("FuncPackage(%q) = %q, want %q", tc.fn, got, tc.pkg)
		}
		if got := stdFunc(tc.fn); got != tc.std {
			t.Errorf("stdFunc(%q) = %v, want %v", tc.fn, got, tc.std)
		}
		if got := heddleFunc(tc.fn); got != tc.heddle {
			t.Errorf("heddleFunc(%q) = %v, want %v", tc.fn, got, tc.heddle)
		}
		if got := internalFrame(tc.fn); got != tc.rt {
			t.Errorf("internalFrame(%q) = %v, want %v", tc.fn, got, tc.rt)
		}
	}
}
