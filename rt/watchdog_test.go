package rt_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/heddledbg/heddle/rt"
)

// TestComputing has the run's only goroutine execute instrumented code (memory accesses) for
// several hang limits without reaching a scheduling point, as a test that computes over
// buffers does: it is running, not hung, and the run ends as it would under go test. A loop
// that accesses memory forever is given up at heddle's limit for code that computes, ten hang
// limits, and the report says that the limit is heddle's; a loop that executes no
// instrumented code is given up at the hang limit. They run in child processes, which a hang
// poisons.
func TestComputing(t *testing.T) {
	if os.Getenv("HEDDLE_RT_CHILD") == "compute" {
		x := 0
		res := rt.Run(rt.Config{Hang: time.Second}, func() {
			for start := time.Now(); time.Since(start) < 3*time.Second; {
				for range 1000 {
					rt.Update(&x, 1, "c:1")
				}
			}
		})
		fmt.Printf("computes: %s: %s\n", res.Verdict.Kind, res.Verdict.Message)
		res = rt.Run(rt.Config{Hang: time.Second}, func() {
			for {
				rt.Update(&x, 1, "c:2")
			}
		})
		fmt.Printf("forever: %s: %s\n", res.Verdict.Kind, res.Verdict.Message)
		return
	}
	if os.Getenv("HEDDLE_RT_CHILD") == "spin" {
		res := rt.Run(rt.Config{Hang: time.Second}, func() {
			y := 1
			for y != 0 {
				y = y*3 | 1
			}
		})
		fmt.Printf("spins: %s: %s\n", res.Verdict.Kind, res.Verdict.Message)
		return
	}
	for _, c := range []struct {
		child string
		want  []string
	}{
		{"compute", []string{"computes: ok: \n", "forever: hang: rt: goroutine G1 ran for 10s without reaching a scheduling point at ",
			"watchdog_test.go:34 (an infinite loop?), executing instrumented code all along: heddle's limit for code that computes is 10 times the hang limit"}},
		{"spin", []string{"spins: hang: rt: goroutine G1 ran for 1s without reaching a scheduling point at ", "watchdog_test.go:4", " (an infinite loop?); the process"}},
	} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestComputing$")
		cmd.Env = append(os.Environ(), "HEDDLE_RT_CHILD="+c.child)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		for _, want := range c.want {
			if !strings.Contains(string(out), want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	}
}
