package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestGoTestFlags runs heddle test with go test's flags on a module with one buggy test
// (TestBug, first) and one clean test (TestClean), and checks that each flag means what it
// means in go test, or is refused with one line, and that the exit status is go test's: 0 no
// bug, 1 a bug or a package that cannot be built or loaded, 2 a usage error. Where go test
// can run the same command to the same end (its scheduler does not find TestBug's lost
// update, so not where TestBug runs), its exit status is checked to be heddle's too.
func TestGoTestFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores a test module")
	}
	for _, tc := range []struct {
		name    string
		dir     string // "": testdata/flags
		args    []string
		code    int
		asGo    bool     // go test with the same arguments exits with the same status
		want    []string // in stdout and stderr
		notWant []string
	}{
		{name: "both", args: []string{"./..."}, code: exitBug,
			want:    []string{"--- FAIL: TestBug (", "\n    BUG: fatal (", "FAIL\nFAIL\texample.com/flags\t", "?   \texample.com/flags/notests\t[no test files]\nFAIL\n"},
			notWant: []string{"TestClean", "heddle:"}},
		{name: "both -v", args: []string{"-v", "./..."}, code: exitBug,
			want: []string{"=== RUN   TestBug\n    BUG: fatal (", "    heddle: 1 bug; portfolio: ", "--- FAIL: TestBug (", "=== RUN   TestClean\n    heddle: clean; portfolio: ",
				"--- PASS: TestClean (", "FAIL\nFAIL\texample.com/flags\t", "?   \texample.com/flags/notests\t[no test files]\nFAIL\n"}},
		{name: "skip", args: []string{"-skip", "TestBug", "./..."}, code: exitOK, asGo: true,
			want: []string{"ok  \texample.com/flags\t"}, notWant: []string{"TestBug", "TestClean", "PASS", "FAIL"}},
		{name: "skip -v", args: []string{"-v", "-skip", "TestBug", "./..."}, code: exitOK, asGo: true,
			want: []string{"--- PASS: TestClean (", "PASS\nok  \texample.com/flags\t"}, notWant: []string{"TestBug", "FAIL"}},
		{name: "run and skip", args: []string{"-v", "-run", "Test", "-skip", "Bug$", "./..."}, code: exitOK, asGo: true,
			want: []string{"--- PASS: TestClean ("}, notWant: []string{"TestBug"}},
		{name: "count=1", args: []string{"-v", "-count=1", "-run", "TestClean", "./..."}, code: exitOK, asGo: true,
			want: []string{"--- PASS: TestClean ("}},
		{name: "no tests", args: []string{"-run", "TestNope", "./..."}, code: exitOK, asGo: true,
			want: []string{"ok  \texample.com/flags\t0.", "s [no tests to run]\n"}, notWant: []string{"heddle:", "testing: warning"}},
		{name: "no tests -v", args: []string{"-v", "-run", "TestNope", "./..."}, code: exitOK, asGo: true,
			want: []string{"testing: warning: no tests to run\nPASS\nok  \texample.com/flags\t", "[no tests to run]"}},
		{name: "no tests -v -json", args: []string{"-v", "-json", "-run", "TestNope", "./..."}, code: exitOK, asGo: true,
			want: []string{`"Output":"testing: warning: no tests to run\n"}`, `"Output":"PASS\n"}`}},
		{name: "C", dir: "testdata", args: []string{"-C", "flags", "-v", "-run", "TestClean", "./..."}, code: exitOK, asGo: true,
			want: []string{"--- PASS: TestClean ("}},
		{name: "C=", dir: "testdata", args: []string{"-C=flags", "-v", "-skip", "TestBug", "./..."}, code: exitOK, asGo: true,
			want: []string{"--- PASS: TestClean ("}},
		{name: "failfast", args: []string{"-v", "-failfast", "./..."}, code: exitBug,
			want: []string{"--- FAIL: TestBug (", "heddle: 1 bug; ", "search ended by the first bug (-failfast)", "FAIL\texample.com/flags\t"}, notWant: []string{"TestClean"}},
		{name: "go test's flags that change nothing", args: []string{"-v", "-parallel", "4", "-shuffle", "on", "-cpu", "1,2", "-run", "TestClean", "./..."}, code: exitOK, asGo: true,
			want: []string{"--- PASS: TestClean ("}},
		{name: "workers", args: []string{"-workers", "2", "-run", "TestBug", "./..."}, code: exitBug,
			want: []string{"--- FAIL: TestBug (", "BUG: fatal"}},
		{name: "timeout", args: []string{"-timeout", "1ns", "./..."}, code: exitBug,
			want: []string{"FAIL\texample.com/flags [", "test timed out after 1ns (-timeout)"}},
		{name: "no such package", args: []string{"./nosuchpkg"}, code: exitBug, asGo: true,
			want: []string{"# ./nosuchpkg\n", "nosuchpkg: directory not found\n", "FAIL\t./nosuchpkg [setup failed]\nFAIL\n"}, notWant: []string{"heddle:", "instrument:"}},
		{name: "no such module", args: []string{"example.com/nope"}, code: exitBug, asGo: true,
			want: []string{"# example.com/nope\n", "no required module provides package example.com/nope", "FAIL\texample.com/nope [setup failed]\nFAIL\n"}, notWant: []string{"heddle:", "instrument:"}},
		// testing.Verbose() is what go test shows the tests: true with -v only.
		{name: "quiet", dir: "testdata/verbose", args: []string{"."}, code: exitOK, asGo: true,
			want: []string{"ok  \texample.com/verbose\t"}},
		{name: "verbose", dir: "testdata/verbose", args: []string{"-v", "."}, code: exitBug, asGo: true,
			want: []string{"testing.Verbose() is true"}},
		{name: "build failed", dir: "testdata/broken", args: []string{"."}, code: exitBug, asGo: true,
			want: []string{"broken.go:4:17: undefined: c\n", "FAIL\texample.com/broken [build failed]\nFAIL\n"}, notWant: []string{"heddle:", "instrument:"}},
		{name: "no such directory", args: []string{"-C", "nosuchdir", "./..."}, code: exitBug, asGo: true,
			want: []string{"chdir nosuchdir"}},
		// -run and -skip select subtests, level by level, as go test's do.
		{name: "run a subtest", dir: "testdata/selected", args: []string{"-v", "-run", "TestSub/passes", "."}, code: exitOK, asGo: true,
			want: []string{"=== RUN   TestSub/passes", "--- PASS: TestSub ("}, notWant: []string{"fails"}},
		{name: "skip a subtest", dir: "testdata/selected", args: []string{"-v", "-skip", "TestSub/fails", "."}, code: exitOK, asGo: true,
			want: []string{"=== RUN   TestSub/passes", "--- PASS: TestSub ("}, notWant: []string{"fails"}},
		{name: "every subtest", dir: "testdata/selected", args: []string{"-run", "^TestSub$", "."}, code: exitBug, asGo: true,
			want: []string{"this subtest always fails"}},
		// Usage errors: one line that says why, before anything is built.
		{name: "count=3", args: []string{"-count", "3", "./..."}, code: exitUsage,
			want: []string{"heddle test: -count 3: heddle explores each test once, with as many runs as -budget allows (-budget runs=N); only -count=1 is accepted\n"}},
		{name: "C not first", args: []string{"-run", "TestClean", "-C", "flags", "./..."}, code: exitUsage, asGo: true,
			want: []string{"heddle test: -C flag must be first flag on command line\n"}},
		{name: "o", args: []string{"-o", "flags.test", "./..."}, code: exitUsage,
			want: []string{"heddle test: -o flags.test: the test binary heddle builds is instrumented"}},
		{name: "shuffle", args: []string{"-shuffle", "sometimes", "./..."}, code: exitUsage, asGo: true,
			want: []string{"-shuffle \"sometimes\": want off, on or an integer seed"}},
		{name: "cpu", args: []string{"-cpu", "0", "./..."}, code: exitUsage,
			want: []string{"-cpu \"0\": want a comma-separated list"}},
		{name: "skip regexp", args: []string{"-skip", "(", "./..."}, code: exitUsage,
			want: []string{"heddle test: -skip: element 0 of the pattern (\"(\"): error parsing regexp"}},
		{name: "workers 0", args: []string{"-workers", "0", "./..."}, code: exitUsage,
			want: []string{"heddle: -workers 0: want 1 or more"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir
			if dir == "" {
				dir = "testdata/flags"
			}
			// Last, so that -C stays first.
			args := append(append([]string{"test"}, tc.args...), "-out", t.TempDir())
			stdout, stderr, code := heddle(t, dir, args...)
			out := stdout + stderr
			if code != tc.code {
				t.Errorf("heddle %s: exit %d, want %d\n%s", strings.Join(args, " "), code, tc.code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("heddle %s: output lacks %q:\n%s", strings.Join(args, " "), w, out)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(out, w) {
					t.Errorf("heddle %s: output has %q:\n%s", strings.Join(args, " "), w, out)
				}
			}
			if tc.asGo {
				cmd := exec.Command("go", append([]string{"test"}, tc.args...)...)
				cmd.Dir = dir
				goOut, err := cmd.CombinedOutput()
				goCode := 0
				if ee, ok := err.(*exec.ExitError); ok {
					goCode = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				if goCode != code {
					t.Errorf("go test %s: exit %d, heddle's %d\n%s", strings.Join(tc.args, " "), goCode, code, goOut)
				}
			}
		})
	}
}
