package spawn

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// The test binary, started again with this variable set, is the child: it echoes what it reads
// on descriptor 3 to descriptor 4 with what its standard output is, then blocks until it is
// killed.
const childEnv = "HEDDLE_SPAWN_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		in, out := os.NewFile(3, "in"), os.NewFile(4, "out")
		line, _ := bufio.NewReader(in).ReadString('\n')
		stdout := "other"
		if fi, err := os.Stdout.Stat(); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
			stdout = "pipe"
		} else if err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			stdout = "character device"
		}
		io.WriteString(out, "echo "+line+"stdout: "+stdout+"\n")
		out.Close()
		select {}
	}
	os.Exit(m.Run())
}

// TestStartAndKill starts a child with two pipes as its descriptors 3 and 4, talks to it over
// them, and kills it. Its standard output, which the caller did not set, is a pipe, as go test
// gives a test binary, not /dev/null, which programs take for a terminal.
func TestStartAndKill(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stderr = os.Stderr
	err = Start(cmd, inR, outW)
	if !extraFiles {
		if err == nil || !strings.Contains(err.Error(), "file descriptors 3 and 4") {
			t.Fatalf("Start on %s: %v, want an error saying that descriptors 3 and 4 cannot be passed", runtime.GOOS, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	io.WriteString(inW, "hello\n")
	got, err := io.ReadAll(outR)
	if err != nil {
		t.Fatal(err)
	}
	if want := "echo hello\nstdout: pipe\n"; string(got) != want {
		t.Errorf("the child answered %q, want %q", got, want)
	}
	Kill(cmd)
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Exited() {
		t.Errorf("the child ended with %v, want killed by a signal", err)
	}
	Kill(cmd) // again, on a process that is gone
}

// TestKillNotStarted: a command that failed to start has no process, and Kill does nothing.
func TestKillNotStarted(t *testing.T) {
	cmd := exec.Command("/nonexistent/heddle-spawn-test")
	if err := Start(cmd); err == nil || !strings.Contains(err.Error(), "nonexistent") {
		t.Fatalf("Start: %v, want an error naming the path", err)
	}
	Kill(cmd)
}
