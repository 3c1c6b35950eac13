//go:build !race

package rt

// Without the race detector, the hooks of race.go cost nothing.

const raceEnabled = false

func raceHide()                        {}
func raceShow()                        {}
func raceAcquire(ObjID)                {}
func raceRelease(ObjID)                {}
func raceAcquireWriters(ObjID)         {}
func raceReleaseWriters(ObjID)         {}
func (r *run) raceParked(*goroutine)   {}
func (r *run) raceResume(*goroutine)   {}
func raceStartAfter(*goroutine, ObjID) {}
func raceWoken(*goroutine)             {}
func (r *run) raceStart()              {}
func (r *run) raceVerdict()            {}
func (r *run) raceStep(*goroutine)     {}
