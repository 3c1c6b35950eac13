package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/record"
)

// counterTest is NoEraser: worker B increments without the lock when it read zero, and
// nothing checks the result, so the lockset warning is all there is to report.
const counterTest = `package w

import (
	"sync"
	"testing"
)

type counter struct {
	mu sync.Mutex
	x  int
}

func TestCounter(t *testing.T) {
	c := new(counter)
	var wg sync.WaitGroup
	for _, b := range []bool{false, true} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.mu.Lock()
			y := c.x
			c.mu.Unlock()
			if y == 0 && b {
				c.x++
				return
			}
			c.mu.Lock()
			c.x++
			c.mu.Unlock()
		}()
	}
	wg.Wait()
}
`

// TestWarnings checks that a lockset warning is reported, in text, in JSON and in the
// exploration file, without changing the verdict or the exit status: without the race
// detector, the test is clean.
func TestWarnings(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/w\n\ngo 1.24\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "w_test.go"), []byte(counterTest), 0o644)
	out, errOut, code := heddle(t, dir, "test", "-race=false", ".")
	if code != 0 {
		t.Fatalf("exit %d, want 0 (a warning is not a bug)\n%s\n%s", code, out, errOut)
	}
	// The unlocked increment, with whichever locked access of worker A the search met first.
	want := "write at w_test.go:24 by G1.2 holding no lock"
	if !strings.Contains(out, "warning: lockset: ") || !strings.Contains(out, want) || !strings.Contains(out, "--- PASS: TestCounter (") {
		t.Fatalf("output lacks the lockset warning about %q, or the clean verdict:\n%s", want, out)
	}
	out, _, code = heddle(t, dir, "test", "-race=false", "-json", ".")
	warnings := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct {
			Action  string
			Warning *struct{ Kind, Message string }
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		if e.Warning != nil {
			warnings++
			if e.Action != "output" || e.Warning.Kind != "lockset" || !strings.Contains(e.Warning.Message, want) {
				t.Errorf("warning event %s", line)
			}
		}
	}
	if code != 0 || warnings != 1 {
		t.Errorf("-json: exit %d, %d warning events, want 0 and 1", code, warnings)
	}
	v, err := record.ReadFile(filepath.Join(dir, ".heddle", "example.com", "w", "TestCounter", record.ExplorationFile))
	if err != nil {
		t.Fatal(err)
	}
	exp := v.(*record.Exploration)
	if len(exp.Warnings) != 1 || exp.Warnings[0].Kind != "lockset" || exp.Warnings[0].Confirmed != "" {
		t.Errorf("exploration file warnings %+v, want the lockset warning, not confirmed", exp.Warnings)
	}

	// With the race detector, the race is a bug, and its trace shows the warning of its run.
	out, errOut, code = heddle(t, dir, "test", ".")
	if code != exitBug || !strings.Contains(out, "--- FAIL: TestCounter (") || !strings.Contains(out, "    BUG: race (") {
		t.Fatalf("with -race: exit %d, want %d and the race\n%s\n%s", code, exitBug, out, errOut)
	}
	traces, _ := filepath.Glob(filepath.Join(dir, ".heddle", "example.com", "w", "TestCounter", "race-*"+record.TraceSuffix))
	if len(traces) != 1 {
		t.Fatalf("race traces: %v", traces)
	}
	tr, err := record.ReadTrace(traces[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Warnings) != 1 || !strings.Contains(tr.Warnings[0].Message, want) {
		t.Errorf("trace warnings %+v, want the lockset warning about %q", tr.Warnings, want)
	}
}
