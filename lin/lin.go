package lin

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/anishathalye/porcupine"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/rt"
)

// Model is the sequential specification of a type whose operations take an input I and give
// an output O, in states S.
type Model[S, I, O any] struct {
	// Init returns the initial state.
	Init func() S
	// Step reports whether, in state s, an operation with input in may give output out, and
	// returns the state after it. It must not modify s.
	Step func(s S, in I, out O) (bool, S)
	// Equal reports whether two states are the same; nil means reflect.DeepEqual.
	Equal func(a, b S) bool
	// Describe describes an operation for reports, its input (push(1)) and its output (ok);
	// nil means fmt.Sprint of each.
	Describe func(in I, out O) (input, output string)
}

// History records the operations of a test on a concurrent type and checks them against a
// model. Its methods may be called from any goroutine.
type History[S, I, O any] struct {
	model Model[S, I, O]

	// Outside heddle: the operations, their calls and returns numbered under mu, and the
	// goroutines' names by runtime id, numbered in the order of their first calls.
	mu    sync.Mutex
	ops   []entry[I, O]
	n     int32
	names map[int64]string
}

// entry is one operation of a history.
type entry[I, O any] struct {
	g rt.GID // under heddle
	// name is the goroutine's name outside heddle (goroutine 1, goroutine 2…).
	name string
	// call and ret are positions in the order of calls and returns; ret is -1 until the
	// operation returns. The steps are the run's under heddle, -1 outside.
	call, ret         int32
	callStep, retStep int32
	in                I
	out               O
}

// input is what heddle's history holds as an operation's input: the recording History and
// the input, so that the operations of several Histories of one run stay apart.
type input[S, I, O any] struct {
	h  *History[S, I, O]
	in I
}

// New returns an empty history checked against model m.
func New[S, I, O any](m Model[S, I, O]) *History[S, I, O] {
	if m.Init == nil || m.Step == nil {
		panic("lin.New: the model needs Init and Step")
	}
	return &History[S, I, O]{model: m}
}

// Do records an operation with input in, performed by f, and returns f's output. The call is
// recorded before f runs and the return after it, on the calling goroutine.
func (h *History[S, I, O]) Do(in I, f func() O) O {
	if i, ok := rt.HistoryCall(input[S, I, O]{h, in}); ok {
		out := f()
		rt.HistoryReturn(i, out)
		return out
	}
	id := goid()
	h.mu.Lock()
	name, ok := h.names[id]
	if !ok {
		if h.names == nil {
			h.names = map[int64]string{}
		}
		name = "goroutine " + strconv.Itoa(len(h.names)+1)
		h.names[id] = name
	}
	i := len(h.ops)
	h.ops = append(h.ops, entry[I, O]{name: name, call: h.n, ret: -1, callStep: -1, retStep: -1, in: in})
	h.n++
	h.mu.Unlock()
	out := f()
	h.mu.Lock()
	h.ops[i].ret, h.ops[i].out = h.n, out
	h.n++
	h.mu.Unlock()
	return out
}

// recorded returns the operations recorded so far, their positions numbered from 0 without
// gaps, and whether they were recorded by heddle.
func (h *History[S, I, O]) recorded() ([]entry[I, O], bool) {
	var ops []entry[I, O]
	all, underHeddle := rt.History()
	if underHeddle {
		for _, op := range all {
			c, ok := op.In.(input[S, I, O])
			if !ok || c.h != h {
				continue
			}
			r := entry[I, O]{g: op.G, call: op.Call, ret: op.Return, callStep: op.CallStep, retStep: op.ReturnStep, in: c.in}
			if op.Return >= 0 {
				r.out = as[O](op.Out)
			}
			ops = append(ops, r)
		}
	} else {
		h.mu.Lock()
		ops = slices.Clone(h.ops)
		h.mu.Unlock()
	}
	var pos []int32
	for _, op := range ops {
		pos = append(pos, op.call)
		if op.ret >= 0 {
			pos = append(pos, op.ret)
		}
	}
	slices.Sort(pos)
	renumber := func(p int32) int32 {
		i, _ := slices.BinarySearch(pos, p)
		return int32(i)
	}
	for i := range ops {
		ops[i].call = renumber(ops[i].call)
		if ops[i].ret >= 0 {
			ops[i].ret = renumber(ops[i].ret)
		}
	}
	return ops, underHeddle
}

// TB is the part of testing.TB that Check uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Check checks that the operations recorded so far, all of which must have returned, are
// linearizable. If they are not, it reports the history: under heddle the run ends with a
// bug of kind linearizability, and otherwise t fails with a drawing of the history.
func (h *History[S, I, O]) Check(t TB) {
	t.Helper()
	ops, underHeddle := h.recorded()
	where := "lin.Check"
	if _, file, line, ok := runtime.Caller(1); ok {
		where = filepath.Base(file) + ":" + strconv.Itoa(line)
	}
	history := make([]porcupine.Operation, len(ops))
	for i, op := range ops {
		if op.ret == -1 {
			in, _ := h.describe(op.in, op.out)
			t.Fatalf("%s: operation %s has not returned; call Check once every operation has returned", where, in)
			return
		}
		history[i] = porcupine.Operation{Input: op.in, Output: op.out, Call: int64(op.call), Return: int64(op.ret)}
	}
	var ok bool
	rt.CheckHistory(func() { ok = porcupine.CheckOperations(h.porcupineModel(), history) })
	if ok {
		return
	}
	msg := fmt.Sprintf("%s: not linearizable: no sequential order of the %d operations that respects their real-time order gives them their outputs", where, len(ops))
	if underHeddle {
		drawn := make([]rt.Operation, len(ops))
		for i, op := range ops {
			in, out := h.describe(op.in, op.out)
			drawn[i] = rt.Operation{G: op.g, Call: op.call, Return: op.ret, CallStep: op.callStep, ReturnStep: op.retStep, Input: in, Output: out}
		}
		rt.NotLinearizable(msg, drawn)
		return
	}
	drawn := make([]record.Operation, len(ops))
	for i, op := range ops {
		in, out := h.describe(op.in, op.out)
		drawn[i] = record.Operation{G: op.name, Call: int(op.call), Return: int(op.ret), CallStep: -1, ReturnStep: -1, Input: in, Output: out}
	}
	t.Fatalf("%s\n%s", msg, record.DrawHistory(drawn))
}

func (h *History[S, I, O]) porcupineModel() porcupine.Model {
	return porcupine.Model{
		Init: func() any { return h.model.Init() },
		Step: func(s, in, out any) (bool, any) { return h.model.Step(as[S](s), as[I](in), as[O](out)) },
		Equal: func(a, b any) bool {
			if h.model.Equal != nil {
				return h.model.Equal(as[S](a), as[S](b))
			}
			return reflect.DeepEqual(a, b)
		},
	}
}

// as converts v, which holds a T or is nil, to a T: a nil interface value of type T (a nil
// error output) travels through Porcupine and heddle's history as a nil any.
func as[T any](v any) T {
	t, _ := v.(T)
	return t
}

func (h *History[S, I, O]) describe(in I, out O) (string, string) {
	if h.model.Describe != nil {
		return h.model.Describe(in, out)
	}
	return fmt.Sprint(in), fmt.Sprint(out)
}

// goid returns the calling goroutine's id, as the runtime prints it in stack traces.
func goid() int64 {
	var buf [64]byte
	b := bytes.TrimPrefix(buf[:runtime.Stack(buf[:], false)], []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		id, _ := strconv.ParseInt(string(b[:i]), 10, 64)
		return id
	}
	return 0
}
