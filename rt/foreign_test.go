package rt_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/heddledbg/heddle/rt"
)

// TestForeignGoroutine has a goroutine heddle did not start (as net/http starts a handler's)
// call instrumented code while the controlled goroutine waits for it outside heddle (as on a
// network read). The run must end with a verdict that says so: the caller must not take the
// waiting goroutine's place, which would hang the run or corrupt its schedule.
func TestForeignGoroutine(t *testing.T) {
	var mu rt.Mutex
	res := rt.Run(rt.Config{Hang: 5 * time.Second}, func() {
		done := make(chan struct{})
		go func() {
			mu.Lock()
			mu.Unlock()
			close(done)
		}()
		<-done
		mu.Lock()
		mu.Unlock()
	})
	if res.Verdict.Kind != rt.VerdictUnsupported || !strings.Contains(res.Verdict.Message, "did not start at ") || !strings.Contains(res.Verdict.Message, "foreign_test.go:24") {
		t.Fatalf("verdict %s: %s; want unsupported, naming the call from a goroutine heddle did not start at foreign_test.go:24", res.Verdict.Kind, res.Verdict.Message)
	}
	// The process can go on exploring.
	res = rt.Run(rt.Config{}, func() {
		mu.Lock()
		mu.Unlock()
	})
	if res.Verdict.Kind != rt.VerdictOK {
		t.Fatalf("the next run: verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
	}
}

// TestBlockedOutside has a controlled goroutine wait on a channel heddle does not know of (as
// in an Accept) for one that only another goroutine of the run would make ready. The run ends
// as unsupported, naming the wait, and the process cannot run more schedules: the check runs
// in a child process.
func TestBlockedOutside(t *testing.T) {
	if os.Getenv("HEDDLE_RT_CHILD") == "1" {
		outside := make(chan struct{})
		res := rt.Run(rt.Config{Chooser: last{}}, func() {
			rt.Go(func() { <-outside })
			rt.Gosched()
			close(outside)
		})
		fmt.Printf("%s: %s\n", res.Verdict.Kind, res.Verdict.Message)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBlockedOutside$", "-test.v=true")
	cmd.Env = append(os.Environ(), "HEDDLE_RT_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"unsupported: goroutine G1.1 has waited for over 1s outside heddle's control (chan receive at ", "foreign_test.go:53)"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestOutsideUnattended waits outside heddle for longer than an unattended run may, in a run
// without a hang limit, as a debuggee runs while a person looks at it: the run goes on.
func TestOutsideUnattended(t *testing.T) {
	outside := make(chan struct{})
	go func() {
		time.Sleep(2500 * time.Millisecond)
		close(outside)
	}()
	res := rt.Run(rt.Config{Chooser: last{}, Hang: 100000 * time.Hour}, func() {
		rt.Go(func() { <-outside })
		rt.Gosched()
	})
	if res.Verdict.Kind != rt.VerdictOK {
		t.Fatalf("verdict %s: %s, want ok", res.Verdict.Kind, res.Verdict.Message)
	}
}

// TestSyscallPastHang has the running goroutine wait for a child process for longer than the
// hang limit: a system call, not a loop of the program's, so the run ends as unsupported,
// naming the wait, and not as a hang. The check runs in a child process, which the wait
// poisons.
func TestSyscallPastHang(t *testing.T) {
	if os.Getenv("HEDDLE_RT_CHILD") == "syscall" {
		res := rt.Run(rt.Config{Hang: time.Second}, func() {
			exec.Command("sleep", "3").Run()
		})
		fmt.Printf("%s: %s\n", res.Verdict.Kind, res.Verdict.Message)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestSyscallPastHang$")
	cmd.Env = append(os.Environ(), "HEDDLE_RT_CHILD=syscall")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"unsupported: goroutine G1 has been in a system call for over 1s (", "foreign_test.go:"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestForeignTimers has a goroutine heddle did not start (one that package initialisation
// started) make timers and contexts while a run is active: rt behaves as the standard
// primitive for it rather than crashing, and the run ends as unsupported, naming the call.
func TestForeignTimers(t *testing.T) {
	calls := []struct {
		name string
		call func()
	}{
		{"NewTicker", func() { rt.NewTicker(time.Hour).Stop() }},
		{"NewTimer", func() { rt.NewTimer(time.Hour).Stop() }},
		{"AfterFunc", func() { rt.AfterFunc(time.Hour, func() {}).Stop() }},
		{"WithCancel", func() {
			_, cancel := rt.WithCancel(context.Background())
			cancel()
		}},
		{"WithTimeout", func() {
			_, cancel := rt.WithTimeout(context.Background(), time.Hour)
			cancel()
		}},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			start, done := make(chan struct{}), make(chan struct{})
			go func() {
				<-start
				c.call()
				close(done)
			}()
			res := rt.Run(rt.Config{Hang: 5 * time.Second}, func() {
				close(start)
				<-done
			})
			if res.Verdict.Kind != rt.VerdictUnsupported || !strings.Contains(res.Verdict.Message, "did not start at ") {
				t.Fatalf("verdict %s: %s; want unsupported, naming the call from a goroutine heddle did not start", res.Verdict.Kind, res.Verdict.Message)
			}
		})
	}
}
