package record

import (
	"fmt"
	"path/filepath"
	"strings"
)

// State says what a goroutine involved in t's verdict was doing, and where, as Go's goroutine
// traces say it: "blocked in from.mu.Lock() at bank.go:15, held by G1.2 since bank.go:13".
// The CLI's report and the debugger's exceptions both say it so.
func (t *Trace) State(g GoroutineState) string {
	var s string
	switch g.State {
	case "blocked":
		x := g.Expr
		if x == "" && g.Obj != "" && t.Label(g.Obj) != g.Obj {
			x = t.Label(g.Obj)
		}
		s = Blocked(g.Op, x)
		if x == "" && g.Obj != "" {
			s += " on " + t.Describe(g.Obj)
		}
	default:
		s = g.State
	}
	if g.Pos != nil {
		s += " at " + g.Pos.Short()
	}
	if g.State == "blocked" && (g.Op == "lock" || g.Op == "rlock") {
		for _, h := range t.Holders(g.Obj) {
			switch {
			case h.Op == "lock":
				s += ", held by " + h.G
			case g.Op == "rlock":
				continue // readers do not keep out a reader
			default:
				s += ", read-locked by " + h.G
			}
			if h.Expr != "" && h.Expr != g.Expr {
				s += " as " + h.Expr
			}
			if h.Pos != nil {
				s += " since " + h.Pos.Short()
			}
		}
		if g.Op == "rlock" {
			// A reader waits behind a writer that waits: sync.RWMutex lets no new reader in
			// once Lock is called.
			for _, w := range t.Verdict.Goroutines {
				if w.State == "blocked" && w.Op == "lock" && w.Obj == g.Obj {
					s += ", behind " + w.ID + "'s waiting lock"
				}
			}
		}
	}
	return s
}

// Short is p as file:line, the file without its directory.
func (p Pos) Short() string {
	return filepath.Base(p.File) + ":" + fmt.Sprint(p.Line)
}

// VerdictReport is what t's verdict says of the goroutines, one line each with indent: what
// each one blocks on and who holds it, the timing of adversarial time, and the wait-for
// cycle.
func (t *Trace) VerdictReport(indent string) string {
	var b strings.Builder
	for _, g := range t.Verdict.Goroutines {
		fmt.Fprintf(&b, "%s%-8s %s\n", indent, g.ID, t.State(g))
	}
	for _, l := range t.Verdict.Timing {
		fmt.Fprintf(&b, "%s%s\n", indent, l)
	}
	if c := t.Verdict.Cycle; len(c) > 0 {
		fmt.Fprintf(&b, "%swait-for cycle: %s → %s\n", indent, strings.Join(c, " → "), c[0])
	}
	return b.String()
}
