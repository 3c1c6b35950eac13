package suite

import "testing"

func TestProgramOutput(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"nothing", "=== RUN   TestHeddleWorker\nPASS\n", ""},
		{"stderr between the worker's lines",
			"=== RUN   TestHeddleWorker\n2026/11/28 worker 1 wrote 1\n    --- FAIL: TestHeddleWorker/heddle (0.00s)\n--- FAIL: TestHeddleWorker (0.05s)\nFAIL\n",
			"2026/11/28 worker 1 wrote 1\n"},
		{"the program's own PASS is kept", "PASS\ndone\n", "PASS\ndone\n"},
		{"other tests' lines are the program's", "=== RUN   TestOther\n", "=== RUN   TestOther\n"},
		{"no final newline", "=== RUN   TestHeddleWorker\nlast words", "last words"},
	}
	for _, tt := range tests {
		if got := programOutput(tt.in); got != tt.want {
			t.Errorf("%s: programOutput(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}
