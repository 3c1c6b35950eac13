package dap

import (
	"context"
	"encoding/json"
	"sort"
	"sync"
	"time"

	godap "github.com/google/go-dap"
	"github.com/heddledbg/heddle/wire"
)

// breakpoints remembers the client's breakpoint requests, so that every new incarnation gets
// the same breakpoints, and merges heddle's own function breakpoint into them.
type breakpoints struct {
	mu       sync.Mutex
	bySource map[string]json.RawMessage
	// sourceHits says which sources have a breakpoint with a hit condition.
	sourceHits map[string]bool
	funcs      []godap.FunctionBreakpoint
	instr      json.RawMessage
	exc        json.RawMessage
}

func newBreakpoints() *breakpoints {
	return &breakpoints{bySource: map[string]json.RawMessage{}, sourceHits: map[string]bool{}}
}

// setSource records a setBreakpoints request.
func (b *breakpoints) setSource(a *godap.SetBreakpointsArguments, raw json.RawMessage) {
	hits := false
	for _, bp := range a.Breakpoints {
		hits = hits || bp.HitCondition != ""
	}
	b.mu.Lock()
	b.bySource[a.Source.Path] = raw
	b.sourceHits[a.Source.Path] = hits
	b.mu.Unlock()
}

// setFunctions records a setFunctionBreakpoints request.
func (b *breakpoints) setFunctions(a *godap.SetFunctionBreakpointsArguments) {
	b.mu.Lock()
	b.funcs = a.Breakpoints
	b.mu.Unlock()
}

func (b *breakpoints) setExceptions(args json.RawMessage) {
	b.mu.Lock()
	b.exc = args
	b.mu.Unlock()
}

func (b *breakpoints) setInstructions(args json.RawMessage) {
	b.mu.Lock()
	b.instr = args
	b.mu.Unlock()
}

// sources returns the setBreakpoints arguments of every source, in a stable order.
func (b *breakpoints) sources() []json.RawMessage {
	b.mu.Lock()
	defer b.mu.Unlock()
	paths := make([]string, 0, len(b.bySource))
	for p := range b.bySource {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	out := make([]json.RawMessage, len(paths))
	for i, p := range paths {
		out[i] = b.bySource[p]
	}
	return out
}

// functions returns setFunctionBreakpoints arguments: the client's breakpoints, then
// heddle's, then extra (temporary) function names.
func (b *breakpoints) functions(extra []string) *godap.SetFunctionBreakpointsArguments {
	b.mu.Lock()
	defer b.mu.Unlock()
	return functionBreakpoints(b.funcs, extra)
}

// hitConditions reports whether a breakpoint has a hit condition, which counts hits from
// the start of the run.
func (b *breakpoints) hitConditions() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, hits := range b.sourceHits {
		if hits {
			return true
		}
	}
	for _, f := range b.funcs {
		if f.HitCondition != "" {
			return true
		}
	}
	return false
}

// functionBreakpoints returns setFunctionBreakpoints arguments: the client's breakpoints,
// then heddle's, then extra (temporary) function names.
func functionBreakpoints(client []godap.FunctionBreakpoint, extra []string) *godap.SetFunctionBreakpointsArguments {
	bps := append([]godap.FunctionBreakpoint(nil), client...)
	bps = append(bps, godap.FunctionBreakpoint{Name: wire.BreakFunc})
	for _, f := range extra {
		bps = append(bps, godap.FunctionBreakpoint{Name: f})
	}
	return &godap.SetFunctionBreakpointsArguments{Breakpoints: bps}
}

// clientFunctions is the number of the client's function breakpoints.
func (b *breakpoints) clientFunctions() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.funcs)
}

func (b *breakpoints) exceptions() json.RawMessage {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.exc
}

func (b *breakpoints) instructions() json.RawMessage {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.instr
}

func (s *Session) setBreakpoints(m *message, a godap.SetBreakpointsArguments) {
	s.bps.setSource(&a, m.Arguments)
	s.dbg.BreakpointsChanged(s.bps.hitConditions())
	s.forward(m)
}

func (s *Session) setExceptionBreakpoints(m *message, _ godap.SetExceptionBreakpointsArguments) {
	s.bps.setExceptions(m.Arguments)
	s.dbg.BreakpointsChanged(s.bps.hitConditions())
	s.forward(m)
}

func (s *Session) setInstructionBreakpoints(m *message, _ godap.SetInstructionBreakpointsArguments) {
	s.bps.setInstructions(m.Arguments)
	s.dbg.BreakpointsChanged(s.bps.hitConditions())
	s.forward(m)
}

// setFunctionBreakpoints sets the client's function breakpoints with heddle's own, which
// the client does not see.
func (s *Session) setFunctionBreakpoints(m *message, a godap.SetFunctionBreakpointsArguments) {
	s.bps.setFunctions(&a)
	s.dbg.BreakpointsChanged(s.bps.hitConditions())
	d := s.delve()
	if d == nil {
		s.fail(m, "setFunctionBreakpoints: no program is being debugged (launch first)")
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, time.Minute)
	defer cancel()
	resp, err := d.call(ctx, "setFunctionBreakpoints", s.bps.functions(nil))
	if err != nil {
		s.failErr(m, err)
		return
	}
	var b godap.SetFunctionBreakpointsResponseBody
	if err := json.Unmarshal(resp.Body, &b); err != nil {
		s.fail(m, "setFunctionBreakpoints: Delve's response: %v", err)
		return
	}
	if n := s.bps.clientFunctions(); len(b.Breakpoints) > n {
		b.Breakpoints = b.Breakpoints[:n]
	}
	s.respond(m, b)
}
