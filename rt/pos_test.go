package rt_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/heddledbg/heddle/rt"
)

// here returns the line after the one it is called on: where the operation under test is.
func here() int {
	_, _, line, _ := runtime.Caller(1)
	return line + 1
}

// TestBlockedPositions checks that a goroutine blocked in an rt operation is reported at the
// user's own line, also when the rt function was inlined into the user's.
func TestBlockedPositions(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func(line *int)
	}{
		{"recv", func(line *int) {
			ch := rt.MakeChan[int](0)
			*line = here()
			rt.Recv(ch)
		}},
		{"send", func(line *int) {
			ch := rt.MakeChan[int](0)
			*line = here()
			rt.Send(ch, 1)
		}},
		{"lock", func(line *int) {
			var mu rt.Mutex
			mu.Lock()
			*line = here()
			mu.Lock()
		}},
		{"wait", func(line *int) {
			var wg rt.WaitGroup
			wg.Add(1)
			*line = here()
			wg.Wait()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var line int
			res := rt.Run(rt.Config{Detail: true}, func() { tc.body(&line) })
			if res.Verdict.Kind != rt.VerdictDeadlock || len(res.Verdict.Goroutines) != 1 {
				t.Fatalf("verdict %+v", res.Verdict)
			}
			g := res.Verdict.Goroutines[0]
			file, got, _ := rt.Position(g.PC)
			if filepath.Base(file) != "pos_test.go" || got != line {
				t.Errorf("blocked at %s:%d, want pos_test.go:%d", file, got, line)
			}
			if len(g.Stack) == 0 || filepath.Base(g.Stack[0].File) != "pos_test.go" || g.Stack[0].Line != line {
				t.Errorf("stack starts at %+v, want pos_test.go:%d", g.Stack, line)
			}
		})
	}
}

// TestOpNames checks the operations a report names as the program wrote them: WaitGroup.Done
// is its own operation, not the Add(-1) it performs, and a park says what waits.
func TestOpNames(t *testing.T) {
	var doneLine int
	res := rt.Run(rt.Config{Detail: true}, func() {
		var wg rt.WaitGroup
		ch := rt.MakeChan[int](0)
		wg.Add(1)
		rt.Go(func() {
			rt.Recv(ch)
			doneLine = here()
			wg.Done()
		})
		rt.Send(ch, 1)
		wg.Wait()
	})
	if res.Verdict.Kind != rt.VerdictOK {
		t.Fatalf("verdict %+v", res.Verdict)
	}
	var ops []string
	for _, e := range res.Events {
		switch e.Op {
		case rt.OpWGDone:
			if _, line, _ := rt.Position(e.PC); line != doneLine {
				t.Errorf("wg.done at line %d, want %d", line, doneLine)
			}
		case rt.OpPark:
			ops = append(ops, "park "+e.Waits.String())
			continue
		}
		ops = append(ops, e.Op.String())
	}
	// Whichever goroutine reaches the unbuffered channel first parks on it, and says how.
	want := map[string]bool{"wg.add": true, "wg.done": true, "wg.wait": true, "park": true}
	for _, op := range ops {
		delete(want, op)
		if op == "park send" || op == "park recv" {
			delete(want, "park")
		}
	}
	if len(want) > 0 {
		t.Errorf("operations %v lack %v", ops, want)
	}
}
