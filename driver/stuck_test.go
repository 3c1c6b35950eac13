package driver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/internal/golden"
)

// TestGoroutinesOf summarizes the goroutines of tracebacks that Go printed on SIGQUIT
// (testdata/stuck/NAME.txt) and compares with NAME.golden.
func TestGoroutinesOf(t *testing.T) {
	dumps, _ := filepath.Glob("testdata/stuck/*.txt")
	if len(dumps) == 0 {
		t.Fatal("no tracebacks in testdata/stuck")
	}
	for _, dump := range dumps {
		name := strings.TrimSuffix(filepath.Base(dump), ".txt")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(dump)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(goroutinesOf(string(b)), "\n") + "\n"
			golden.Check(t, strings.TrimSuffix(dump, ".txt")+".golden", got)
		})
	}
}

// TestStandard tells the standard library's frames from a module's.
func TestStandard(t *testing.T) {
	for _, c := range []struct {
		fn, file, goroot string
		want             bool
	}{
		{"sync.(*Mutex).Lock", "/usr/local/go/src/sync/mutex.go:46", "/usr/local/go", true},
		{"time.Sleep", "/usr/local/go/src/runtime/time.go:330", "/usr/local/go", true},
		{"time.Sleep", "/usr/local/go/src/runtime/time.go:330", "", false},
		{"net/http.(*Server).Serve", "/usr/local/go/src/net/http/server.go:3000", "", true},
		{"main.main", "/tmp/dumpgen/main.go:26", "/usr/local/go", false},
		{"example/inner.F", "/home/u/example/inner/f.go:3", "/usr/local/go", false},
		{"github.com/heddledbg/heddle/rt.(*parker).park", "/root/go/pkg/mod/github.com/heddledbg/heddle/rt/park.go:46", "/usr/local/go", false},
	} {
		if got := standard(c.fn, c.file, c.goroot); got != c.want {
			t.Errorf("standard(%q, %q, %q) = %v, want %v", c.fn, c.file, c.goroot, got, c.want)
		}
	}
}
