package remote

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/heddledbg/heddle/worker"
)

// TestWorkerStuck runs a worker that reads its request and never answers, as one stuck in a
// test's cleanup would: Do must stop it and say so, within the request's limits.
func TestWorkerStuck(t *testing.T) {
	if os.Getenv("HEDDLE_STUCK_WORKER") == "1" {
		buf := make([]byte, 1<<10)
		os.NewFile(3, "request").Read(buf)
		time.Sleep(time.Hour)
	}
	defer func(g time.Duration) { answerGrace = g }(answerGrace)
	answerGrace = 100 * time.Millisecond
	w := &Worker{Path: os.Args[0], Args: []string{"-test.run=^TestWorkerStuck$"}, Env: []string{"HEDDLE_STUCK_WORKER=1"}}
	start := time.Now()
	err := w.Do(context.Background(), worker.Request{Cmd: "explore", Test: "TestX", Options: worker.Options{MaxTime: 200 * time.Millisecond, Hang: 200 * time.Millisecond}}, func(*worker.Message) {})
	if err == nil || !strings.Contains(err.Error(), "did not answer within 500ms") {
		t.Fatalf("Do = %v, want an error saying that the worker did not answer within 500ms", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Do returned after %v", d)
	}
}
