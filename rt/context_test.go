package rt_test

import (
	"context"
	"errors"
	"testing"

	"github.com/heddledbg/heddle/rt"
)

// TestContextStdChild derives contexts with the standard package (as uninstrumented code
// does) from controlled ones. Their cancellation must run in goroutines of the run: the
// standard package's own propagation goroutine would call Err from outside heddle's control
// and end the run as unsupported.
func TestContextStdChild(t *testing.T) {
	key := new(int)
	for _, tc := range []struct {
		name   string
		parent func(context.Context) context.Context
	}{
		{"cancel", func(ctx context.Context) context.Context { return ctx }},
		{"value", func(ctx context.Context) context.Context { return rt.WithValue(ctx, key, 1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			res := rt.Run(rt.Config{}, func() {
				ctx, cancel := rt.WithCancel(context.Background())
				child, stop := context.WithCancel(tc.parent(ctx))
				defer stop()
				rt.Go(cancel)
				rt.Recv(child.Done())
				err = child.Err()
			})
			if res.Verdict.Kind != rt.VerdictOK {
				t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("child.Err() = %v, want context.Canceled", err)
			}
		})
	}
}

// TestContextWithoutCancel checks that a context made by WithoutCancel is not cancelled, nor
// are its children or its AfterFunc, when the controlled context it was made from is.
func TestContextWithoutCancel(t *testing.T) {
	var childErr, cause error
	ran := false
	res := rt.Run(rt.Config{}, func() {
		ctx, cancel := rt.WithCancelCause(context.Background())
		detached := rt.WithoutCancel(ctx)
		child, stop := rt.WithCancel(detached)
		defer stop()
		rt.ContextAfterFunc(detached, func() { ran = true })
		cancel(errors.New("cause"))
		rt.Gosched()
		childErr, cause = child.Err(), rt.Cause(detached)
	})
	if res.Verdict.Kind != rt.VerdictOK {
		t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
	}
	if childErr != nil || cause != nil || ran {
		t.Errorf("after cancelling the parent: child.Err() = %v, Cause = %v, AfterFunc ran = %v; want nil, nil, false", childErr, cause, ran)
	}
}

// progCtx is a context type of the program's, as a mock clock's timer context is: its Done
// channel is made under control and closed by the program.
type progCtx struct {
	context.Context
	done chan struct{}
	err  error
}

func (c *progCtx) Done() <-chan struct{} { return c.done }
func (c *progCtx) Err() error            { return c.err }

// TestContextProgramParent checks that a context derived from one of the program's own type
// is cancelled when the parent's Done channel closes, as context's propagateCancel does with a
// goroutine, and that the watcher, when neither is ever cancelled, is not reported as a leak.
func TestContextProgramParent(t *testing.T) {
	var err error
	res := rt.Run(rt.Config{}, func() {
		parent := &progCtx{Context: context.Background(), done: rt.MakeChan[struct{}](0)}
		child, cancel := rt.WithCancel(parent)
		defer cancel()
		rt.Go(func() {
			parent.err = context.DeadlineExceeded
			rt.Close(parent.done)
		})
		rt.Recv(child.Done())
		err = child.Err()
	})
	if res.Verdict.Kind != rt.VerdictOK || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("verdict %s (%s), child.Err() = %v; want ok and the parent's error", res.Verdict.Kind, res.Verdict.Message, err)
	}
	res = rt.Run(rt.Config{}, func() {
		parent := &progCtx{Context: context.Background(), done: rt.MakeChan[struct{}](0)}
		rt.WithCancel(parent)
	})
	if res.Verdict.Kind != rt.VerdictOK {
		t.Errorf("a child never cancelled: verdict %s (%s), want ok", res.Verdict.Kind, res.Verdict.Message)
	}
}
