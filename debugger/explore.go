package debugger

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/heddledbg/heddle/driver"
	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/wire"
)

// Bug is a bug an exploration found (Explore), as Front.BugFound reports it.
type Bug struct {
	ID         int
	Kind       string
	Message    string
	Goroutines []BugGoroutine
	// Schedule is the saved trace file, and Replay the command that replays it; both are
	// empty until the search has ended and the bug's run has been re-executed in detail.
	Schedule string
	Replay   string
	key      string
	trace    *record.Trace
}

// BugGoroutine is a goroutine involved in a bug.
type BugGoroutine struct {
	ID       string
	State    string
	Op       string
	Position *record.Pos
}

// explorations are the session's searches and the bugs they found.
type explorations struct {
	mu      sync.Mutex
	next    int
	running map[int]context.CancelFunc
	bugs    []*Bug
}

func newExplorations() *explorations { return &explorations{running: map[int]context.CancelFunc{}} }

func (e *explorations) cancel(id int) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if id == 0 {
		for _, c := range e.running {
			c()
		}
		return len(e.running) > 0
	}
	c, ok := e.running[id]
	if ok {
		c()
	}
	return ok
}

func (e *explorations) bug(id int) *Bug {
	e.mu.Lock()
	defer e.mu.Unlock()
	if id < 1 || id > len(e.bugs) {
		return nil
	}
	return e.bugs[id-1]
}

// Progress reports on a running exploration.
type Progress struct {
	ID                 int
	Runs               int
	SchedulesPerSecond float64
	Bugs               int
	ElapsedMs          int64
}

// ExploreDone reports the end of an exploration.
type ExploreDone struct {
	ID        int
	Runs      int
	Bugs      int
	Complete  bool
	Cancelled bool
	Error     string
	// Warnings are the checks' findings that are not bugs, as heddle test prints them.
	Warnings []*record.Warning
}

// Cancel cancels exploration id, or every exploration for id 0.
func (d *Debugger) Cancel(id int) { d.explores.cancel(id) }

// Explore searches every schedule that shares the decisions made so far, in a worker
// process, while the debug session stays usable. strategy and budget default to the launch
// configuration's. It returns the exploration's id and the number of decisions it shares,
// and reports on it through the front end.
func (d *Debugger) Explore(strategy, budget string) (id, prefixLen int, err error) {
	in := d.current()
	if in == nil || d.prog == nil {
		return 0, 0, ErrNoProgram
	}
	if strategy == "" {
		strategy = d.prog.strategy
	}
	if budget == "" {
		budget = d.prog.budget
	}
	if _, err := explorer.ParseStrategy(strategy); err != nil {
		return 0, 0, err
	}
	// The budget is heddle test's -budget, for the one test: a total bounds it as time does.
	b, err := explorer.ParseTestBudget(budget)
	if err != nil {
		return 0, 0, err
	}
	runs, limit := b.Single()
	st := in.ctrl.snapshot()
	prefix := make([]rt.Decision, len(st.decisions))
	for i, dc := range st.decisions {
		prefix[i] = dc.rt
	}
	e := d.explores
	ctx, cancel := context.WithCancel(d.ctx)
	e.mu.Lock()
	e.next++
	id = e.next
	e.running[id] = cancel
	e.mu.Unlock()
	// The schedule tree goes to the web view, which starts now if it has not, so that a page
	// opened during or after the search shows it.
	web, err := d.webServer()
	if err != nil {
		d.errorf("web view: %v", err)
	}
	opts := wire.Options{Strategy: strategy, MaxRuns: runs, MaxTime: limit, Prefix: prefix, Tree: web != nil, Time: d.prog.time, Quantum: d.prog.quantum}
	prog := d.prog
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		defer func() {
			e.mu.Lock()
			delete(e.running, id)
			e.mu.Unlock()
			cancel()
		}()
		start := time.Now()
		byKey := map[string]*Bug{}
		var stats *record.Stats
		var warnings []*record.Warning
		nbugs := 0
		// publish sends a message to the web view; the first one it refuses is reported on
		// the debug console, and the view shows what came before.
		var refused error
		publish := func(msg any) {
			if err := web.Publish(msg); err != nil && refused == nil {
				refused = err
				d.errorf("web view: %v", err)
			}
		}
		w := prog.worker()
		err := driver.Explore(ctx, w, prog.test, opts, func(msg *wire.Message) {
			switch msg.Type {
			case wire.MsgRestart:
				// The search starts again without a subtest heddle cannot explore: the view
				// shows its tree anew. Bugs found before stay listed, though only the new
				// search's come back with a trace.
				if web != nil {
					publish(record.Start{Program: record.Program{Package: prog.pkg, Test: prog.test}})
				}
			case "node":
				// A node sent again with its pruned alternatives is not part of the stream,
				// which holds each node once.
				if web != nil && msg.Node.Parent != record.Revisit {
					publish(msg.Node)
				}
			case "progress", "done":
				if web != nil && msg.Stats != nil {
					if msg.Type == "done" {
						publish(record.Done{Stats: *msg.Stats})
					} else {
						publish(record.Progress{Stats: *msg.Stats})
					}
				}
				if msg.Type == "done" {
					warnings = msg.Warnings
				}
				if msg.Stats != nil {
					stats = msg.Stats
					d.front.Progress(Progress{ID: id, Runs: stats.Runs, SchedulesPerSecond: stats.SchedulesPerSecond(),
						Bugs: nbugs, ElapsedMs: time.Since(start).Milliseconds()})
				}
			case "found", "bug":
				wb := msg.Bug
				b := byKey[wb.Key]
				fresh := b == nil
				if fresh {
					b = &Bug{Kind: wb.Kind, Message: wb.Message, key: wb.Key}
					e.mu.Lock()
					e.bugs = append(e.bugs, b)
					b.ID = len(e.bugs)
					e.mu.Unlock()
					byKey[wb.Key] = b
					nbugs++
				}
				traced := wb.Trace != nil && b.trace == nil
				if wb.Trace != nil {
					d.completeBug(prog, b, wb.Trace)
				}
				if web != nil && (fresh || traced) {
					// The view shows a bug as soon as it is found, and its trace once it has
					// one: the same bug again, naming the trace the server now holds.
					tb := record.Bug{ID: b.ID, Kind: b.Kind, Message: b.Message, Preemptions: wb.Preemptions, Hits: wb.Hits}
					if b.trace != nil {
						name := b.Schedule
						if name == "" {
							name = fmt.Sprintf("exploration %d, bug %d", id, b.ID)
						}
						if err := web.AddTrace(name, b.trace); err != nil {
							d.errorf("web view: %v", err)
						} else {
							tb.Trace, tb.Replay = name, b.Replay
						}
					}
					publish(tb)
				}
				d.front.BugFound(id, b)
			}
		})
		done := ExploreDone{ID: id, Bugs: nbugs, Cancelled: ctx.Err() != nil && d.ctx.Err() == nil, Warnings: warnings}
		if stats != nil {
			done.Runs, done.Complete = stats.Runs, stats.Complete
		}
		if err != nil && ctx.Err() == nil {
			done.Error = err.Error()
		}
		d.front.ExploreDone(done)
	}()
	return id, len(prefix), nil
}

// completeBug saves a bug's trace where heddle test saves them, and fills in what the trace
// tells.
func (d *Debugger) completeBug(p *program, b *Bug, tr *record.Trace) {
	tr.Program.Dir = p.dir
	b.trace = tr
	b.Goroutines = nil
	for _, g := range tr.Verdict.Goroutines {
		bg := BugGoroutine{ID: g.ID, State: g.State, Op: g.Op, Position: g.Pos}
		b.Goroutines = append(b.Goroutines, bg)
	}
	dir := record.TestDir(record.ModuleResultDir(p.dir), p.pkg, p.test)
	path := record.BugFile(dir, "explore-", b.Kind, b.ID)
	if err := os.MkdirAll(dir, 0o755); err == nil {
		if err := record.WriteFile(path, tr); err == nil {
			b.Schedule = path
			b.Replay = "heddle replay " + path
		}
	}
}
