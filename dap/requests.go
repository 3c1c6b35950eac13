package dap

import (
	"github.com/heddledbg/heddle/debugger"
)

func (s *Session) configurationDone(m *message, _ configurationDoneArgs) {
	s.dbg.Start(s.answer(m))
}

// move answers a forward motion when Delve has started it; the stop comes as an event.
func (s *Session) move(m *message, motion debugger.Motion, thread int, granularity string) {
	s.dbg.Move(motion, thread, granularity, func(err error) {
		switch {
		case err != nil:
			s.failErr(m, err)
		case motion == debugger.Continue:
			s.respond(m, map[string]any{"allThreadsContinued": true})
		default:
			s.respond(m, nil)
		}
	})
}

func (s *Session) cont(m *message, a continueArgs) { s.move(m, debugger.Continue, a.ThreadId, "") }

func (s *Session) next(m *message, a nextArgs) {
	s.move(m, debugger.Next, a.ThreadId, string(a.Granularity))
}

func (s *Session) stepIn(m *message, a stepInArgs) {
	s.move(m, debugger.StepIn, a.ThreadId, string(a.Granularity))
}

func (s *Session) stepOut(m *message, a stepOutArgs) {
	s.move(m, debugger.StepOut, a.ThreadId, string(a.Granularity))
}

func (s *Session) stepBack(m *message, _ stepBackArgs) { s.dbg.StepBack(s.answer(m)) }

func (s *Session) reverseContinue(m *message, _ reverseContinueArgs) {
	s.dbg.ReverseContinue(s.answer(m))
}

func (s *Session) threads(m *message, _ threadsArgs) {
	threads, err := s.dbg.Threads(s.ctx)
	if err != nil {
		s.failErr(m, err)
		return
	}
	if threads == nil {
		threads = []debugger.ThreadInfo{}
	}
	s.respond(m, map[string]any{"threads": threads})
}

// stackTrace answers with the user's frames only.
func (s *Session) stackTrace(m *message, a stackTraceArgs) {
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
	out := make([]any, 0, end-start)
	for _, f := range frames[start:end] {
		out = append(out, f.Native)
	}
	s.respond(m, map[string]any{"stackFrames": out, "totalFrames": total})
}

// exceptionInfo describes the bug the debuggee stopped at; other exceptions are Delve's.
func (s *Session) exceptionInfo(m *message, _ exceptionInfoArgs) {
	bug := s.dbg.Bug()
	if bug == nil {
		s.forward(m)
		return
	}
	s.respond(m, map[string]any{"exceptionId": bug.Kind, "description": bug.Message, "breakMode": "always",
		"details": map[string]any{"message": bug.Message, "typeName": "heddle " + bug.Kind}})
}

func (s *Session) checkpoints(m *message, _ checkpointsArgs) {
	cur, cps, err := s.dbg.Checkpoints()
	if err != nil {
		s.failErr(m, err)
		return
	}
	s.respond(m, map[string]any{"current": cur, "checkpoints": cps})
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
	if err != nil {
		s.failErr(m, err)
		return
	}
	s.respond(m, map[string]any{"goroutines": gs, "redo": redo})
}

func (s *Session) scheduleNext(m *message, a scheduleNextArgs) {
	if a.Goroutine == "" {
		s.fail(m, "%s: missing \"goroutine\"", m.Command)
		return
	}
	s.dbg.ScheduleNext(a.Goroutine, s.answer(m))
}

func (s *Session) saveSchedule(m *message, a saveScheduleArgs) {
	if a.Path == "" {
		s.fail(m, "%s: missing \"path\"", m.Command)
		return
	}
	if err := s.dbg.SaveSchedule(a.Path); err != nil {
		s.failErr(m, err)
		return
	}
	s.respond(m, map[string]any{"path": a.Path})
}

func (s *Session) explore(m *message, a exploreArgs) {
	id, prefix, err := s.dbg.Explore(a.Strategy, a.Budget)
	if err != nil {
		s.failErr(m, err)
		return
	}
	s.respond(m, map[string]any{"id": id, "prefix": prefix})
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
	if err != nil {
		s.failErr(m, err)
		return
	}
	s.respond(m, r)
}

func (s *Session) webview(m *message, a webviewArgs) {
	url, err := s.dbg.WebView(a.AllowOrigin)
	if err != nil {
		s.failErr(m, err)
		return
	}
	s.respond(m, map[string]any{"url": url})
}
