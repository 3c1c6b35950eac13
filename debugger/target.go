package debugger

import (
	"context"
	"errors"
)

// A Target is one debuggee process under a source-level debugger (Delve, in heddle dap),
// launched but not yet running: Begin lets it start. The debugger core drives it through
// this interface and never sees the debugger's own protocol.
type Target interface {
	// Events delivers the target's events in order. It is closed when the target's debugger
	// has ended.
	Events() <-chan Event
	// Done is closed when the target's debugger has ended.
	Done() <-chan struct{}
	// FunctionBreakpoints sets the function breakpoints: the client's when client is true,
	// heddle's own (worker.BreakFunc), and temporary ones on the functions extra.
	FunctionBreakpoints(ctx context.Context, client bool, extra []string) error
	// ApplyBreakpoints sets every breakpoint the client has set (source, function, instruction
	// and exception breakpoints) with heddle's own.
	ApplyBreakpoints(ctx context.Context) error
	// Begin ends the target's configuration: the debuggee starts.
	Begin(ctx context.Context) error
	// Resume moves the debuggee; the stop that ends the move arrives as an event.
	Resume(ctx context.Context, r Resume) error
	// ReturnTo resumes the debuggee until goroutine goid returns into frame, a frame of its
	// stack as Stack gave it while the debuggee stood still: one move where a step out of
	// each frame above it would be one move each. The stop arrives as an event, with reason
	// "step" if it is that return. ErrNoReturn says the target cannot: step out instead.
	ReturnTo(ctx context.Context, goid int64, frame Frame) error
	// Stack returns the first levels frames of goroutine goid, innermost first.
	Stack(ctx context.Context, goid int64, levels int) ([]Frame, error)
	// Locals returns the local variables of a frame (Frame.ID) as the debugger renders them.
	Locals(ctx context.Context, frame int) ([]Variable, error)
	// Threads lists the debuggee's goroutines by runtime id.
	Threads(ctx context.Context) ([]Thread, error)
	// Close ends the debuggee and its debugger. It never blocks for long.
	Close()
}

// ErrNoReturn is ReturnTo's error when the target cannot run to a frame's return.
var ErrNoReturn = errors.New("the debugger cannot run to this frame's return")

// Launcher starts a target: a debugger on spec's binary. id numbers the session's targets.
type Launcher func(ctx context.Context, id int, spec Spec) (Target, error)

// Spec is what a target is launched with.
type Spec struct {
	Binary string
	Args   []string
	Env    map[string]string
	// Cwd is the debuggee's working directory.
	Cwd string
	// Temp is a directory for the target's sockets and temporary files, removed when the
	// session ends.
	Temp string
}

// Motion is a way to resume a debuggee.
type Motion int

const (
	Continue Motion = iota
	Next            // to the next line of the goroutine
	StepIn
	StepOut
	Pause
)

var motionNames = [...]string{Continue: "continue", Next: "next", StepIn: "stepIn", StepOut: "stepOut", Pause: "pause"}

func (m Motion) String() string { return motionNames[m] }

// Resume is a motion of one goroutine.
type Resume struct {
	Motion Motion
	Goid   int64
	// Granularity of a step, as the client asked: "" (statement or line) or "instruction".
	Granularity string
}

// EventKind says what a target's event reports.
type EventKind int

const (
	// Other is an event the core does not interpret: it is passed to the front end while the
	// target is the current one.
	Other EventKind = iota
	Stopped
	Continued
	// Exited is the end of the debuggee (terminated or exited).
	Exited
	Output
)

// Event is an event of a target.
type Event struct {
	Kind EventKind
	// Goid is the goroutine a stop or a continue is about, 0 if none.
	Goid int64
	// Reason is why the debuggee stopped: "breakpoint", "step", "pause", "exception"…
	Reason string
	// Text is what an Output event printed.
	Text string
	// Native is the target's own rendering of the event, for the front end.
	Native any
}

// Frame is a stack frame.
type Frame struct {
	// ID names the frame in Locals while the debuggee stays stopped.
	ID   int
	Func string
	File string
	Line int
	// Native is the target's own rendering of the frame, for the front end.
	Native any
}

// Variable is a variable as the debugger renders it.
type Variable struct {
	Name, Value string
}

// Thread is a goroutine of the debuggee as the debugger names it.
type Thread struct {
	Goid int64
	Name string
}
