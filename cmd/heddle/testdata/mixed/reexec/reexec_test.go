// Package reexec has a test that runs its own binary again, as tests of crashes do: the copy
// must run the test, not serve heddle, and heddle must say that it cannot explore the copy
// rather than pass the test.
package reexec

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestChild(t *testing.T) {
	if os.Getenv("REEXEC_CHILD") != "" {
		os.Stdout.WriteString("child ran the test\n")
		os.Exit(7)
	}
	cmd := exec.Command(os.Args[0], "-test.run="+t.Name(), "-test.v")
	cmd.Env = append(os.Environ(), "REEXEC_CHILD=1")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 7 || !strings.Contains(string(out), "child ran the test") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
