package procgroup

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/rt"
)

// TestHang checks the controller's hang watch: a member that never answers (here a process
// that only sleeps) is killed after the hang limit, and the run ends with a hang verdict that
// names the process, instead of waiting forever.
func TestHang(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Fatal("no sleep command:", err)
	}
	// A program that ignores the protocol's pipes: it neither reads the run command nor
	// answers.
	silent := filepath.Join(t.TempDir(), "silent")
	if err := os.WriteFile(silent, []byte("#!/bin/sh\nexec sleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	members := []Member{{Package: "example.com/silent", Binary: silent}, {Package: "example.com/other", Binary: silent}}
	r, err := New(context.Background(), members, explorer.Options{Hang: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	start := time.Now()
	res := r.Run(&explorer.Guide{Bound: -1}, false)
	if res.Verdict.Kind != rt.VerdictHang || !strings.Contains(res.Verdict.Message, "process P1 (example.com/silent) made no step for 300ms") {
		t.Errorf("verdict %s: %s; want a hang of P1", res.Verdict.Kind, res.Verdict.Message)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the run took %v to end", d)
	}
}
