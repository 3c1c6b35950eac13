package suite

import (
	"context"
	"flag"
	"io"
	"os"
	"strings"
	"testing"
)

// TestStreams runs heddle test in this process with Flags.Stdout and Flags.Stderr set, as a
// program embedding the suite would: the report goes to the one, heddle's notes to the other,
// and nothing to the process's own standard output.
func TestStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a kernel")
	}
	var f Flags
	fs := flag.NewFlagSet("heddle test", flag.ContinueOnError)
	f.Register(fs)
	if err := fs.Parse([]string{"-v", "-budget", "runs=50", "-run", "^TestBug$", "-out", t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if err := f.Check("test"); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	f.Stdout, f.Stderr = &out, &errOut

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	code := Test(context.Background(), "../testdata/kernels", []string{"./doublelock"}, nil, true, &f)
	os.Stdout = stdout
	w.Close()
	leaked, _ := io.ReadAll(r)

	if code != ExitBug {
		t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitBug, &out, &errOut)
	}
	for _, want := range []string{"=== RUN   TestBug", "--- FAIL: TestBug", "BUG: ", "FAIL\texample.com/kernels/doublelock"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("Flags.Stdout lacks %q:\n%s", want, &out)
		}
	}
	if strings.Contains(errOut.String(), "--- FAIL") {
		t.Errorf("the report went to Flags.Stderr:\n%s", &errOut)
	}
	if len(leaked) > 0 {
		t.Errorf("the process's standard output got %q", leaked)
	}
}
