package dap

import (
	"encoding/json"
	"sort"
	"strings"
	"sync"

	"github.com/heddledbg/heddle/worker"
)

// breakpoints remembers the client's breakpoint requests, so that every new incarnation gets
// the same breakpoints, and merges heddle's own function breakpoint into them.
type breakpoints struct {
	mu       sync.Mutex
	bySource map[string]json.RawMessage
	funcs    []json.RawMessage
	instr    json.RawMessage
	exc      json.RawMessage
	// ver counts changes, so that a spare incarnation knows its breakpoints are stale.
	ver int
}

func (b *breakpoints) version() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ver
}

func newBreakpoints() *breakpoints { return &breakpoints{bySource: map[string]json.RawMessage{}} }

// setSource records a setBreakpoints request.
func (b *breakpoints) setSource(args json.RawMessage) {
	var a struct {
		Source struct {
			Path string `json:"path"`
		} `json:"source"`
	}
	json.Unmarshal(args, &a)
	b.mu.Lock()
	b.bySource[a.Source.Path] = args
	b.ver++
	b.mu.Unlock()
}

// setFunctions records a setFunctionBreakpoints request.
func (b *breakpoints) setFunctions(args json.RawMessage) {
	var a struct {
		Breakpoints []json.RawMessage `json:"breakpoints"`
	}
	json.Unmarshal(args, &a)
	b.mu.Lock()
	b.funcs = a.Breakpoints
	b.ver++
	b.mu.Unlock()
}

func (b *breakpoints) setExceptions(args json.RawMessage) {
	b.mu.Lock()
	b.exc = args
	b.ver++
	b.mu.Unlock()
}

func (b *breakpoints) setInstructions(args json.RawMessage) {
	b.mu.Lock()
	b.instr = args
	b.ver++
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
func (b *breakpoints) functions(extra []string) json.RawMessage {
	b.mu.Lock()
	defer b.mu.Unlock()
	bps := append([]json.RawMessage(nil), b.funcs...)
	bps = append(bps, body(map[string]string{"name": worker.BreakFunc}))
	for _, f := range extra {
		bps = append(bps, body(map[string]string{"name": f}))
	}
	return body(map[string]any{"breakpoints": bps})
}

// hitCounts reports whether a breakpoint has a hit condition, which counts hits from the
// start of the run.
func (b *breakpoints) hitCounts() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, args := range b.bySource {
		if strings.Contains(string(args), `"hitCondition"`) {
			return true
		}
	}
	for _, f := range b.funcs {
		if strings.Contains(string(f), `"hitCondition"`) {
			return true
		}
	}
	return false
}

// heddleOnly returns setFunctionBreakpoints arguments with heddle's breakpoint alone.
func heddleOnly() json.RawMessage {
	return body(map[string]any{"breakpoints": []any{map[string]string{"name": worker.BreakFunc}}})
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
