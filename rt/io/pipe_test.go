package io_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/rt"
	rtio "github.com/heddledbg/heddle/rt/io"
)

// TestPipe: std's io.Pipe, instrumented, between goroutines of a run: what it carries, and a
// writer that nobody reads, which is left blocked under heddle's control and so is a leak.
func TestPipe(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func() string // returns what went wrong, or ""
		want rt.VerdictKind
		msg  string // in the verdict's message
	}{
		{"copy", func() string {
			r, w := rtio.Pipe()
			rt.Go(func() {
				io.WriteString(w, "hello, ")
				io.WriteString(w, "world")
				w.Close()
			})
			b, err := io.ReadAll(r)
			if string(b) != "hello, world" || err != nil {
				return "read " + string(b)
			}
			return ""
		}, rt.VerdictOK, ""},
		{"closed reader", func() string {
			r, w := rtio.Pipe()
			r.Close()
			if _, err := w.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
				return "Write after the reader's Close: " + errString(err)
			}
			return ""
		}, rt.VerdictOK, ""},
		{"writer nobody reads", func() string {
			_, w := rtio.Pipe()
			rt.Go(func() { w.Write([]byte("x")) })
			return ""
		}, rt.VerdictLeak, ""},
		{"reader nobody writes to", func() string {
			r, _ := rtio.Pipe()
			r.Read(make([]byte, 1))
			return "Read returned"
		}, rt.VerdictDeadlock, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var wrong string
			res := rt.Run(rt.Config{}, func() { wrong = tc.body() })
			if wrong != "" && res.Verdict.Kind == rt.VerdictOK {
				t.Error(wrong)
			}
			if res.Verdict.Kind != tc.want || !strings.Contains(res.Verdict.Message, tc.msg) {
				t.Errorf("verdict %s: %q, want %s with %q", res.Verdict.Kind, res.Verdict.Message, tc.want, tc.msg)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}
