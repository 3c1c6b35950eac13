package suite

import (
	"fmt"
	"slices"
	"strings"

	"github.com/heddledbg/heddle/record"
)

// A bug report's interleaving table shows a long run in part: a run of thousands of steps and
// a hundred goroutines is a table no one reads. heddle replay prints the whole run.
const (
	windowColumns = 12  // goroutines shown
	windowRows    = 60  // steps shown
	wholeRows     = 120 // a run of at most this many steps, and windowColumns goroutines, is shown whole
)

// window is the part of a run that a bug report's table shows: the goroutines the bug is
// about, the root, and those that last operated on the objects the bug's goroutines wait on,
// and the last steps of these goroutines.
type window struct {
	goroutines map[string]bool // nil: every goroutine
	first      int             // index in Events of the first step shown among theirs
	note       string          // what is left out, or ""
}

// newWindow chooses the window of t's table. A short run with few goroutines is shown whole.
func newWindow(t *record.Trace) window {
	stepped := map[string]bool{}
	for _, e := range t.Events {
		stepped[e.G] = true
	}
	if len(t.Events) <= wholeRows && len(stepped) <= windowColumns {
		return window{}
	}
	chosen := windowGoroutines(t, stepped)
	w := window{goroutines: map[string]bool{}}
	for _, g := range chosen {
		w.goroutines[g] = true
	}
	shown := 0
	w.first = len(t.Events)
	for i := len(t.Events) - 1; i >= 0 && shown < windowRows; i-- {
		if w.goroutines[t.Events[i].G] {
			w.first, shown = i, shown+1
		}
	}
	w.note = w.leftOut(t, chosen, shown, len(stepped))
	return w
}

// windowGoroutines chooses the goroutines of a window among those that stepped: the bug's,
// the root, and those that last operated on the objects the bug's goroutines wait on.
func windowGoroutines(t *record.Trace, stepped map[string]bool) []string {
	var chosen []string
	pick := func(g string) {
		if g != "" && stepped[g] && len(chosen) < windowColumns && !slices.Contains(chosen, g) {
			chosen = append(chosen, g)
		}
	}
	objs := map[string]bool{}
	for _, g := range t.Verdict.Goroutines {
		pick(g.ID)
		if g.Obj != "" {
			objs[g.Obj] = true
		}
		for _, o := range g.Objs {
			objs[o] = true
		}
	}
	for _, op := range t.Verdict.History {
		pick(op.G)
	}
	if len(chosen) == 0 && len(t.Events) > 0 {
		// A failure with no goroutine named: the one that took the last step.
		pick(t.Events[len(t.Events)-1].G)
	}
	if len(t.Goroutines) > 0 {
		pick(t.Goroutines[0].ID) // the root
	}
	// The goroutines that operated last on what the bug's goroutines wait on.
	for i := len(t.Events) - 1; i >= 0 && len(chosen) < windowColumns; i-- {
		if e := &t.Events[i]; objs[e.Obj] {
			pick(e.G)
		}
	}
	return chosen
}

// leftOut is the window's note: which steps it shows, of the chosen goroutines, and what it
// leaves out of the stepped goroutines'.
func (w window) leftOut(t *record.Trace, chosen []string, shown, stepped int) string {
	total := 0
	for _, e := range t.Events {
		if w.goroutines[e.G] {
			total++
		}
	}
	var left []string
	if n := len(t.Events) - shown; n > 0 {
		left = append(left, fmt.Sprintf("%d of %d steps", n, len(t.Events)))
	}
	if n := stepped - len(chosen); n > 0 {
		left = append(left, fmt.Sprintf("%d of %d goroutines", n, stepped))
	}
	who := strings.Join(chosen, ", ")
	note := "showing the steps of " + who
	if shown < total {
		note = fmt.Sprintf("showing the last %d steps of %s", shown, who)
	}
	return note + ": " + strings.Join(left, " and ") + " left out; heddle replay prints them all"
}

// shows reports whether the table has a row for event i.
func (w window) shows(t *record.Trace, i int) bool {
	return w.goroutines == nil || i >= w.first && w.goroutines[t.Events[i].G]
}

// column reports whether the table has a column for goroutine g.
func (w window) column(g string) bool { return w.goroutines == nil || w.goroutines[g] }
