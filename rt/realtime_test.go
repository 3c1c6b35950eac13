package rt_test

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/heddledbg/heddle/rt"
)

// TestRealTime checks that a deadline taken from the virtual clock reaches the operating
// system as far from now on the real clock, and that a real pipe's read waits for it rather
// than timing out at once: the virtual clock starts in 2025.
func TestRealTime(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	var got, before time.Time
	var readErr error
	var waited time.Duration
	res := rt.Run(rt.Config{}, func() {
		d := rt.Now().Add(200 * time.Millisecond)
		before = time.Now()
		got = rt.RealTime(d)
		if err := r.SetReadDeadline(got); err != nil {
			readErr = err
			return
		}
		_, readErr = r.Read(make([]byte, 1))
		waited = time.Since(before)
	})
	if res.Verdict.Kind != rt.VerdictOK {
		t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
	}
	if d := got.Sub(before); d < 200*time.Millisecond || d > 10*time.Second {
		t.Errorf("RealTime(virtual now + 200ms) is %v after the real now", d)
	}
	if !errors.Is(readErr, os.ErrDeadlineExceeded) {
		t.Errorf("read: %v, want a deadline exceeded", readErr)
	}
	if waited < 150*time.Millisecond {
		t.Errorf("the read gave up after %v, before its deadline", waited)
	}
	if z := rt.RealTime(time.Time{}); !z.IsZero() {
		t.Errorf("RealTime(zero) = %v, want the zero time (no deadline)", z)
	}
}
