package dap

import (
	godap "github.com/google/go-dap"

	"github.com/heddledbg/heddle/debugger"
)

func (s *Session) configurationDone(m *message, _ godap.ConfigurationDoneArguments) {
	s.dbg.Start(s.answer(m))
}

// move answers a forward motion when Delve has started it; the stop comes as an event.
func (s *Session) move(m *message, motion debugger.Motion, thread int, granularity string) {
	s.dbg.Move(motion, thread, granularity, func(err error) {
		switch {
		case err != nil:
			s.failErr(m, err)
		case motion == debugger.Continue:
			s.respond(m, godap.ContinueResponseBody{AllThreadsContinued: true})
		default:
			s.respond(m, nil)
		}
	})
}

func (s *Session) cont(m *message, a godap.ContinueArguments) {
	s.move(m, debugger.Continue, a.ThreadId, "")
}

func (s *Session) next(m *message, a godap.NextArguments) {
	s.move(m, debugger.Next, a.ThreadId, string(a.Granularity))
}

func (s *Session) stepIn(m *message, a godap.StepInArguments) {
	s.move(m, debugger.StepIn, a.ThreadId, string(a.Granularity))
}

func (s *Session) stepOut(m *message, a godap.StepOutArguments) {
	s.move(m, debugger.StepOut, a.ThreadId, string(a.Granularity))
}

func (s *Session) stepBack(m *message, _ godap.StepBackArguments) { s.dbg.StepBack(s.answer(m)) }

func (s *Session) reverseContinue(m *message, _ godap.ReverseContinueArguments) {
	s.dbg.ReverseContinue(s.answer(m))
}

func (s *Session) threads(m *message, _ threadsArgs) {
	threads, err := s.dbg.Threads(s.ctx)
	b := godap.ThreadsResponseBody{Threads: make([]godap.Thread, len(threads))}
	for i, th := range threads {
		b.Threads[i] = godap.Thread{Id: th.ID, Name: th.Name}
	}
	s.reply(m, b, err)
}

// stackTrace answers with the user's frames only.
func (s *Session) stackTrace(m *message, a godap.StackTraceArguments) {
	frames, err := s.dbg.Frames(s.ctx, a.ThreadId)
	if err != nil {
		s.failErr(m, err)
		return
	}
	total := len(frames)
	start := min(max(a.StartFrame, 0), total)
	end := total
	if a.Levels > 0 {
		end = min(start+a.Levels, total)
	}
	out := make([]godap.StackFrame, 0, end-start)
	for _, f := range frames[start:end] {
		out = append(out, f.Native.(godap.StackFrame))
	}
	s.respond(m, godap.StackTraceResponseBody{StackFrames: out, TotalFrames: total})
}

// exceptionInfo describes the bug the debuggee stopped at; other exceptions are Delve's.
func (s *Session) exceptionInfo(m *message, _ godap.ExceptionInfoArguments) {
	bug := s.dbg.Bug()
	if bug == nil {
		s.forward(m)
		return
	}
	// What heddle test says of it: its message, the goroutines, what each blocks on and who
	// holds it, and the wait-for cycle.
	desc, err := s.dbg.BugReport()
	if err != nil {
		s.output("stderr", "heddle: "+err.Error()+"\n")
	}
	if desc == "" {
		desc = bug.Message
	}
	s.respond(m, godap.ExceptionInfoResponseBody{ExceptionId: bug.Kind, Description: desc, BreakMode: "always",
		Details: &godap.ExceptionDetails{Message: desc, TypeName: "heddle " + bug.Kind}})
}

func (s *Session) checkpoints(m *message, _ checkpointsArgs) {
	cur, cps, err := s.dbg.Checkpoints()
	s.reply(m, checkpointsBody(cur, cps), err)
}

func (s *Session) gotoCheckpoint(m *message, a gotoCheckpointArgs) {
	if a.Index == nil {
		s.fail(m, "%s: missing \"index\"", m.Command)
		return
	}
	s.dbg.GotoCheckpoint(*a.Index, s.answer(m))
}

func (s *Session) runnable(m *message, _ runnableArgs) {
	gs, redo, err := s.dbg.Runnable()
	s.reply(m, runnableBody(gs, redo), err)
}

func (s *Session) scheduleNext(m *message, a scheduleNextArgs) {
	if a.Goroutine == "" {
		s.fail(m, "%s: missing \"goroutine\"", m.Command)
		return
	}
	s.dbg.ScheduleNext(a.Goroutine, func(err error) {
		s.reply(m, nil, err)
		if err == nil {
			// The client learns that the program runs from the requests it knows, such as
			// continue; this one is heddle's.
			s.mu.Lock()
			thread := s.thread
			s.mu.Unlock()
			s.event("continued", godap.ContinuedEventBody{ThreadId: thread, AllThreadsContinued: true})
		}
	})
}

func (s *Session) saveSchedule(m *message, a saveScheduleArgs) {
	if a.Path == "" {
		s.fail(m, "%s: missing \"path\"", m.Command)
		return
	}
	s.reply(m, SavedSchedule{Path: a.Path}, s.dbg.SaveSchedule(a.Path))
}

func (s *Session) explore(m *message, a exploreArgs) {
	id, prefix, err := s.dbg.Explore(a.Strategy, a.Budget)
	s.reply(m, Explored{ID: id, Prefix: prefix}, err)
}

func (s *Session) cancel(m *message, a cancelArgs) {
	s.dbg.Cancel(a.ID)
	s.respond(m, nil)
}

func (s *Session) replay(m *message, a replayArgs) {
	if a.Bug <= 0 && a.Schedule == "" {
		s.fail(m, "%s: needs \"bug\" or \"schedule\"", m.Command)
		return
	}
	s.dbg.Replay(a.Bug, a.Schedule, s.answer(m))
}

func (s *Session) lockTrees(m *message, _ lockTreesArgs) {
	r, err := s.dbg.LockTrees()
	s.reply(m, r, err)
}

func (s *Session) webview(m *message, a webviewArgs) {
	url, err := s.dbg.WebView(a.AllowOrigin)
	s.reply(m, WebView{URL: url}, err)
}
