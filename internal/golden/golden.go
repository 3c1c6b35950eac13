// Package golden compares test output with golden files, which go test -update rewrites.
package golden

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files instead of comparing with them")

// Updating reports whether the test runs with -update, for tests whose golden files are not
// plain text compared whole (a generated source file, a golden file that may be absent).
func Updating() bool { return *update }

// Check compares got with the golden file at path, or rewrites the file under -update.
func Check(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("differs from %s (run go test -update to accept):\n--- got\n%s--- want\n%s", path, got, want)
	}
}
