package lsp

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestAtomicityDetail checks what of a report's message an atomicity diagnostic keeps: not
// the function's name and verdict, which the diagnostic says itself.
func TestAtomicityDetail(t *testing.T) {
	tests := []struct{ fn, msg, want string }{
		{"(*Buffer).Append", "(*Buffer).Append is not atomic: G1.2 reset other at buffer.go:41", "G1.2 reset other at buffer.go:41"},
		{"(*Buffer).Append", "(*Buffer).Append is definitely not atomic; it blocked in the region", "it blocked in the region"},
		{"Append", "Append is possibly not atomic, G1.1's unlock is a left mover", "G1.1's unlock is a left mover"},
		{"Append", "not atomic: a deadlock inside the region", "a deadlock inside the region"},
		{"Append", "Append: G1.1 blocked on Lock", "G1.1 blocked on Lock"},
		{"Append", "Append is not atomic", ""},
		{"Append", "Appendix is not atomic", "Appendix is not atomic"},
		{"Append", "Append calls Len, which is not atomicity-checked", "Append calls Len, which is not atomicity-checked"},
		{"Append", "not atomicity", "not atomicity"},
		{"A.B", "AxB is not atomic: x", "AxB is not atomic: x"},
		{"Append", "", ""},
		{"(*Buffer).Append", "atomicity: (*Buffer).Append (buffer.go:26) is possibly not atomic: MC-ind: G1.1 lock at buffer.go:28", "MC-ind: G1.1 lock at buffer.go:28"},
		{"(*Buffer).Append", "(*Buffer).Append is not atomic: G1.1 deadlocked inside it (all goroutines are blocked)", "G1.1 deadlocked inside it (all goroutines are blocked)"},
	}
	for _, tt := range tests {
		if got := atomicityDetail(tt.fn, tt.msg); got != tt.want {
			t.Errorf("atomicityDetail(%q, %q) = %q, want %q", tt.fn, tt.msg, got, tt.want)
		}
	}
}

// TestNamedPositions checks the positions of a report's message and the clauses that name
// them, which become a diagnostic's related information.
func TestNamedPositions(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "buffer.go")
	r := &result{files: []string{file}, dir: dir}
	tests := []struct{ msg, want string }{
		{"G1.1 read the length at buffer.go:27, G1.2 reset it at buffer.go:41, and G1.1 copied at buffer.go:29: no serial order gives this",
			"[{27 G1.1 read the length at buffer.go:27} {41 G1.2 reset it at buffer.go:41} {29 G1.1 copied at buffer.go:29}]"},
		{"buffer.go:3", "[{3 buffer.go:3}]"},
		{"MC-ind: G1.1 lock of G1.2#1 at buffer.go:28 after G1.1 lock of G1.1#1 at buffer.go:60, and G1.2 lock of G1.2#1 at buffer.go:51 does not commute with it",
			"[{28 G1.1 lock of G1.2#1 at buffer.go:28} {60 G1.1 lock of G1.1#1 at buffer.go:60} {51 G1.2 lock of G1.2#1 at buffer.go:51 does not commute with it}]"},
		{"x: then G1 locked at buffer.go:5; other.go:7 is elsewhere", "[{5 G1 locked at buffer.go:5}]"},
		{"buffer.go:0 and buffer.go:99999999999999999999", "[]"},
	}
	for _, tt := range tests {
		var got []string
		for _, p := range r.namedPositions(tt.msg) {
			if p.path != file {
				t.Errorf("%q: position in %s, want %s", tt.msg, p.path, file)
			}
			got = append(got, fmt.Sprintf("{%d %s}", p.line, p.msg))
		}
		if s := fmt.Sprint(got); s != tt.want {
			t.Errorf("%q: %s, want %s", tt.msg, s, tt.want)
		}
	}
}

func TestJoinAnd(t *testing.T) {
	for _, tt := range []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"W"}, "W"},
		{[]string{"MC-ind", "MC-mover"}, "MC-ind and MC-mover"},
		{[]string{"MC-ind", "MC-mover", "W"}, "MC-ind, MC-mover and W"},
	} {
		if got := joinAnd(tt.names); got != tt.want {
			t.Errorf("joinAnd(%q) = %q, want %q", tt.names, got, tt.want)
		}
	}
}
