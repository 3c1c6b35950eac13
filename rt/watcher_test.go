package rt

import (
	"testing"
	"time"
)

// TestWatcherNewRun checks that the watchdog takes a run made on the storage of the one it saw
// last (Run keeps a spare), with as many steps, for a new run: it inherited the old run's time,
// and a test whose run read a pipe right after many short runs was "waited for over 1s in
// uninstrumented code" 60 ms in. Its twin, the same run with no step, hangs.
func TestWatcherNewRun(t *testing.T) {
	r := &run{}
	r.cfg.Hang = time.Second
	t0 := time.Now()

	var same watcher
	same.check(r, t0)
	if got := same.check(r, t0.Add(2*time.Second)); got != giveUpHang {
		t.Errorf("the same run, no step for twice the hang limit: %d, want giveUpHang", got)
	}

	var next watcher
	next.check(r, t0)
	awaited.Add(1) // the driver waits for a new run
	if got := next.check(r, t0.Add(2*time.Second)); got != giveUpNot {
		t.Errorf("a new run on the same storage: %d, want giveUpNot", got)
	}
	if got := next.check(r, t0.Add(2500*time.Millisecond)); got != giveUpNot {
		t.Errorf("the new run half a limit later: %d, want giveUpNot", got)
	}
}
