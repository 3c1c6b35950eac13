//go:build !race

package rt

import "unsafe"

// Without the race detector, the hooks of race.go cost nothing.

const raceEnabled = false

//go:norace
func raceHide() {}

//go:norace
func raceShow() {}

//go:norace
func raceAcquire(ObjID) {}

//go:norace
func raceRelease(ObjID) {}

//go:norace
func raceAcquireWriters(ObjID) {}

//go:norace
func raceReleaseWriters(ObjID) {}

//go:norace
func (r *run) raceParked(*goroutine) {}

//go:norace
func (r *run) raceResume(*goroutine) {}

//go:norace
func raceStartAfter(*goroutine, ObjID) {}

//go:norace
func raceWoken(*goroutine) {}

//go:norace
func (r *run) raceStart() {}

//go:norace
func (r *run) raceVerdict() {}

//go:norace
func (r *run) raceStep(*goroutine) {}

func raceReadAt(unsafe.Pointer) {}

func raceWriteAt(unsafe.Pointer) {}
