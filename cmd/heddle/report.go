package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/server"
	"github.com/heddledbg/heddle/timeline"
)

// reporter prints what heddle test finds: human-readable reports, a progress line on a
// terminal, or JSON events in the spirit of test2json.
type reporter struct {
	w        io.Writer
	f        testFlags
	tty      bool
	enc      *json.Encoder
	lastDraw time.Time
	drawn    bool
	srv      *server.Server // the live web view, with -serve
}

// publish forwards a worker's message to the live web view.
func (r *reporter) publish(m *explorer.Message) {
	if r.srv == nil {
		return
	}
	switch m.Type {
	case "node":
		r.srv.Publish(map[string]any{"type": "node", "node": m.Node})
	case "progress":
		r.srv.Publish(map[string]any{"type": "progress", "stats": m.Stats})
	}
}

func newReporter(w io.Writer, f testFlags) *reporter {
	r := &reporter{w: w, f: f}
	if f.jsonOut {
		r.enc = json.NewEncoder(w)
	} else if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		r.tty = true
	}
	return r
}

// event is one line of -json output.
type event struct {
	Time    time.Time           `json:"Time"`
	Action  string              `json:"Action"` // run, progress, bug, pass, fail, output
	Package string              `json:"Package"`
	Test    string              `json:"Test"`
	Elapsed float64             `json:"Elapsed,omitempty"`
	Output  string              `json:"Output,omitempty"`
	Stats   *explorer.WireStats `json:"Stats,omitempty"`
	Bug     *jsonBug            `json:"Bug,omitempty"`
}

type jsonBug struct {
	Kind       string                    `json:"kind"`
	Message    string                    `json:"message"`
	Goroutines []timeline.GoroutineState `json:"goroutines,omitempty"`
	Trace      string                    `json:"trace,omitempty"`
	Replay     string                    `json:"replay,omitempty"`
}

func (r *reporter) emit(e event) {
	e.Time = time.Now()
	r.enc.Encode(e)
}

func (r *reporter) begin(pkg, test string) {
	if r.enc != nil {
		r.emit(event{Action: "run", Package: pkg, Test: test})
	}
}

func (r *reporter) note(pkg, test, msg string) {
	if r.enc != nil {
		r.emit(event{Action: "output", Package: pkg, Test: test, Output: msg})
		return
	}
	fmt.Fprintf(os.Stderr, "heddle: %s %s: %s\n", pkg, test, msg)
}

// progress redraws the progress line, at most ten times a second, on a terminal only.
func (r *reporter) progress(s *explorer.WireStats, budget time.Duration, start time.Time) {
	if !r.tty || time.Since(r.lastDraw) < 100*time.Millisecond {
		return
	}
	r.lastDraw = time.Now()
	left := ""
	if budget > 0 {
		left = fmt.Sprintf("  %s left", (budget - time.Since(start)).Round(time.Second))
	}
	fmt.Fprintf(os.Stderr, "\r\033[K  %d runs  %.0f schedules/s  %d bugs%s", s.Runs, s.SchedulesPerSecond, s.BuggyRuns, left)
	r.drawn = true
}

func (r *reporter) end() {
	if r.drawn {
		fmt.Fprint(os.Stderr, "\r\033[K")
		r.drawn = false
	}
}

func (r *reporter) result(pkg, test, strategy string, s *explorer.WireStats, bugs []savedBug, elapsed time.Duration) {
	if r.enc != nil {
		for _, b := range bugs {
			jb := &jsonBug{Kind: b.Kind, Message: b.Message}
			if b.Trace != nil {
				jb.Goroutines = b.Trace.Verdict.Goroutines
			}
			if b.Path != "" {
				jb.Trace, jb.Replay = b.Path, "heddle replay "+b.Path
			}
			r.emit(event{Action: "bug", Package: pkg, Test: test, Bug: jb})
		}
		action := "pass"
		if len(bugs) > 0 {
			action = "fail"
		}
		r.emit(event{Action: action, Package: pkg, Test: test, Elapsed: elapsed.Seconds(), Stats: s})
		return
	}
	for _, b := range bugs {
		printBug(r.w, test, b)
	}
	status := "ok  "
	if len(bugs) > 0 {
		status = "FAIL"
	}
	if len(bugs) > 0 || r.f.verbose {
		complete := "budget exhausted"
		if s.Complete {
			complete = "complete"
		}
		fmt.Fprintf(r.w, "%s %s %s (%s: %d schedules, %s, %.0f/s, %s)\n", status, pkg, test, strategy, s.Runs, complete, s.SchedulesPerSecond, elapsed.Round(time.Millisecond))
	}
}

func printBug(w io.Writer, test string, b savedBug) {
	fmt.Fprintf(w, "--- BUG: %s: %s\n", test, b.Kind)
	fmt.Fprintf(w, "    %s\n", strings.ReplaceAll(b.Message, "\n", "\n    "))
	fmt.Fprint(w, foundBy(b.WireBug))
	if b.Trace == nil {
		fmt.Fprintln(w)
		return
	}
	for _, g := range b.Trace.Verdict.Goroutines {
		fmt.Fprintf(w, "    %-8s %s\n", g.ID, describe(g))
	}
	if len(b.Trace.Verdict.Cycle) > 0 {
		fmt.Fprintf(w, "    wait-for cycle: %s → %s\n", strings.Join(b.Trace.Verdict.Cycle, " → "), b.Trace.Verdict.Cycle[0])
	}
	fmt.Fprintf(w, "\n    interleaving (%d decisions, %d preemptions):\n", len(b.Trace.Decisions), b.Preemptions)
	printInterleaving(w, b.Trace, "    ")
	fmt.Fprintf(w, "\n    schedule: %s\n    replay:   heddle replay %s\n\n", b.Path, b.Path)
}

// describe says what a goroutine involved in a verdict was doing, and where.
func describe(g timeline.GoroutineState) string {
	var s string
	switch g.State {
	case "blocked":
		s = "blocked in " + g.Op
		if g.Obj != "" {
			s += " on " + g.Obj
		}
	default:
		s = g.State
	}
	if g.Pos != nil {
		s += " at " + short(*g.Pos)
	}
	return s
}

func short(p timeline.Pos) string {
	return filepath.Base(p.File) + ":" + fmt.Sprint(p.Line)
}

// printInterleaving prints a trace with one column per goroutine.
func printInterleaving(w io.Writer, t *timeline.Trace, indent string) {
	cols := map[string]int{}
	var names []string
	for _, e := range t.Events {
		if _, ok := cols[e.G]; !ok {
			cols[e.G] = len(names)
			names = append(names, e.G)
		}
	}
	const width = 30
	fmt.Fprintf(w, "%s%5s  ", indent, "step")
	for _, n := range names {
		fmt.Fprintf(w, "%-*s", width, n)
	}
	fmt.Fprintln(w)
	for _, e := range t.Events {
		if e.Op == "exit" {
			continue
		}
		cell := e.Op
		if e.Obj != "" {
			cell += " " + e.Obj
		}
		if e.Child != "" {
			cell += " " + e.Child
		}
		if e.Pos != nil {
			cell += " " + short(*e.Pos)
		}
		mark := " "
		if e.Decision != nil {
			mark = "*"
		}
		fmt.Fprintf(w, "%s%5d %s%s%s\n", indent, e.Step, mark, strings.Repeat(" ", cols[e.G]*width), cell)
	}
	fmt.Fprintf(w, "%s(* marks a step that heddle chose among several)\n", indent)
}
