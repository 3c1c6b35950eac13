package debugger

import "github.com/heddledbg/heddle/rt"

// Locked returns the checkpoint of the current incarnation at which the lock whose number in
// the run is obj (the id of its rt state) was last write-locked, or nil. While the lock is
// held, that checkpoint's goroutine holds it.
func (d *Debugger) Locked(obj int) *Checkpoint {
	in := d.current()
	if in == nil {
		return nil
	}
	in.ctrl.mu.Lock()
	defer in.ctrl.mu.Unlock()
	cps := in.ctrl.checkpoints
	for i := len(cps) - 1; i >= 0; i-- {
		if cps[i].objID == rt.ObjID(obj) && (cps[i].Op == "lock" || cps[i].Op == "trylock") {
			cp := cps[i]
			return &cp
		}
	}
	return nil
}
