package explorer

import (
	"time"

	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/timeline"
)

// ServeExplore answers an "explore" request in a worker: it explores in this process and
// streams progress (at most ten times a second), tree nodes (if asked), every new bug with
// its detailed trace, and a final "done" message.
func ServeExplore(h Harness, req Request, prog timeline.Program, send func(*Message)) {
	opts := req.Options.Options()
	var last time.Time
	opts.Progress = func(s *Stats) {
		if now := time.Now(); now.Sub(last) >= 100*time.Millisecond {
			last = now
			send(&Message{Type: "progress", Stats: wireStats(s)})
		}
	}
	if req.Options.Tree {
		opts.OnNode = func(n TreeNode) { send(&Message{Type: "node", Node: &n}) }
	}
	rep := ExploreWith(h, opts)
	for _, b := range rep.Bugs {
		send(&Message{Type: "bug", Bug: WireBugOf(b, prog, opts.Strategy)})
	}
	send(&Message{Type: "done", Stats: wireStats(&rep.Stats), Outcomes: rep.Outcomes})
}

func wireStats(s *Stats) *WireStats {
	return &WireStats{Stats: *s, SchedulesPerSecond: s.SchedulesPerSecond()}
}

// ServeRun answers a "run" request: one run steered by the request's guide.
func ServeRun(h Harness, req Request) *Message {
	gd := req.Guide
	if gd == nil {
		return &Message{Type: "error", Error: "run request without a guide"}
	}
	p := &inProcess{h: h, cfg: rt.Config{MaxSteps: req.Options.MaxSteps, Hang: req.Options.Hang}}
	res := p.run(gd, req.Detail)
	return &Message{Type: "result", Result: res, Log: gd.Log(), Error: gd.Diverged()}
}
