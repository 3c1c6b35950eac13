package lsp_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/heddledbg/heddle/lsp"
)

// kernelsDir is the bug-kernel corpus of the repository.
var kernelsDir = filepath.Join("..", "testdata", "kernels")

// A kernelCase is a kernel of the corpus, explored by the real heddle CLI, whose diagnostics
// must land on the lines of its golden report.
type kernelCase struct {
	kernel string
	kind   string   // the bug kind heddle reports with these flags
	gs     []string // the goroutines of heddle.golden that get a diagnostic
}

// The kernels are explored with the default strategy, except two whose inversions are
// found without executing the deadlock: a single run reports a lock-order inversion
// (lockorder), and exitblock-dd predicts a lock cycle (lockcycle). Either must point at the
// acquisitions where the executed deadlock of heddle.golden blocks.
var kernelRuns = []struct {
	flags   []string
	kernels []string
}{
	{[]string{"-run", "TestBug"}, []string{"abbalock", "timeoutleak", "condnoloop", "mapcheckact"}},
	{[]string{"-run", "TestBug", "-budget", "runs=1"}, []string{"rwlockorder", "jpffigure5"}},
	{[]string{"-run", "TestBug", "-strategy", "exitblock-dd", "-budget", "runs=3"}, []string{"threelockcycle"}},
}

var kernelCases = []kernelCase{
	{"abbalock", "deadlock", []string{"G1", "G1.1"}},
	{"timeoutleak", "leak", []string{"G1.2"}},
	{"condnoloop", "panic", []string{"G1.1"}},
	{"mapcheckact", "fatal", nil}, // the line is in the message
	{"rwlockorder", "lockorder", []string{"G1.1", "G1.2"}},
	{"jpffigure5", "lockorder", []string{"G1.1", "G1.2"}}, // names its locks L1 to L4
	{"threelockcycle", "lockcycle", []string{"G1.1", "G1.2", "G1.3"}},
}

// heddleBinary builds the heddle CLI once.
var heddleBinary = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(tmpRoot, "heddle")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/heddle")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building heddle: %v\n%s", err, out)
	}
	return bin, nil
})

// kernelWorkspace copies the kernels to a workspace and explores them with heddle test, which
// writes its results to .heddle there, once.
var kernelWorkspace = sync.OnceValues(func() (string, error) {
	bin, err := heddleBinary()
	if err != nil {
		return "", err
	}
	ws := filepath.Join(tmpRoot, "kernels")
	if err := copyFile(filepath.Join(kernelsDir, "go.mod"), filepath.Join(ws, "go.mod")); err != nil {
		return "", err
	}
	for _, k := range kernelCases {
		for _, f := range []string{k.kernel + "_test.go", "heddle.golden"} {
			if err := copyFile(filepath.Join(kernelsDir, k.kernel, f), filepath.Join(ws, k.kernel, f)); err != nil {
				return "", err
			}
		}
	}
	for _, r := range kernelRuns {
		args := append([]string{"test"}, r.flags...)
		for _, k := range r.kernels {
			args = append(args, "./"+k)
		}
		cmd := exec.Command(bin, args...)
		cmd.Dir = ws
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		// Exit status 1 means bugs were found, which is what the kernels are for.
		if ee := (*exec.ExitError)(nil); err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
			return "", fmt.Errorf("heddle %s: %v\n%s", strings.Join(args, " "), err, out.Bytes())
		}
	}
	return ws, nil
})

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

// goldenLine matches a goroutine of a kernel's heddle.golden: "G1.1 blocked in lock on
// G1#2 at abbalock_test.go:48, held by G1.2 since abbalock_test.go:40" or "G1.2 done at
// condnoloop_test.go:38"; the position is the first, where the goroutine is.
var goldenLine = regexp.MustCompile(`^(G[0-9.]+) .*? at (\S+\.go):(\d+)(?:, .*)?$`)

// goldenMessage matches the position in the message of a failed test.
var goldenMessage = regexp.MustCompile(`^message: test failed: (\S+\.go):(\d+):`)

type wantDiag struct {
	g    string // "" for a failed test
	file string
	line int
}

// goldenDiags returns where the diagnostics of a kernel must be, from its heddle.golden.
func goldenDiags(t *testing.T, ws string, k kernelCase) []wantDiag {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(kernelsDir, k.kernel, "heddle.golden"))
	if err != nil {
		t.Fatal(err)
	}
	var want []wantDiag
	for _, l := range strings.Split(string(data), "\n") {
		if m := goldenLine.FindStringSubmatch(l); m != nil && slices.Contains(k.gs, m[1]) {
			n, _ := strconv.Atoi(m[3])
			want = append(want, wantDiag{m[1], filepath.Join(ws, k.kernel, m[2]), n})
		}
		if m := goldenMessage.FindStringSubmatch(l); m != nil && k.gs == nil {
			n, _ := strconv.Atoi(m[2])
			want = append(want, wantDiag{"", filepath.Join(ws, k.kernel, m[1]), n})
		}
	}
	if len(want) != max(len(k.gs), 1) {
		t.Fatalf("%s/heddle.golden: found %v, want a line for each of %v", k.kernel, want, k.gs)
	}
	return want
}

// TestKernels explores kernels of the corpus with the real heddle CLI and checks that the
// diagnostics land on the lines of the kernels' golden reports, with the other goroutines
// of the bug as related information.
func TestKernels(t *testing.T) {
	if testing.Short() {
		t.Skip("builds heddle and explores kernels of the corpus")
	}
	ws, err := kernelWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	c := start(t, lsp.Options{Poll: -1})
	c.initialize(ws, nil)
	c.refresh()
	diags := c.diagnostics()
	for _, k := range kernelCases {
		t.Run(k.kernel, func(t *testing.T) {
			want := goldenDiags(t, ws, k)
			for _, w := range want {
				d := findDiag(diags[w.file], k.kind, w)
				if d == nil {
					t.Errorf("no %s diagnostic for %s at %s:%d; %s has:\n%s", k.kind, w.g, filepath.Base(w.file), w.line,
						filepath.Base(w.file), render(ws, map[string][]protocol.Diagnostic{w.file: diags[w.file]}))
					continue
				}
				if d.Source != lsp.Source || d.Severity != protocol.DiagnosticSeverityWarning {
					t.Errorf("%s: source %q, severity %v; want heddle, warning", d.Message, d.Source, d.Severity)
				}
				// Every other goroutine of the bug is related information.
				for _, o := range want {
					if o.g != w.g && !slices.ContainsFunc(d.RelatedInformation, func(r protocol.DiagnosticRelatedInformation) bool {
						p, _ := filePath(r.Location.URI)
						return p == o.file && int(r.Location.Range.Start.Line) == o.line-1 && strings.HasPrefix(r.Message, o.g+" ")
					}) {
						t.Errorf("%s: no related information for %s at line %d", d.Message, o.g, o.line)
					}
				}
			}
		})
	}
	checkGolden(t, "kernels.golden", render(ws, diags))
}

// findDiag finds the diagnostic of kind for w.
func findDiag(ds []protocol.Diagnostic, kind string, w wantDiag) *protocol.Diagnostic {
	for i, d := range ds {
		if d.Code != kind || int(d.Range.Start.Line) != w.line-1 {
			continue
		}
		rest, ok := strings.CutPrefix(d.Message, kind+" in TestBug: ")
		if ok && (w.g == "" || strings.HasPrefix(rest, w.g+" ") || strings.HasPrefix(rest, w.g+":")) {
			return &ds[i]
		}
	}
	return nil
}
