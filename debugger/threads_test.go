package debugger

import (
	"path/filepath"
	"testing"
)

// TestRuntimeFile checks which source files of the runtime module a debuggee's frames hide:
// those of heddle's runtime packages (rt.RuntimePackages), the root package's included.
func TestRuntimeFile(t *testing.T) {
	src := filepath.FromSlash("/cache/heddle/runtime-abc")
	for path, want := range map[string]bool{
		"rt/sched.go":                 true,
		"rt/sync/mutex.go":            true,
		"worker/worker.go":            true,
		"wire/wire.go":                true,
		"lin/lin.go":                  true,
		"heddle.go":                   true,
		"driver/driver.go":            false,
		"../user/main.go":             false,
		"../runtime-abcd/rt/sched.go": false,
		"/work/app/rt/sched.go":       false,
	} {
		p := filepath.FromSlash(path)
		if !filepath.IsAbs(p) {
			p = filepath.Join(src, p)
		}
		if got := runtimeFile(src, p); got != want {
			t.Errorf("runtimeFile(%s) = %v, want %v", p, got, want)
		}
	}
	if runtimeFile("", filepath.Join(src, "rt", "sched.go")) {
		t.Error("a file is heddle's without a runtime source directory")
	}
}
