package dap

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/timeline"
	"github.com/heddledbg/heddle/worker"
	"github.com/heddledbg/heddle/worker/remote"
)

// Bug is a bug found by heddle/explore, as heddle/bugFound reports it.
type Bug struct {
	ID         int            `json:"id"`
	Kind       string         `json:"kind"`
	Message    string         `json:"message"`
	Goroutines []BugGoroutine `json:"goroutines,omitempty"`
	// Schedule is the saved trace file, and Replay the command that replays it; both are
	// empty until the search has ended and the bug's run has been re-executed in detail.
	Schedule string `json:"schedule,omitempty"`
	Replay   string `json:"replay,omitempty"`
	key      string
	trace    *timeline.Trace
}

// BugGoroutine is a goroutine involved in a bug.
type BugGoroutine struct {
	ID       string        `json:"id"`
	State    string        `json:"state"`
	Op       string        `json:"op,omitempty"`
	Position *timeline.Pos `json:"position,omitempty"`
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

// explore searches every schedule that shares the decisions made so far, in a worker
// process, while the debug session stays usable. It streams progress and bugs as events.
func (s *Session) explore(m *message, strategy, budget string) {
	in := s.current()
	if in == nil || s.prog == nil {
		s.fail(m, "heddle/explore: no program is being debugged")
		return
	}
	if strategy == "" {
		strategy = s.prog.strategy
	}
	if budget == "" {
		budget = s.prog.budget
	}
	if !slices.Contains(explorer.Strategies, strategy) {
		s.fail(m, "heddle/explore: unknown strategy %q (want one of %s)", strategy, strings.Join(explorer.Strategies, ", "))
		return
	}
	runs, d, err := explorer.ParseBudget(budget)
	if err != nil {
		s.fail(m, "heddle/explore: %v", err)
		return
	}
	st := in.ctrl.snapshot()
	prefix := make([]rt.Decision, len(st.decisions))
	for i, dc := range st.decisions {
		prefix[i] = dc.rt
	}
	e := s.explores
	ctx, cancel := context.WithCancel(s.ctx)
	e.mu.Lock()
	e.next++
	id := e.next
	e.running[id] = cancel
	e.mu.Unlock()
	s.respond(m, map[string]any{"id": id, "prefix": len(prefix)})
	s.mu.Lock()
	web := s.web
	s.mu.Unlock()
	// The schedule tree is streamed to the web view when it is open.
	opts := worker.Options{Strategy: strategy, MaxRuns: runs, MaxTime: d, Prefix: prefix, Tree: web != nil, Time: s.prog.time}
	prog := s.prog
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			e.mu.Lock()
			delete(e.running, id)
			e.mu.Unlock()
			cancel()
		}()
		start := time.Now()
		byKey := map[string]*Bug{}
		var stats *timeline.Stats
		nbugs := 0
		// publish sends a message to the web view; the first one it refuses is reported on
		// the debug console, and the view shows what came before.
		var refused error
		publish := func(msg any) {
			if err := web.Publish(msg); err != nil && refused == nil {
				refused = err
				s.output("stderr", "heddle: web view: "+err.Error()+"\n")
			}
		}
		w := prog.worker()
		err := remote.Explore(ctx, w, prog.test, opts, func(msg *worker.Message) {
			switch msg.Type {
			case "node":
				// A node sent again with its pruned alternatives is not part of the stream,
				// which holds each node once.
				if web != nil && msg.Node.Parent != timeline.Revisit {
					publish(msg.Node)
				}
			case "progress", "done":
				if web != nil && msg.Stats != nil {
					if msg.Type == "done" {
						publish(timeline.Done{Stats: *msg.Stats})
					} else {
						publish(timeline.Progress{Stats: *msg.Stats})
					}
				}
				if msg.Stats != nil {
					stats = msg.Stats
					s.event("heddle/progress", map[string]any{"id": id, "runs": stats.Runs, "schedulesPerSecond": stats.SchedulesPerSecond(),
						"bugs": nbugs, "elapsedMs": time.Since(start).Milliseconds()})
				}
			case "found", "bug":
				wb := msg.Bug
				b := byKey[wb.Key]
				if b == nil {
					b = &Bug{Kind: wb.Kind, Message: wb.Message, key: wb.Key}
					e.mu.Lock()
					e.bugs = append(e.bugs, b)
					b.ID = len(e.bugs)
					e.mu.Unlock()
					byKey[wb.Key] = b
					nbugs++
					if web != nil {
						publish(timeline.Bug{ID: b.ID, Kind: b.Kind, Message: b.Message, Preemptions: wb.Preemptions, Hits: wb.Hits})
					}
				}
				if wb.Trace != nil {
					s.completeBug(prog, b, wb.Trace)
				}
				s.event("heddle/bugFound", map[string]any{"id": id, "bug": b})
			}
		})
		done := map[string]any{"id": id, "bugs": nbugs, "cancelled": ctx.Err() != nil && s.ctx.Err() == nil}
		if stats != nil {
			done["runs"], done["complete"] = stats.Runs, stats.Complete
		}
		if err != nil && ctx.Err() == nil {
			done["error"] = err.Error()
		}
		s.event("heddle/exploreDone", done)
	}()
}

// completeBug saves a bug's trace where heddle test saves them, and fills in what the trace
// tells.
func (s *Session) completeBug(p *program, b *Bug, tr *timeline.Trace) {
	tr.Program.Dir = p.dir
	b.trace = tr
	b.Goroutines = nil
	for _, g := range tr.Verdict.Goroutines {
		bg := BugGoroutine{ID: g.ID, State: g.State, Op: g.Op, Position: g.Pos}
		b.Goroutines = append(b.Goroutines, bg)
	}
	dir := timeline.TestDir(timeline.ModuleResultDir(p.dir), p.pkg, p.test)
	path := timeline.BugFile(dir, "explore-", b.Kind, b.ID)
	if err := os.MkdirAll(dir, 0o755); err == nil {
		if err := timeline.WriteFile(path, tr); err == nil {
			b.Schedule = path
			b.Replay = "heddle replay " + path
		}
	}
}
