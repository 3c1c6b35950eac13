package instrument

import (
	"bytes"
	"fmt"
	"go/token"
	"strconv"
)

// A writer accumulates the rewritten text of one file.
//
// It tracks the position that the compiler will assign to the next byte it
// writes, taking the line directives it has emitted into account. Whenever
// original source is about to be copied to a place where the compiler would
// see it at a different line or column, the writer first emits a line
// directive, so that every token of the user's code keeps its original
// file:line:col while text that the rewriter inserts is attributed to the
// statement it replaces.
type writer struct {
	r        *rewriter
	buf      bytes.Buffer
	filename string // file name written into line directives
	line     int    // compiler's line for the next byte
	col      int    // compiler's column for the next byte
}

// insert writes text produced by the rewriter.
func (w *writer) insert(s string) {
	w.buf.WriteString(s)
	w.advance(s)
}

// insertf is insert with formatting.
func (w *writer) insertf(format string, args ...any) {
	w.insert(fmt.Sprintf(format, args...))
}

func (w *writer) advance(s string) {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			w.line++
			w.col = 1
		} else {
			w.col++
		}
	}
}

// at makes the next inserted text appear at pos.
func (w *writer) at(pos token.Pos) {
	p := w.r.tf.PositionFor(pos, false)
	if p.Line != w.line || p.Column != w.col {
		w.directive(p.Line, p.Column)
	}
}

// onLine makes the next inserted text appear on pos's line, keeping the column it would
// have if it is already there.
func (w *writer) onLine(pos token.Pos) {
	if p := w.r.tf.PositionFor(pos, false); p.Line != w.line {
		w.directive(p.Line, p.Column)
	}
}

// directive emits a line directive giving the next byte the position
// line:col. At the start of a line whose original text also starts in
// column 1 it uses the //line form, which keeps any following //go:
// directive comment at the beginning of its line.
func (w *writer) directive(line, col int) {
	if w.col == 1 && col == 1 {
		fmt.Fprintf(&w.buf, "//line %s:%d:1\n", w.filename, line)
	} else {
		fmt.Fprintf(&w.buf, "/*line %s:%d:%d*/", w.filename, line, col)
	}
	w.line, w.col = line, col
}

// node copies the source of n, applying the rewrites nested in it.
func (w *writer) node(n interface {
	Pos() token.Pos
	End() token.Pos
}) {
	w.copy(n.Pos(), n.End())
}

// copy copies the source in [from, to), applying the rewrites whose nodes lie
// entirely inside it. Nested rewrites are reached through the renderers of
// the outermost ones.
func (w *writer) copy(from, to token.Pos) {
	r := w.r
	for from < to {
		next := to
		var e *edit
		for i := r.search(from); i < len(r.edits); i++ {
			c := &r.edits[i]
			if c.pos >= to {
				break
			}
			if c.end <= to {
				e, next = c, c.pos
				break
			}
		}
		w.text(from, next)
		if e == nil {
			return
		}
		e.render(w)
		from = e.end
	}
}

// text copies original bytes, emitting a line directive before the first
// token whose position would otherwise be wrong.
func (w *writer) text(from, to token.Pos) {
	src := w.r.src
	lo, hi := w.r.tf.Offset(from), w.r.tf.Offset(to)
	i := lo
	for i < hi && isSpace(src[i]) {
		i++
	}
	w.raw(src[lo:i])
	if i == hi {
		return
	}
	p := w.r.tf.PositionFor(w.r.tf.Pos(i), false)
	if p.Line != w.line || p.Column != w.col {
		w.directive(p.Line, p.Column)
	}
	w.raw(src[i:hi])
}

func (w *writer) raw(b []byte) {
	w.buf.Write(b)
	w.advance(string(b))
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// quote returns s as a Go string literal.
func quote(s string) string { return strconv.Quote(s) }
