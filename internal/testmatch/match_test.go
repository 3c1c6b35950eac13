package testmatch

import (
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestAgainstGoTest runs go test -v on testdata/names with each pair of patterns and checks
// that Match selects exactly the tests and subtests that go test ran, out of all of them.
func TestAgainstGoTest(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal(err)
	}
	ran := func(run, skip string) []string {
		args := []string{"test", "-count=1", "-v"}
		if run != "" {
			args = append(args, "-run", run)
		}
		if skip != "" {
			args = append(args, "-skip", skip)
		}
		cmd := exec.Command("go", append(args, ".")...)
		cmd.Dir = "testdata/names"
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		var names []string
		for _, m := range regexp.MustCompile(`(?m)^=== RUN\s+(\S+)$`).FindAllStringSubmatch(string(out), -1) {
			names = append(names, m[1])
		}
		return names
	}
	all := ran("", "")
	if len(all) < 20 {
		t.Fatalf("go test ran %d tests and subtests: %q", len(all), all)
	}
	for _, tc := range []struct{ run, skip string }{
		{"TestA", ""},
		{"^TestA$", ""},
		{"TestA/x", ""},
		{"^TestA$/^x$", ""},
		{"/x", ""},
		{"//inner", ""},
		{"TestA/x/inner", ""},
		{"TestA/#00", ""},
		{"TestA/x#01", ""},
		{"TestA/with_space", ""},
		{"TestA/with space", ""},
		{"TestB/z/slash", ""},
		{"TestA/x|TestB", ""},
		{"Test(A|B)/x", ""},
		{"TestA/[/]", ""},
		{"", "TestA"},
		{"", "TestA/x"},
		{"", "/inner"},
		{"TestA", "TestA/y|TestA/x/inner"},
		{"Alone", ""},
	} {
		f, err := New(tc.run, tc.skip)
		if err != nil {
			t.Fatalf("New(%q, %q): %v", tc.run, tc.skip, err)
		}
		// A subtest runs if it matches and its parent ran: the longest name before it that
		// it extends (a subtest's own name may have a slash).
		var got []string
		for i, n := range all {
			parent := ""
			for _, p := range all[:i] {
				if strings.HasPrefix(n, p+"/") && len(p) > len(parent) {
					parent = p
				}
			}
			if f.Match(n) && (parent == "" || slices.Contains(got, parent)) {
				got = append(got, n)
			}
		}
		if want := ran(tc.run, tc.skip); !slices.Equal(got, want) {
			t.Errorf("-run %q -skip %q: Match selects\n\t%q\ngo test ran\n\t%q", tc.run, tc.skip, got, want)
		}
	}
}

func TestBadPattern(t *testing.T) {
	for _, tc := range []struct{ run, skip, want string }{
		{"TestA/(", "", `-run: element 1 of the pattern ("("): error parsing regexp`},
		{"", "a|b/[", `-skip: element 1 of the pattern ("["): error parsing regexp`},
	} {
		if _, err := New(tc.run, tc.skip); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("New(%q, %q) = %v, want an error beginning %q", tc.run, tc.skip, err, tc.want)
		}
	}
}
