//go:build race

package racetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	. "github.com/heddledbg/heddle/rt"
)

// The programs of TestRaceVerdict. Each racy program has a data race in every schedule; each
// correct one orders its accesses by one of the synchronizations heddle models, which must
// reach the race detector as happens-before edges (race.go).
var raceCases = []struct {
	name string
	racy bool
	body func()
}{
	{"plain", true, func() {
		x := new(int)
		done := MakeChan[bool](1)
		Go(func() { *x = 1; Send(done, true) })
		*x = 2
		Recv(done)
	}},
	{"map", true, func() {
		m := map[int]int{}
		done := MakeChan[bool](1)
		Go(func() { m[1] = 1; Send(done, true) })
		m[2] = 2
		Recv(done)
	}},
	{"samefunc", true, func() {
		// Three goroutines of one function: the first takes false and waits, the other two
		// race. The earlier access is named by the goroutines that accessed its address, not
		// by the function alone, which the first runs too.
		x := new(int)
		role := MakeChan[bool](3)
		idle, hold, done := MakeChan[bool](1), MakeChan[bool](0), MakeChan[bool](2)
		f := func() {
			if Recv(role) {
				// As the instrumenter rewrites x++, so that the lockset check sees it.
				*x = Store(x, *Load(x, "samefunc:1")+1, "samefunc:2")
				Send(done, true)
				return
			}
			Send(idle, true)
			Recv(hold)
		}
		Send(role, false)
		Go(f)
		Recv(idle)
		Send(role, true)
		Send(role, true)
		Go(f)
		Go(f)
		Recv(done)
		Recv(done)
		Send(hold, true)
	}},
	{"deferred", true, func() {
		// The goroutine's access is in a deferred closure, which the detector's stack shows
		// under runtime.deferreturn: it is still the goroutine's.
		x := new(int)
		ready := MakeChan[bool](1)
		Go(func() {
			defer func() {
				Send(ready, true)
				_ = *x
			}()
		})
		Recv(ready)
		*x = 1
	}},
	{"exitorders", true, func() {
		// A goroutine's exit orders nothing, even when its carrier ends before the next.
		x := new(int)
		var wg WaitGroup
		wg.Add(1)
		Go(func() { wg.Done(); *x = 1 })
		wg.Wait()
		*x = 2
	}},
	{"mutex", false, func() {
		x := new(int)
		var mu Mutex
		var wg WaitGroup
		for range 2 {
			wg.Add(1)
			Go(func() { mu.Lock(); *x++; mu.Unlock(); wg.Done() })
		}
		wg.Wait()
		_ = *x
	}},
	{"unbuffered", false, func() {
		x := new(int)
		ch := MakeChan[int](0)
		Go(func() { *x = 1; Send(ch, 1) })
		Recv(ch)
		*x = 2
	}},
	{"unbufferedback", false, func() {
		// The receive happens before the send completes.
		x := new(int)
		ch := MakeChan[int](0)
		done := MakeChan[bool](1)
		Go(func() { Send(ch, 1); *x = 1; Send(done, true) })
		*x = 2
		Recv(ch)
		Recv(done)
	}},
	{"buffered", false, func() {
		x := new(int)
		ch := MakeChan[int](1)
		Go(func() { *x = 1; Send(ch, 1) })
		Recv(ch)
		*x = 2
	}},
	{"semaphore", false, func() {
		// A channel of capacity 1 as a lock: the kth receive happens before the (k+1)th send.
		x := new(int)
		sem := MakeChan[bool](1)
		var wg WaitGroup
		for range 2 {
			wg.Add(1)
			Go(func() { Send(sem, true); *x++; Recv(sem); wg.Done() })
		}
		wg.Wait()
	}},
	{"close", false, func() {
		x := new(int)
		ch := MakeChan[int](0)
		Go(func() { *x = 1; Close(ch) })
		Recv(ch)
		*x = 2
	}},
	{"waitgroup", false, func() {
		// Every Done happens before Wait returns, not only the last one.
		x, y := new(int), new(int)
		var wg WaitGroup
		wg.Add(2)
		Go(func() { *x = 1; wg.Done() })
		Go(func() { *y = 1; wg.Done() })
		wg.Wait()
		*x, *y = 2, 2
	}},
	{"once", false, func() {
		x := new(int)
		var once Once
		var wg WaitGroup
		for range 2 {
			wg.Add(1)
			Go(func() { once.Do(func() { *x = 1 }); _ = *x; wg.Done() })
		}
		wg.Wait()
	}},
	{"atomic", false, func() {
		x := new(int)
		var flag int32
		Go(func() { *x = 1; StoreInt32(&flag, 1) })
		if LoadInt32(&flag) == 1 {
			*x = 2
		}
	}},
	{"go", false, func() {
		x := new(int)
		*x = 1
		done := MakeChan[bool](1)
		Go(func() { *x = 2; Send(done, true) })
		Recv(done)
	}},
	{"afterfunc", false, func() {
		// Setting a timer happens before its function runs.
		x := new(int)
		*x = 1
		done := MakeChan[bool](1)
		AfterFunc(time.Second, func() { *x = 2; Send(done, true) })
		Recv(done)
	}},
	{"pool", false, func() {
		// Goroutines that put and get items of one pool: the pool's record of who put each
		// item (rt's accessPool) is heddle's own state, not a race of the program's.
		var p Pool
		done := MakeChan[bool](2)
		for range 2 {
			Go(func() {
				x, ok := p.Get().(*int)
				if !ok {
					x = new(int)
				}
				// As the instrumenter rewrites *x = 1: the lockset check, which follows
				// the pool's hand-offs, is on.
				*x = Store(x, 1, "pool:1")
				p.Put(x)
				Send(done, true)
			})
		}
		Recv(done)
		Recv(done)
	}},
	{"cond", false, func() {
		x := new(int)
		var mu Mutex
		c := NewCond(&mu)
		ready := false
		Go(func() { mu.Lock(); *x = 1; ready = true; c.Signal(); mu.Unlock() })
		mu.Lock()
		for !ready {
			c.Wait()
		}
		*x = 2
		mu.Unlock()
	}},
}

// raceChooser picks the last alternative, or the first.
type raceChooser bool

func (last raceChooser) Choose(p *Point) int {
	if last {
		return len(p.Alts) - 1
	}
	return 0
}

// TestRaceVerdict runs the programs of raceCases under rt in a child process of this test
// binary, as heddle's workers run: with RaceSuppressions and a log file per process. The testing
// package fails the child for the races it sees, so the parent checks the verdicts the child
// prints: race for a racy program, under the first schedule (the detector reports a pair of
// accesses once per process), and ok for a correct one under two schedules.
func TestRaceVerdict(t *testing.T) {
	if os.Getenv("HEDDLE_RACE_CHILD") != "" {
		for _, c := range raceCases {
			for _, last := range []bool{false, true} {
				res := Run(Config{Chooser: raceChooser(last)}, c.body)
				fmt.Printf("verdict %s %v: %s: %s\n", c.name, last, res.Verdict.Kind, res.Verdict.Message)
			}
		}
		return
	}
	dir := t.TempDir()
	supp := filepath.Join(dir, "race.supp")
	if err := os.WriteFile(supp, []byte(RaceSuppressions), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRaceVerdict$", "-test.count=1")
	cmd.Env = append(os.Environ(), "HEDDLE_RACE_CHILD=1", "GORACE=suppressions="+supp+" log_path="+filepath.Join(dir, "race"))
	out, _ := cmd.CombinedOutput()
	got := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(strings.TrimPrefix(l, "verdict "), ": "); ok && strings.HasPrefix(l, "verdict ") {
			got[k] = v
		}
	}
	for _, c := range raceCases {
		for _, last := range []bool{false, true} {
			v, ok := got[fmt.Sprintf("%s %v", c.name, last)]
			switch {
			case !ok:
				t.Errorf("%s: no verdict; the child printed:\n%s", c.name, out)
			case c.racy && !last && !twoNamed(v):
				t.Errorf("%s: %s, want a race between two goroutines, each named", c.name, v)
			case c.name == "samefunc" && !last && !strings.HasSuffix(v, " by G1.2"):
				t.Errorf("%s: %s, want the earlier access by G1.2, not by G1.1, which runs the same function", c.name, v)
			case !c.racy && !strings.HasPrefix(v, "ok"):
				t.Errorf("%s (last=%v): %s, want ok", c.name, last, v)
			}
		}
	}
}

// twoNamed reports whether v is a race verdict that names two different goroutines of the
// run: "race: data race: write at x.go:1 by G1.1, and read at x.go:2 by G1".
var raceNames = regexp.MustCompile(`^race: data race: .* by (G[0-9.]+), and .* by (G[0-9.]+)$`)

func twoNamed(v string) bool {
	m := raceNames.FindStringSubmatch(v)
	return m != nil && m[1] != m[2]
}
