package rt

import (
	"context"
	"fmt"
	"time"
)

// Contexts made under control cancel on the virtual clock and close their Done channel with a
// controlled close, so a select on ctx.Done() races the other cases under heddle's choice. A
// parent context whose Done channel heddle did not make (context.Background, t.Context()) is
// not watched: its cancellation, which only happens after the test has returned, is not
// propagated. A parent of the program's own type whose Done channel heddle made is watched.

type cancelCtx struct {
	context.Context
	done     chan struct{}
	err      error
	cause    error
	children []*cancelCtx // slices, not maps: cancellation order must be deterministic
	parent   *cancelCtx
	deadline time.Time
	timer    *Timer
	after    []*afterFunc
}

type afterFunc struct{ f func() }

//go:norace
func (c *cancelCtx) Done() <-chan struct{} { return c.done }

// Err reads the cancellation state, which another goroutine's cancel writes: it is a visible
// operation on the Done channel.
//
//go:norace
func (c *cancelCtx) Err() error {
	c.step(OpLen)
	return c.err
}

// step makes the calling goroutine's access to the context's state a visible operation on
// its Done channel: reading (Err) commutes with other reads, cancelling depends on everything.
//
//go:norace
func (c *cancelCtx) step(kind OpKind) {
	r, g := current()
	if r == nil {
		return
	}
	st := stateOf(r, typedChan[struct{}]{c.done})
	id := r.chanObj(st, g)
	g.op = op{kind: kind, obj: id}
	r.yield(g)
	e := r.record(g, kind, id)
	r.acquire(e, id)
	if kind != OpLen {
		r.release(e, id)
	}
}

//go:norace
func (c *cancelCtx) Deadline() (time.Time, bool) {
	if !c.deadline.IsZero() {
		return c.deadline, true
	}
	return c.Context.Deadline()
}

//go:norace
func (c *cancelCtx) Value(key any) any {
	if key == &cancelCtxKey {
		return c
	}
	return c.Context.Value(key)
}

var cancelCtxKey int

//go:norace
func parentCancelCtx(parent context.Context) *cancelCtx {
	p, _ := parent.Value(&cancelCtxKey).(*cancelCtx)
	return p
}

//go:norace
func newCancelCtx(parent context.Context) *cancelCtx {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	c := &cancelCtx{Context: parent, done: MakeChan[struct{}](0)}
	if p := parentCancelCtx(parent); p != nil {
		p.step(OpAtomicRMW)
		if p.err != nil {
			c.cancel(p.err, p.cause)
		} else {
			p.children = append(p.children, c)
			c.parent = p
		}
	} else if done := parent.Done(); done != nil && controlledChan(done) {
		// A context type of the program's (a mock clock's timer context) whose Done channel
		// heddle made: a goroutine watches it, as context's propagateCancel does for a parent
		// it does not know. Like context's, it lasts until one of the two is cancelled; a
		// leak of it is the program's contexts' and is not reported.
		Go(func() {
			_, g := current()
			if g != nil {
				g.noLeak = true
			}
			if i, _, _ := Select(false, RecvCase(done), RecvCase(c.done)); i == 0 {
				c.cancel(parent.Err(), Cause(parent))
			}
		})
	}
	return c
}

// controlledChan reports whether ch was made under heddle's control (MakeChan).
//
//go:norace
func controlledChan[T any](ch <-chan T) bool {
	chansMu.Lock()
	defer chansMu.Unlock()
	_, ok := chans.get(chanPtr(ch))
	return ok
}

//go:norace
func (c *cancelCtx) cancel(err, cause error) {
	c.step(OpAtomicRMW)
	if c.err != nil {
		return
	}
	if cause == nil {
		cause = err
	}
	c.err, c.cause = err, cause
	Close(c.done)
	children := c.children
	c.children = nil
	for _, child := range children {
		child.cancel(err, cause)
	}
	if p := c.parent; p != nil {
		remove(&p.children, c)
		c.parent = nil
	}
	if c.timer != nil {
		c.timer.Stop()
	}
	for _, a := range c.after {
		Go(a.f)
	}
	c.after = nil
}

// initContext reports whether a cancellable context derived from parent outside any run is
// made under control all the same: it is made by package initialisation, from a parent that is
// heddle's or never cancelled. Such a context (a package-level pool's, whose goroutines started
// during init select on its Done channel) serves the runs that adopt init's goroutines
// (initgo.go). The standard package's would give them a Done channel that heddle did not make,
// which a run waits for in real time before each step of the clock (waitForeign).
//
//go:norace
func initContext(parent context.Context) bool {
	if parent == nil || parentCancelCtx(parent) == nil && parent.Done() != nil {
		return false
	}
	_, ok := initCaller()
	return ok
}

// WithCancel is context.WithCancel under heddle's control.
//
//go:norace
func WithCancel(parent context.Context) (context.Context, context.CancelFunc) {
	if !Running() && !initContext(parent) {
		return context.WithCancel(parent)
	}
	c := newCancelCtx(parent)
	return c, func() { c.cancel(context.Canceled, nil) }
}

// WithCancelCause is context.WithCancelCause under heddle's control.
//
//go:norace
func WithCancelCause(parent context.Context) (context.Context, context.CancelCauseFunc) {
	if !Running() && !initContext(parent) {
		return context.WithCancelCause(parent)
	}
	c := newCancelCtx(parent)
	return c, func(cause error) { c.cancel(context.Canceled, cause) }
}

// WithDeadline is context.WithDeadline on the virtual clock.
//
//go:norace
func WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	return WithDeadlineCause(parent, d, nil)
}

// WithDeadlineCause is context.WithDeadlineCause on the virtual clock.
//
//go:norace
func WithDeadlineCause(parent context.Context, d time.Time, cause error) (context.Context, context.CancelFunc) {
	if !Running() {
		return context.WithDeadlineCause(parent, d, cause)
	}
	if cur, ok := parent.Deadline(); ok && cur.Before(d) {
		return WithCancel(parent)
	}
	c := newCancelCtx(parent)
	c.deadline = d
	if dur := d.Sub(Instant()); dur <= 0 {
		c.cancel(context.DeadlineExceeded, cause)
	} else if c.err == nil {
		c.timer = AfterFunc(dur, func() { c.cancel(context.DeadlineExceeded, cause) })
	}
	return c, func() { c.cancel(context.Canceled, nil) }
}

// WithTimeout is context.WithTimeout on the virtual clock.
//
//go:norace
func WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return WithDeadline(parent, Now().Add(d))
}

// WithTimeoutCause is context.WithTimeoutCause on the virtual clock.
//
//go:norace
func WithTimeoutCause(parent context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	return WithDeadlineCause(parent, Now().Add(d), cause)
}

// Cause is context.Cause, aware of contexts made under control.
//
//go:norace
func Cause(ctx context.Context) error {
	if c := parentCancelCtx(ctx); c != nil {
		return c.cause
	}
	return context.Cause(ctx)
}

// ControlledContext reports whether ctx, or a context it derives from, was made under control
// (its cancellation is an operation of the run, its deadline on the virtual clock).
//
//go:norace
func ControlledContext(ctx context.Context) bool { return parentCancelCtx(ctx) != nil }

// ContextAfterFunc is context.AfterFunc under heddle's control: f runs in its own goroutine
// once ctx is done.
//
//go:norace
func ContextAfterFunc(ctx context.Context, f func()) (stop func() bool) {
	c := parentCancelCtx(ctx)
	if c == nil || !Running() {
		return context.AfterFunc(ctx, f)
	}
	return c.AfterFunc(f)
}

// AfterFunc makes the context an afterFuncer for the standard package: a context that
// uninstrumented code derives from it with context.WithCancel (and the others) registers its
// cancellation here, to run in a goroutine of the run, instead of starting a goroutine of its
// own that heddle could not schedule.
//
//go:norace
func (c *cancelCtx) AfterFunc(f func()) (stop func() bool) {
	a := &afterFunc{f: f}
	c.step(OpAtomicRMW)
	if c.err != nil {
		Go(f)
		return func() bool { return false }
	}
	c.after = append(c.after, a)
	return func() bool {
		return remove(&c.after, a)
	}
}

// WithoutCancel is context.WithoutCancel, whose result must not lead back to the controlled
// context it was made from: its children are not cancelled with that context.
//
//go:norace
func WithoutCancel(parent context.Context) context.Context {
	if !Running() {
		return context.WithoutCancel(parent)
	}
	return withoutCancelCtx{context.WithoutCancel(parent)}
}

type withoutCancelCtx struct{ context.Context }

//go:norace
func (c withoutCancelCtx) Value(key any) any {
	if key == &cancelCtxKey {
		return nil
	}
	return c.Context.Value(key)
}

//go:norace
func (c withoutCancelCtx) String() string { return fmt.Sprint(c.Context) }

// WithValue is context.WithValue. The result is an afterFuncer, so that a context that
// uninstrumented code derives from it is cancelled with the controlled context it carries, as
// by cancelCtx.AfterFunc, rather than by a goroutine heddle did not start.
//
//go:norace
func WithValue(parent context.Context, key, val any) context.Context {
	if !Running() {
		return context.WithValue(parent, key, val)
	}
	return valueCtx{context.WithValue(parent, key, val)}
}

type valueCtx struct{ context.Context }

//go:norace
func (c valueCtx) AfterFunc(f func()) (stop func() bool) { return ContextAfterFunc(c.Context, f) }

//go:norace
func (c valueCtx) String() string { return fmt.Sprint(c.Context) }

// remove deletes the first x from *s and reports whether it was there. It is written out
// rather than calling slices.Delete, whose instantiation is the standard library's code: the
// race detector would see it edit heddle's state, which goroutines touch in turn across the
// hidden hand-offs (x/sync's semaphore tests, whose contexts are cancelled by several
// goroutines, showed it).
//
//go:norace
func remove[S ~[]E, E comparable](s *S, x E) bool {
	t := *s
	for i := range t {
		if t[i] != x {
			continue
		}
		for j := i; j+1 < len(t); j++ {
			t[j] = t[j+1]
		}
		var zero E
		t[len(t)-1] = zero
		*s = t[:len(t)-1]
		return true
	}
	return false
}
