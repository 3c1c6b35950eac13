package debugger

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/heddledbg/heddle/wire"
)

// An incarnation is one live debuggee: a target (the debugger on one process of the
// instrumented binary) and the controller that schedules that process's goroutines.
// Going backwards replaces the session's incarnation with a new one.
type incarnation struct {
	id   int
	t    Target
	ctrl *controller

	mu sync.Mutex
	// sink receives the target's stop events while a motion waits for this incarnation to
	// stop; otherwise the session routes them.
	sink chan Event
	// version is that of the breakpoints applied.
	version int
	// exited is closed when the target reports the debuggee's end; output keeps the end of
	// what the debuggee printed while it was not the session's current incarnation.
	exited     chan struct{}
	exitedOnce sync.Once
	output     []string
	// interrupted is the goroutine whose step another goroutine's breakpoint interrupted:
	// Delve resumes that step at the next continue, which keeps the goroutine running as the
	// step did.
	interrupted string
}

// prepare launches a new incarnation, with the control socket in its environment, and starts
// routing its events. The debuggee is not running yet: finish lets it start.
func (d *Debugger) prepare(ctx context.Context) (*incarnation, error) {
	d.mu.Lock()
	d.nextID++
	id := d.nextID
	spec := d.spec
	d.mu.Unlock()
	// A target answers within seconds; a minute means it is stuck, and nothing may wait for
	// it forever.
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	ctrl, err := newController(filepath.Join(d.tmp, "ctl-"+strconv.Itoa(id)+".sock"))
	if err != nil {
		return nil, err
	}
	env := make(map[string]string, len(spec.Env)+2)
	for k, v := range spec.Env {
		env[k] = v
	}
	env[wire.EnvWorker] = "1"
	env[wire.EnvDebug] = ctrl.path
	spec.Env = env
	spec.Temp = d.tmp
	done := trace("start target")
	t, err := d.cfg.Launch(ctx, id, spec)
	done()
	if err != nil {
		ctrl.close()
		return nil, err
	}
	in := &incarnation{id: id, t: t, ctrl: ctrl, exited: make(chan struct{})}
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		d.pump(in)
	}()
	return in, nil
}

// finish lets the debuggee start and waits until it has connected to its controller, ready
// for its run to begin. The first incarnation gets the client's function breakpoints (the
// client set its others on it already); the others get heddle's breakpoint alone, so that
// replaying to a checkpoint does not stop at every breakpoint hit on the way: navigation
// applies the client's breakpoints once there (ensureBreakpoints).
func (in *incarnation) finish(ctx context.Context, version int, first bool) error {
	defer trace("finish")()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	in.version = -1
	if first {
		in.version = version
	}
	if err := in.t.FunctionBreakpoints(ctx, first, nil); err != nil {
		return err
	}
	if err := in.t.Begin(ctx); err != nil {
		return err
	}
	return in.waitConnected(ctx)
}

// ensureBreakpoints applies the client's current breakpoints, of the given version.
func (in *incarnation) ensureBreakpoints(ctx context.Context, version int) error {
	if in.version == version {
		return nil
	}
	if err := in.t.ApplyBreakpoints(ctx); err != nil {
		return err
	}
	in.version = version
	return nil
}

func (in *incarnation) waitConnected(ctx context.Context) error {
	t := time.NewTimer(60 * time.Second)
	defer t.Stop()
	select {
	case <-in.ctrl.connected:
		return nil
	case <-in.t.Done():
		return fmt.Errorf("the debugger ended before the debuggee started")
	case <-in.exited:
		in.mu.Lock()
		out := strings.Join(in.output, "")
		in.mu.Unlock()
		return fmt.Errorf("the debuggee exited before it connected to heddle:\n%s", out)
	case <-t.C:
		return fmt.Errorf("the debuggee did not start within 60s")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// close ends the debuggee, its debugger and its controller.
func (in *incarnation) close() {
	in.t.Close()
	in.ctrl.close()
}

// resume moves goroutine goid with motion m.
func (in *incarnation) resume(ctx context.Context, m Motion, goid int64) error {
	return in.t.Resume(ctx, Resume{Motion: m, Goid: goid})
}

// pump routes an incarnation's events for as long as its debugger runs.
func (d *Debugger) pump(in *incarnation) {
	for ev := range in.t.Events() {
		d.route(in, ev)
	}
	in.mu.Lock()
	sink := in.sink
	in.mu.Unlock()
	if sink != nil {
		sink <- Event{Kind: Exited}
	}
}

func (d *Debugger) route(in *incarnation, ev Event) {
	switch ev.Kind {
	case Stopped, Exited, Continued:
		if ev.Kind == Exited {
			in.exitedOnce.Do(func() { close(in.exited) })
		}
		in.mu.Lock()
		sink := in.sink
		in.mu.Unlock()
		if sink != nil {
			sink <- ev
			return
		}
		if in != d.current() {
			return
		}
		if ev.Kind == Stopped {
			// A stop no motion waits for: a pause.
			goid := d.paused(in, ev.Goid)
			d.wg.Add(1)
			go func() {
				defer d.wg.Done()
				d.present(in, halt{goid: goid, reason: ev.Reason}, -1)
			}()
			return
		}
		if ev.Kind == Continued {
			d.front.Forward(ev.Native, d.threadOf(in))
		}
		// Delve's exited and terminated are not passed on: the session outlives a
		// debuggee (the stop at the end of the run is shown in a new one), and it ends
		// when the debugger says so (Front.Terminated), for a debuggee killed mid-run too.
	case Output:
		if in != d.current() {
			in.keepOutput(ev.Text)
			return
		}
		d.front.Forward(ev.Native, d.threadOf(in))
	default:
		if in != d.current() {
			return
		}
		d.front.Forward(ev.Native, d.threadOf(in))
	}
}

// threadOf translates in's goroutine ids to thread ids.
func (d *Debugger) threadOf(in *incarnation) func(int64) int {
	return func(goid int64) int {
		id, _ := d.threads.client(in, goid)
		return id
	}
}

// paused returns the goroutine to show for a pause that stopped goroutine goid. The debugger
// reports whichever goroutine its thread was running, often one of Go's; the user paused the
// goroutine heddle was running.
func (d *Debugger) paused(in *incarnation, goid int64) int64 {
	if _, name := d.threads.client(in, goid); name != "" {
		return goid
	}
	in.ctrl.mu.Lock()
	defer in.ctrl.mu.Unlock()
	if n := len(in.ctrl.checkpoints); n > 0 {
		return in.ctrl.checkpoints[n-1].goid
	}
	return goid
}

// keepOutput keeps the end of what a debuggee that is not the current one prints, for the
// error when it exits before connecting.
func (in *incarnation) keepOutput(text string) {
	in.mu.Lock()
	if in.output = append(in.output, text); len(in.output) > 20 {
		in.output = in.output[1:]
	}
	in.mu.Unlock()
}

// capture makes in's stop events go to the returned channel until release.
func (in *incarnation) capture() chan Event {
	ch := make(chan Event, 64)
	in.mu.Lock()
	in.sink = ch
	in.mu.Unlock()
	return ch
}

// release releases the capture made with sink, if it is still the current one.
func (in *incarnation) release(sink chan Event) {
	in.mu.Lock()
	if in.sink == sink {
		in.sink = nil
	}
	in.mu.Unlock()
}
