package rt

// A history is the record, in run order, of the calls and returns of the operations that a test
// checks for linearizability (package lin). Only one goroutine runs at a time, so the order in
// which calls and returns are recorded is the order in which they happened in the controlled
// run, and a replay of the schedule records the same history.
//
// Calls and returns are visible operations (OpCall, OpReturn) on one object of the run, the
// history: which operations a history orders in real time depends on the order of a return and
// a later call of other goroutines, even when the steps around them are independent, and a
// partial-order reduction explores both orders only of dependent steps. Calls commute with
// each other (ReadOnly). They acquire and release nothing for the race detector: the program
// does not synchronize there.
//
// The history lives here, in rt's state, rather than in the checker's: goroutines touch rt's
// state in turn across the hand-offs hidden from the race detector (race.go), which would
// otherwise see the appends of different goroutines as a data race and, if the checker used
// a lock of its own, order the operations' accesses and hide the races among them.

// HistoryOp is one operation of a run's history: goroutine G called it with input In and it
// returned Out.
type HistoryOp struct {
	G GID
	// Call and Return are the positions of the call and of the return among the history's
	// calls and returns, in run order; Return is -1 while the operation has not returned.
	Call, Return int32
	// CallStep and ReturnStep are the steps of the call and of the return (OpCall, OpReturn).
	CallStep, ReturnStep int32
	In, Out              any
}

// Operation is an operation of a history as a linearizability verdict shows it: its input and
// output as the model describes them.
type Operation struct {
	G                    GID
	Call, Return         int32 // as in HistoryOp
	CallStep, ReturnStep int32
	Input, Output        string
}

type history struct {
	ops []HistoryOp
	n   int32 // calls and returns recorded
	obj ObjID // the history as an object, if made
	has bool
}

// historyStep performs g's call or return as a visible operation on the history.
//
//go:norace
func (r *run) historyStep(g *goroutine, kind OpKind) {
	h := &r.history
	if !h.has {
		h.obj, h.has = r.newObj(ObjHistory, g), true
	}
	g.op = op{kind: kind, obj: h.obj}
	r.yield(g)
	r.record(g, kind, h.obj)
}

// HistoryCall records that the calling goroutine calls an operation with input in. It returns
// the operation's index, for HistoryReturn, and false outside a run.
//
//go:norace
func HistoryCall(in any) (int, bool) {
	r, g := current()
	if r == nil || g == nil {
		return 0, false
	}
	r.historyStep(g, OpCall)
	h := &r.history
	h.ops = append(h.ops, HistoryOp{G: g.id, Call: h.n, Return: -1, CallStep: int32(r.steps - 1), ReturnStep: -1, In: in})
	h.n++
	return len(h.ops) - 1, true
}

// HistoryReturn records that operation i, of HistoryCall, returned out.
//
//go:norace
func HistoryReturn(i int, out any) {
	r, g := current()
	if r == nil || g == nil || i < 0 || i >= len(r.history.ops) {
		return
	}
	r.historyStep(g, OpReturn)
	h := &r.history
	op := &h.ops[i]
	op.Return, op.ReturnStep, op.Out = h.n, int32(r.steps-1), out
	h.n++
}

// History returns a copy of the run's history so far, in the order of the calls, and false
// outside a run.
//
//go:norace
func History() ([]HistoryOp, bool) {
	r, _ := current()
	if r == nil {
		return nil, false
	}
	return append([]HistoryOp(nil), r.history.ops...), true
}

// CheckHistory runs check, the check of the run's history, on the calling goroutine. The check
// may wait for goroutines of its own (Porcupine checks on one), which the watchdog must not
// take for a goroutine of the run waiting on something outside heddle's control; a check that
// takes longer than the hang limit still ends the run as a hang.
//
//go:norace
func CheckHistory(check func()) {
	r, _ := current()
	if r == nil {
		check()
		return
	}
	r.checking.Store(true)
	defer r.checking.Store(false)
	check()
}

// NotLinearizable ends the run with a linearizability verdict: no sequential order of the
// operations of history that respects their real-time order is allowed by the model. The
// calling goroutine, which checked the history, does not return.
//
//go:norace
func NotLinearizable(msg string, history []Operation) {
	r, g := current()
	if r == nil {
		return
	}
	if !r.ended {
		r.verdict = Verdict{Kind: VerdictLinearizability, Message: msg, History: history}
		r.finish()
	}
	if g != nil && g.state != gDone {
		r.block(g)
	}
}
