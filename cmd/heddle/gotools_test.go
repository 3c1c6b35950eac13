package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The Go tools that read go test's output, at the versions heddle test's output is checked
// with.
const (
	gotestsumModule      = "gotest.tools/gotestsum@v1.13.0"
	goJUnitReportModule  = "github.com/jstemmer/go-junit-report/v2@v2.1.0"
	gotestsumCommand     = "gotestsum"
	goJUnitReportCommand = "go-junit-report"
)

var (
	toolsOnce sync.Once
	toolsDir  string
	toolsErr  error
	toolsOut  string
)

// goTools installs gotestsum and go-junit-report, once, and returns their directory. A module
// proxy that cannot be reached skips the test, saying so; any other failure fails it.
func goTools(t *testing.T) string {
	t.Helper()
	toolsOnce.Do(func() {
		toolsDir, toolsErr = os.MkdirTemp("", "heddle-gotools-")
		if toolsErr != nil {
			return
		}
		for _, m := range []string{gotestsumModule, goJUnitReportModule} {
			cmd := exec.Command("go", "install", m)
			cmd.Env = append(os.Environ(), "GOBIN="+toolsDir)
			out, err := cmd.CombinedOutput()
			if err != nil {
				toolsErr, toolsOut = err, string(out)
				return
			}
		}
	})
	if toolsErr != nil {
		if unreachable(toolsOut) {
			t.Skipf("SKIPPED: the module proxy cannot be reached to install %s and %s, so heddle's output is not checked with them:\n%s", gotestsumModule, goJUnitReportModule, toolsOut)
		}
		t.Fatalf("go install: %v\n%s", toolsErr, toolsOut)
	}
	return toolsDir
}

// unreachable reports whether the go command's output says that the module proxy could not
// be reached (or may not be, with GOPROXY=off or GOFLAGS=-mod=vendor).
func unreachable(out string) bool {
	for _, s := range []string{"dial tcp", "no such host", "connection refused", "i/o timeout", "network is unreachable",
		"TLS handshake timeout", "proxyconnect", "module lookup disabled", "GOPROXY=off"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

// junitReport is what the check reads of go-junit-report's XML.
type junitReport struct {
	Suites []struct {
		Name  string `xml:"name,attr"`
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Text string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// TestGoTools checks heddle test's output with the Go tools that read go test's: gotestsum
// reads its -json events, go-junit-report its -v text, and each must list the test with a bug
// as failed, with heddle's report as its output, and the clean test as passed. Subtests are
// listed as go test lists them: the one in which the bug's run ended as failed, with its
// parent, the others as passed or skipped. The exit status is go test's: 1 with a bug, 0
// without, 0 when no test matches -run.
func TestGoTools(t *testing.T) {
	if testing.Short() {
		t.Skip("installs gotestsum and go-junit-report, builds and explores a test module")
	}
	bin := goTools(t)
	const flags = "example.com/flags"
	fatal := []string{"BUG: fatal", "value = 1, want 2", "replay:"}
	for _, tc := range []struct {
		name, dir, pkg string
		args           []string
		code           int
		failed         []string // the tests that fail, the first with heddle's report
		report         []string // what the report must hold
		passed         []string
		skipped        []string
	}{
		{name: "bug and clean", dir: "testdata/flags", pkg: flags, args: []string{"./..."}, code: exitBug, failed: []string{"TestBug"}, report: fatal, passed: []string{"TestClean"}},
		{name: "clean", dir: "testdata/flags", pkg: flags, args: []string{"-run", "TestClean", "./..."}, code: exitOK, passed: []string{"TestClean"}},
		{name: "no test matches", dir: "testdata/flags", pkg: flags, args: []string{"-run", "TestNope", "./..."}, code: exitOK},
		{name: "subtests", dir: "testdata/subtests", pkg: "example.com/subtests/bug", args: []string{"./bug"}, code: exitBug,
			failed: []string{"TestSubtests", "TestSubtests/lockorder"}, report: []string{"BUG: deadlock", "wait-for cycle", "replay:"},
			passed: []string{"TestSubtests/count"}, skipped: []string{"TestSubtests/allocs"}},
	} {
		pkg := tc.pkg
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"test", "-out", out, "-json"}, tc.args...)
			stdout, stderr, code := heddle(t, tc.dir, args...)
			if code != tc.code {
				t.Fatalf("heddle %s: exit %d, want %d\n%s\n%s", strings.Join(args, " "), code, tc.code, stdout, stderr)
			}
			checkTest2JSON(t, stdout)
			events := filepath.Join(t.TempDir(), "events.json")
			if err := os.WriteFile(events, []byte(stdout), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(filepath.Join(bin, gotestsumCommand), "--format", "testname", "--raw-command", "--", "cat", events)
			sum, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("gotestsum: %v\n%s", err, sum)
			}
			for i, test := range tc.failed {
				_, failure, ok := strings.Cut(string(sum), "=== FAIL: "+pkg+" "+test+" (")
				if !strings.Contains(string(sum), "FAIL "+pkg+"."+test+" (") || !ok {
					t.Errorf("gotestsum does not list %s as failed:\n%s", test, sum)
					continue
				}
				if i > 0 {
					continue // a failed subtest's parent has the report
				}
				for _, w := range tc.report {
					if !strings.Contains(failure, w) {
						t.Errorf("gotestsum's failure of %s lacks %q:\n%s", test, w, sum)
					}
				}
			}
			for _, test := range tc.passed {
				if !strings.Contains(string(sum), "PASS "+pkg+"."+test+" (") {
					t.Errorf("gotestsum does not list %s as passed:\n%s", test, sum)
				}
			}
			for _, test := range tc.skipped {
				if !strings.Contains(string(sum), "SKIP "+pkg+"."+test+" (") {
					t.Errorf("gotestsum does not list %s as skipped:\n%s", test, sum)
				}
			}
			// "DONE 1 test", "DONE 2 tests"
			if done := fmt.Sprintf("DONE %d test", len(tc.failed)+len(tc.passed)+len(tc.skipped)); !strings.Contains(string(sum), done) {
				t.Errorf("gotestsum does not print %q:\n%s", done, sum)
			}

			args = append([]string{"test", "-out", out, "-v"}, tc.args...)
			stdout, stderr, code = heddle(t, tc.dir, args...)
			if code != tc.code {
				t.Fatalf("heddle %s: exit %d, want %d\n%s\n%s", strings.Join(args, " "), code, tc.code, stdout, stderr)
			}
			cmd = exec.Command(filepath.Join(bin, goJUnitReportCommand), "-set-exit-code")
			cmd.Stdin = strings.NewReader(stdout)
			xmlOut, err := cmd.Output()
			junitCode := 0
			if ee, ok := err.(*exec.ExitError); ok {
				junitCode = ee.ExitCode()
			} else if err != nil {
				t.Fatalf("go-junit-report: %v", err)
			}
			if want := min(tc.code, 1); junitCode != want {
				t.Errorf("go-junit-report -set-exit-code: exit %d, want %d", junitCode, want)
			}
			var rep junitReport
			if err := xml.Unmarshal(xmlOut, &rep); err != nil {
				t.Fatalf("go-junit-report's XML: %v\n%s", err, xmlOut)
			}
			cases := map[string]*string{} // test → its failure, nil if none
			skipped := map[string]bool{}
			for _, s := range rep.Suites {
				if s.Name == pkg+"/notests" && len(s.Cases) == 0 {
					continue // [no test files], as go-junit-report makes of go test's output
				}
				if s.Name != pkg {
					t.Errorf("suite %q with %d test cases, want %q", s.Name, len(s.Cases), pkg)
				}
				for _, c := range s.Cases {
					var f *string
					if c.Failure != nil {
						f = &c.Failure.Text
					}
					cases[c.Name] = f
					skipped[c.Name] = c.Skipped != nil
				}
			}
			if len(cases) != len(tc.failed)+len(tc.passed)+len(tc.skipped) {
				t.Errorf("go-junit-report's test cases %v, want %v, %v and %v\n%s", mapKeys(cases), tc.failed, tc.passed, tc.skipped, xmlOut)
			}
			for i, test := range tc.failed {
				f, ok := cases[test]
				if !ok || f == nil {
					t.Errorf("go-junit-report: no <failure> for %s\n%s", test, xmlOut)
					continue
				}
				if i > 0 {
					continue
				}
				for _, w := range tc.report {
					if !strings.Contains(*f, w) {
						t.Errorf("go-junit-report's <failure> of %s lacks %q:\n%s", test, w, *f)
					}
				}
			}
			for _, test := range tc.passed {
				if f, ok := cases[test]; !ok || f != nil || skipped[test] {
					t.Errorf("go-junit-report: %s missing, failed or skipped\n%s", test, xmlOut)
				}
			}
			for _, test := range tc.skipped {
				if !skipped[test] {
					t.Errorf("go-junit-report: %s not skipped\n%s", test, xmlOut)
				}
			}
		})
	}
}

func mapKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// checkTest2JSON checks that stdout is a stream of test2json's events: known actions, and
// one line of output per output event.
func checkTest2JSON(t *testing.T, stdout string) {
	t.Helper()
	actions := []string{"start", "run", "pause", "cont", "pass", "bench", "fail", "output", "skip", "build-output", "build-fail"}
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var e struct {
			Action, Package, Test, Output string
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		if !slices.Contains(actions, e.Action) {
			t.Errorf("action %q is not test2json's: %s", e.Action, line)
		}
		if e.Action == "output" && (strings.Count(e.Output, "\n") != 1 || !strings.HasSuffix(e.Output, "\n")) {
			t.Errorf("output event of other than one line: %s", line)
		}
	}
}
