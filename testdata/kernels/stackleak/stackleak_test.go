// Pattern: a worker hands its result back on an unbuffered channel while the caller waits for
// either the result or a concurrent cancellation; when the cancellation wins, the caller
// returns and the worker's send blocks forever. The test's own leak check, which lists every
// goroutine with runtime.Stack and passes over the testing package's, finds the worker.
// Modeled on: pion/transport's test.CheckRoutines, the leak check of the Pion WebRTC modules
// (and fortytw2/leaktest), around request/response helpers that abandon a worker on cancel.
// Fix: the result channel has room for the one result (make(chan int, 1)), so the worker's
// send never waits and it returns whichever case the caller took.
package stackleak

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// routines lists the goroutines other than the testing package's and the caller, as the
// leak check of pion/transport's test package does.
func routines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, s := range strings.Split(string(buf), "\n\n") {
		if s == "" || strings.Contains(s, "testing.Main(") || strings.Contains(s, "testing.(*T).Run(") ||
			strings.Contains(s, "stackleak.routines(") {
			continue
		}
		out = append(out, s)
	}
	return out
}

// checkRoutines fails t if goroutines other than the test's are left, after retrying on a
// ticker for them to end. It checks at the start too, so that it is called as
// defer checkRoutines(t)().
func checkRoutines(t *testing.T) func() {
	check := func(when string) {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for try := 0; ; try++ {
			left := routines()
			if len(left) == 0 {
				return
			}
			if try == 10 {
				// The goroutines' first lines: their state and function.
				var tops []string
				for _, s := range left {
					lines := strings.SplitN(s, "\n", 3)
					tops = append(tops, strings.Join(lines[:min(2, len(lines))], " "))
				}
				t.Fatalf("unexpected goroutines on test %s: %s", when, strings.Join(tops, "; "))
			}
			<-tick.C
		}
	}
	check("startup")
	return func() { check("end") }
}

// request runs work on a goroutine and returns its result, or -1 if cancel closes first.
func request(result chan int, cancel <-chan struct{}, work func() int) int {
	go func() { result <- work() }()
	select {
	case v := <-result:
		return v
	case <-cancel:
		return -1
	}
}

func run(t *testing.T, result chan int) {
	defer checkRoutines(t)()
	cancel := make(chan struct{})
	go close(cancel)
	request(result, cancel, func() int { return 42 })
}

func TestBug(t *testing.T)   { run(t, make(chan int)) }
func TestFixed(t *testing.T) { run(t, make(chan int, 1)) }
