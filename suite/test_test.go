package suite

import "testing"

// TestHeddleFrame checks which failures are taken for a test that saw heddle's own goroutines.
func TestHeddleFrame(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{"leaks_test.go:44: found unexpected goroutines:\n[Goroutine 20 in state chan receive, with github.com/heddledbg/heddle/worker.runTest on top of the stack:", "github.com/heddledbg/heddle/worker.runTest"},
		{"github.com/heddledbg/heddle/rt.(*carrier).carry(0xc000)", "github.com/heddledbg/heddle/rt.(*carrier).carry"},
		{"bank_test.go:20: balance 90, want 100", ""},
		{"github.com/heddledbg/heddle/bidir.TestStepBack failed", ""}, // heddle's own tests, not its runtime
	} {
		if got := HeddleFrame(tc.msg); got != tc.want {
			t.Errorf("HeddleFrame(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
}
