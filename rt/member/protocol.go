// Package member is the member's side of a process group: several instrumented programs that
// heddle starts together and schedules as one system, one goroutine of the whole group at a
// time (docs/processes.md). A member runs its main under rt with every decision made by the
// group's controller (package procgroup at the module's root), and its sockets to the other
// members are communication objects that the controller holds: every Listen, Dial, Accept,
// Read, Write and Close is a scheduling point of the group, and the bytes go through the
// controller.
//
// The member reads Commands on fd 3 and writes Messages on fd 4, one JSON object per line.
package member

import "github.com/heddledbg/heddle/rt"

// A Command is the controller's word to a member.
type Command struct {
	// Cmd is "run" (start a run of main), "pick" (the answer to a point), "reply" (the answer
	// to a socket operation) or "quit".
	Cmd string `json:"cmd"`
	// Run.
	Detail   bool         `json:"detail,omitempty"`
	MaxSteps int          `json:"maxSteps,omitempty"`
	Time     rt.TimeModel `json:"time,omitempty"`
	// Pick is the index of the chosen alternative of the member's point, -1 to end the run
	// (the group's run ended elsewhere).
	Pick int `json:"pick,omitempty"`
	// Reply.
	Key  string `json:"key,omitempty"` // the socket a dial or accept returns
	Data []byte `json:"data,omitempty"`
	EOF  bool   `json:"eof,omitempty"`
	Err  string `json:"err,omitempty"`
}

// A Message is a member's word to the controller.
type Message struct {
	// Type is "point" (a decision to make; the member waits for a pick), "op" (a socket
	// operation the member's running goroutine performs; it waits for the reply) or "end"
	// (the member's run ended).
	Type string `json:"type"`
	// Events are the member's steps since its previous message.
	Events []Event `json:"events,omitempty"`
	// Point.
	Kind    rt.DecisionKind `json:"kind,omitempty"`
	Alts    []Alt           `json:"alts,omitempty"`
	Current int             `json:"current"`
	// Op: Op is listen, dial, accept, read, write or close, on socket Key (a listener's key
	// is its address), with N the size of a read's buffer and Data a write's bytes.
	Op   string `json:"op,omitempty"`
	Key  string `json:"key,omitempty"`
	N    int    `json:"n,omitempty"`
	Data []byte `json:"data,omitempty"`
	// End: the member's result, with its goroutines and objects, and the positions of its
	// steps, goroutines and objects resolved in the member (detail mode), which the
	// controller cannot resolve from program counters.
	Result  *rt.Result `json:"result,omitempty"`
	ObjPos  []string   `json:"objPos,omitempty"`
	Sockets []string   `json:"sockets,omitempty"` // the key of each object that is a socket
}

// Alt is an alternative of a member's point.
type Alt struct {
	rt.Alt
	Name string `json:"name"` // the goroutine's logical id in the member
	Key  string `json:"key,omitempty"`
}

// Event is a member's step.
type Event struct {
	rt.Event
	Key string `json:"key,omitempty"` // the socket of a socket operation
	Pos string `json:"pos,omitempty"` // file:line, detail mode
}

// Listener keys are the address prefixed with ListenerPrefix; a connection's two ends are
// its number followed by DialEnd or AcceptEnd.
const (
	ListenerPrefix = "L:"
	DialEnd        = "a"
	AcceptEnd      = "b"
)
