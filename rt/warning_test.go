package rt

import "testing"

// TestDescribeUnnamedLock: a lock that the describing result cannot name is still said to be
// held, not left as an empty name.
func TestDescribeUnnamedLock(t *testing.T) {
	w := &Warning{Kind: "lockset",
		Earlier: Access{Pos: "/src/a.go:1:5", Write: true, G: 1, Locks: []ObjID{7}},
		Later:   Access{Pos: "/src/b.go:2:3", G: 2}}
	got := w.Describe(func(g GID) string { return map[GID]string{1: "G1", 2: "G1.1"}[g] }, func(ObjID) string { return "" })
	want := "lockset: write at a.go:1 by G1 holding a lock, and read at b.go:2 by G1.1 holding no lock: no lock protects them both"
	if got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}
