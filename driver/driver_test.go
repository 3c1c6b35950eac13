package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/wire"
)

// TestWorkerStuck runs a worker that reads its request and never answers, as one stuck in a
// test's cleanup would: Do must stop it and say so, within the request's limits, and say
// where its goroutines were.
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
	err := w.Do(context.Background(), wire.Request{Cmd: wire.CmdExplore, Test: "TestX", Options: wire.Options{MaxTime: 200 * time.Millisecond, Hang: 200 * time.Millisecond}}, func(*wire.Message) {})
	if err == nil || !strings.Contains(err.Error(), "did not answer within 500ms") {
		t.Fatalf("Do = %v, want an error saying that the worker did not answer within 500ms", err)
	}
	if !regexp.MustCompile(`\n\tgoroutine \d+ \[sleep\]: time.Sleep \(time.go:\d+\), in github.com/heddledbg/heddle/driver.TestWorkerStuck \(driver_test.go:\d+\)\n`).MatchString(err.Error()) {
		t.Errorf("Do = %v, want the error to show the goroutine asleep in TestWorkerStuck", err)
	}
	if _, file, ok := strings.Cut(err.Error(), "(the whole traceback: "); !ok {
		t.Errorf("Do = %v, want the error to name the file of the whole traceback", err)
	} else {
		file = strings.TrimSuffix(file, ")")
		defer os.Remove(file)
		if b, err := os.ReadFile(file); err != nil || !strings.Contains(string(b), "driver.TestWorkerStuck(") {
			t.Errorf("the whole traceback (%v): %.200s", err, b)
		}
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Do returned after %v", d)
	}
}

// TestWorkerAlive runs a worker that takes three times its answer limit to answer, saying
// all along that its runs make progress (wire.MsgAlive), as one in a long run on a loaded
// machine does: Do waits for its answer, and does not pass the heartbeats on.
func TestWorkerAlive(t *testing.T) {
	limit := 2400 * time.Millisecond // the budget, the hang limit and answerGrace, below
	if os.Getenv("HEDDLE_ALIVE_WORKER") == "1" {
		buf := make([]byte, 1<<10)
		os.NewFile(3, "request").Read(buf)
		enc := json.NewEncoder(os.NewFile(4, "response"))
		for start := time.Now(); time.Since(start) < 3*limit; time.Sleep(50 * time.Millisecond) {
			enc.Encode(wire.Message{Type: wire.MsgAlive})
		}
		enc.Encode(wire.Message{Type: wire.MsgDone, Stats: &record.Stats{Runs: 1}})
		os.Exit(0)
	}
	answeredAlone(t, "TestWorkerAlive", "HEDDLE_ALIVE_WORKER=1")
}

// TestWorkerAnswering runs a worker whose answer takes three times its limit to come
// through the pipe, as a run's result of tens of megabytes does on a loaded machine: Do waits
// for the whole answer.
func TestWorkerAnswering(t *testing.T) {
	limit := 2400 * time.Millisecond // the budget, the hang limit and answerGrace, below
	if os.Getenv("HEDDLE_SLOW_WORKER") == "1" {
		buf := make([]byte, 1<<10)
		os.NewFile(3, "request").Read(buf)
		out := os.NewFile(4, "response")
		out.WriteString(`{"type":"done","stats":{"runs":1},"error":"`)
		for start := time.Now(); time.Since(start) < 3*limit; time.Sleep(50 * time.Millisecond) {
			out.WriteString(strings.Repeat("x", 1<<10))
		}
		out.WriteString("\"}\n")
		os.Exit(0)
	}
	answeredAlone(t, "TestWorkerAnswering", "HEDDLE_SLOW_WORKER=1")
}

// answeredAlone runs test's fake worker, selected by env, on an exploration whose answer
// limit is 2.4 s, and checks that Do passes on its answer and nothing else.
func answeredAlone(t *testing.T, test, env string) {
	t.Helper()
	defer func(g time.Duration) { answerGrace = g }(answerGrace)
	answerGrace = 2 * time.Second
	w := &Worker{Path: os.Args[0], Args: []string{"-test.run=^" + test + "$"}, Env: []string{env}}
	var got []wire.MessageType
	err := w.Do(context.Background(), wire.Request{Cmd: wire.CmdExplore, Test: "TestX", Options: wire.Options{MaxTime: 200 * time.Millisecond, Hang: 200 * time.Millisecond}}, func(m *wire.Message) {
		got = append(got, m.Type)
	})
	if err != nil {
		t.Fatalf("Do = %v, want the worker's answer", err)
	}
	if !slices.Equal(got, []wire.MessageType{wire.MsgDone}) {
		t.Errorf("received %v, want the answer alone", got)
	}
}

// TestWorkerAnswerTooLong runs a worker whose answer is longer than heddle reads: Do says
// that the limit is heddle's, where it said that the program exited without answering.
func TestWorkerAnswerTooLong(t *testing.T) {
	if os.Getenv("HEDDLE_LONG_WORKER") == "1" {
		buf := make([]byte, 1<<10)
		os.NewFile(3, "request").Read(buf)
		out := os.NewFile(4, "response")
		out.WriteString(`{"type":"done","error":"` + strings.Repeat("x", 8<<10) + "\"}\n")
		os.Exit(0)
	}
	defer func(m int) { maxAnswer = m }(maxAnswer)
	maxAnswer = 4 << 10
	w := &Worker{Path: os.Args[0], Args: []string{"-test.run=^TestWorkerAnswerTooLong$"}, Env: []string{"HEDDLE_LONG_WORKER=1"}}
	err := w.Do(context.Background(), wire.Request{Cmd: wire.CmdExplore, Test: "TestX"}, func(*wire.Message) {})
	var we *ExitError
	if err == nil || errors.As(err, &we) || !strings.Contains(err.Error(), "heddle's limit: an answer of up to") {
		t.Fatalf("Do = %v, want an error that names heddle's limit", err)
	}
}

// TestKeepSpare runs workers that answer a list request with their process id: with a spare
// kept, each request but the first is served by the process started during the one before,
// and Close ends the spare.
func TestKeepSpare(t *testing.T) {
	if os.Getenv("HEDDLE_PID_WORKER") == "1" {
		buf := make([]byte, 1<<10)
		os.NewFile(3, "request").Read(buf)
		json.NewEncoder(os.NewFile(4, "response")).Encode(wire.Message{Type: wire.MsgTests, Tests: []string{strconv.Itoa(os.Getpid())}})
		os.Exit(0)
	}
	w := &Worker{Path: os.Args[0], Args: []string{"-test.run=^TestKeepSpare$"}, Env: []string{"HEDDLE_PID_WORKER=1"}}
	pid := func() string {
		names, err := List(context.Background(), w)
		if err != nil || len(names) != 1 {
			t.Fatalf("List = %v, %v", names, err)
		}
		return names[0]
	}
	spare := func() *process {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.spare
	}
	pid()
	if spare() != nil {
		t.Fatal("a spare process without KeepSpare")
	}
	w.KeepSpare(true)
	pid()
	for range 2 {
		s := spare()
		if s == nil {
			t.Fatal("no spare process after a request with KeepSpare")
		}
		if got, want := pid(), strconv.Itoa(s.cmd.Process.Pid); got != want {
			t.Errorf("the request was served by process %s, want the spare, %s", got, want)
		}
	}
	w.KeepSpare(false)
	last := spare()
	if got, want := pid(), strconv.Itoa(last.cmd.Process.Pid); got != want || spare() != nil {
		t.Errorf("after KeepSpare(false): served by %s, want the spare %s, and no new spare (%v)", got, want, spare())
	}
	w.KeepSpare(true)
	pid()
	w.Close()
	if spare() != nil {
		t.Error("Close kept the spare")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.spares {
		t.Error("Close left KeepSpare on")
	}
}

// TestChildrenFile: the file a worker's program notes its own re-runs in is made by the driver
// and removed once the worker is gone, even though a worker that has answered is killed
// before it could clean up.
func TestChildrenFile(t *testing.T) {
	if os.Getenv("HEDDLE_CHILDREN_WORKER") == "1" {
		buf := make([]byte, 1<<10)
		os.NewFile(3, "request").Read(buf)
		json.NewEncoder(os.NewFile(4, "response")).Encode(wire.Message{Type: wire.MsgTests, Tests: []string{os.Getenv(wire.EnvChildren)}})
		time.Sleep(time.Hour)
	}
	w := &Worker{Path: os.Args[0], Args: []string{"-test.run=^TestChildrenFile$"}, Env: []string{"HEDDLE_CHILDREN_WORKER=1"}}
	names, err := List(context.Background(), w)
	if err != nil || len(names) != 1 || names[0] == "" {
		t.Fatalf("List = %q, %v; want the worker's %s", names, err, wire.EnvChildren)
	}
	path := names[0]
	// The worker is killed and reaped in the background: wait for its file to go.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(path); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still exists a minute after the worker answered", path)
		}
	}
}

// TestIsolatedDetailLimit runs isolated runs in workers that answer each run request with the
// time limit it carried: a replay in detail mode is held to the deadline an exploration gives
// it (explorer.DetailLimiter), as the replay of a first run for its lock trees is, and has no
// limit otherwise, as the replay of a bug has none.
func TestIsolatedDetailLimit(t *testing.T) {
	if os.Getenv("HEDDLE_LIMIT_WORKER") == "1" {
		var req wire.Request
		json.NewDecoder(os.NewFile(3, "request")).Decode(&req)
		json.NewEncoder(os.NewFile(4, "response")).Encode(wire.Message{Type: wire.MsgResult,
			Result: &rt.Result{Verdict: rt.Verdict{Kind: rt.VerdictOK, Message: req.Options.MaxTime.String()}}})
		os.Exit(0)
	}
	w := &Worker{Path: os.Args[0], Args: []string{"-test.run=^TestIsolatedDetailLimit$"}, Env: []string{"HEDDLE_LIMIT_WORKER=1"}}
	r := &isolated{ctx: context.Background(), w: w, test: "TestX", start: time.Now()}
	defer r.close()
	limit := func(detail bool) time.Duration {
		t.Helper()
		res := r.Run(&explorer.Guide{Bound: -1}, detail)
		d, err := time.ParseDuration(res.Verdict.Message)
		if err != nil {
			t.Fatalf("run (detail %v): %v %q", detail, res.Verdict.Kind, res.Verdict.Message)
		}
		return d
	}
	if d := limit(true); d != 0 {
		t.Errorf("a replay in detail mode without a deadline was limited to %v", d)
	}
	var _ explorer.DetailLimiter = r
	r.LimitDetail(time.Now().Add(time.Hour))
	if d := limit(true); d <= 0 || d > time.Hour {
		t.Errorf("a replay in detail mode held to a deadline in an hour was limited to %v", d)
	}
	r.LimitDetail(time.Now().Add(-time.Second))
	if d := limit(true); d != time.Millisecond {
		t.Errorf("a replay in detail mode past its deadline was limited to %v, want the least limit, 1ms", d)
	}
}

// TestIsolatedFirstRunLimit: the first run of a search in a process per run may go on past the
// budget (explorer.FirstRunLimit), as a search in one process's may; the runs after it keep
// to the budget. The fake worker is TestIsolatedDetailLimit's.
func TestIsolatedFirstRunLimit(t *testing.T) {
	w := &Worker{Path: os.Args[0], Args: []string{"-test.run=^TestIsolatedDetailLimit$"}, Env: []string{"HEDDLE_LIMIT_WORKER=1"}}
	const budget = time.Second
	r := &isolated{ctx: context.Background(), w: w, test: "TestX", start: time.Now(), opts: explorer.Options{MaxTime: budget}}
	defer r.close()
	var limits []time.Duration
	for range 2 {
		res := r.Run(&explorer.Guide{Bound: -1}, false)
		d, err := time.ParseDuration(res.Verdict.Message)
		if err != nil {
			t.Fatalf("run %d: %v %q", len(limits)+1, res.Verdict.Kind, res.Verdict.Message)
		}
		limits = append(limits, d)
	}
	if limits[0] <= budget || limits[0] > explorer.FirstRunLimit(budget) || limits[1] > budget {
		t.Errorf("limits %v: want the first past the budget of %v, within %v, and the second within the budget", limits, budget, explorer.FirstRunLimit(budget))
	}
}

// TestLineReader reads messages, one per line, through a pipe that gives a few bytes at a
// time, as a worker's answer comes: a line of megabytes, lines around the buffer's size, a
// last line without its newline, and a line over the limit, refused.
func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 3<<20)
	for _, tc := range []struct {
		name  string
		in    string
		want  []string
		error bool
	}{
		{"short", "a\nbc\n", []string{"a", "bc"}, false},
		{"megabytes", long + "\nend\n", []string{long, "end"}, false},
		{"no newline at the end", "a\nlast", []string{"a", "last"}, false},
		{"over the limit", "a\n" + long + long + "\n", []string{"a"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &lineReader{r: bufio.NewReaderSize(iotest.HalfReader(strings.NewReader(tc.in)), 1<<10), max: 4 << 20}
			var got []string
			var err error
			for {
				var line []byte
				if line, err = l.next(); err != nil {
					break
				}
				got = append(got, string(line))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("read %d lines, want %d", len(got), len(tc.want))
			}
			if (err != io.EOF) != tc.error {
				t.Errorf("ended with %v", err)
			}
		})
	}
}
