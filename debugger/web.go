package debugger

import (
	"fmt"
	"strings"

	"github.com/heddledbg/heddle/driver"
	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/server"
	"github.com/heddledbg/heddle/wire"
)

// WebView starts the session's web view, which follows the debugger, and returns its URL;
// allowOrigin, if set, lets a page served through an editor's port proxy use it.
func (d *Debugger) WebView(allowOrigin string) (string, error) {
	web, err := d.webServer()
	if err != nil {
		return "", err
	}
	if allowOrigin != "" {
		if err := web.AllowOrigin(allowOrigin); err != nil {
			return "", err
		}
	}
	return web.URL(), nil
}

// webServer returns the session's web view, started on first use.
func (d *Debugger) webServer() (*server.Server, error) {
	d.webOnce.Lock()
	defer d.webOnce.Unlock()
	d.mu.Lock()
	web := d.web
	d.mu.Unlock()
	if web == nil {
		start := d.cfg.Web
		if start == nil {
			start = func() (*server.Server, error) { return server.New(server.Options{}) }
		}
		var err error
		if web, err = start(); err != nil {
			return nil, err
		}
		web.OnGoto(d.gotoStep)
		d.mu.Lock()
		if err := d.ctx.Err(); err != nil {
			// The session ended while the server started (heddle/webview is answered beside
			// the other requests): Close has already closed the servers it knew of.
			d.mu.Unlock()
			web.Close()
			return nil, fmt.Errorf("web view: the session has ended")
		}
		d.web = web
		cur := d.cur
		d.mu.Unlock()
		if in := d.current(); in != nil && cur != nil {
			// The stop's trace is replayed in a worker: the caller (an exploration starting)
			// need not wait for it.
			d.wg.Add(1)
			go func() {
				defer d.wg.Done()
				d.publishCheckpoint(web, in, cur.Checkpoint)
			}()
		}
	}
	return web, nil
}

// sessionTrace returns the detailed trace of the schedule the session follows, replayed in
// a worker; it is kept until the schedule changes.
func (d *Debugger) sessionTrace(in *incarnation) (*record.Trace, []Checkpoint, error) {
	d.record(in)
	d.mu.Lock()
	names := append([]string(nil), d.follow...)
	cps := d.recorded
	prog := d.prog
	key := strings.Join(names, " ")
	if d.trace != nil && d.traceKey == key {
		tr := d.trace
		d.mu.Unlock()
		return tr, cps, nil
	}
	d.mu.Unlock()
	if prog == nil {
		return nil, nil, ErrNoProgram
	}
	sch := prog.newSchedule("debug")
	st := in.ctrl.snapshot()
	for i, n := range names {
		dc := record.Decision{Pick: n, Kind: "goroutine"}
		if i < len(st.decisions) {
			dc.Kind = st.decisions[i].point.Kind.String()
		}
		sch.Decisions = append(sch.Decisions, dc)
	}
	tr, err := driver.Replay(d.ctx, prog.worker(), prog.test, sch, wire.Options{})
	if err != nil {
		return nil, nil, err
	}
	tr.Program.Dir = prog.dir
	d.mu.Lock()
	d.trace, d.traceKey = tr, key
	// Each schedule's trace has a name of its own, so that a page showing the previous one
	// loads the new one rather than moving its cursor on the old.
	d.traces++
	d.traceName = fmt.Sprintf("session-%d", d.traces)
	d.mu.Unlock()
	return tr, cps, nil
}

// publishCheckpoint shows the session's schedule in the web view, at checkpoint k.
func (d *Debugger) publishCheckpoint(web *server.Server, in *incarnation, k int) {
	tr, cps, err := d.sessionTrace(in)
	if err == nil && k >= 0 && k < len(cps) {
		d.mu.Lock()
		name := d.traceName
		d.mu.Unlock()
		err = web.AddTrace(name, tr)
		if err == nil {
			err = web.Publish(record.Checkpoint{Index: k, Step: cps[k].Step, Trace: name})
		}
	}
	if err != nil {
		d.errorf("web view: %v", err)
	}
}

// gotoStep moves the debugger to the checkpoint of a step the web view selected.
func (d *Debugger) gotoStep(step int) error {
	d.mu.Lock()
	cps := d.recorded
	d.mu.Unlock()
	k := -1
	for i, c := range cps {
		if c.Step <= step {
			k = i
		}
	}
	if k < 0 {
		return fmt.Errorf("no checkpoint at or before step %d", step)
	}
	d.GotoCheckpoint(k, func(err error) {
		if err != nil {
			d.errorf("going to the web view's step %d: %v", step, err)
		}
	})
	return nil
}
