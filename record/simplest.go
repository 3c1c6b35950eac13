package record

import "cmp"

// Simplicity ranks the schedules found for one bug. Every part of heddle that keeps one
// schedule per bug keeps the simplest by Simpler: the exploration (explorer), the controller
// that gathers its workers' bugs (heddle test), and heddle merge, which gathers the shards'.
type Simplicity struct {
	// Replayable tells that the schedule is at hand (the run's decisions, a trace), so the bug
	// can be replayed from it.
	Replayable bool
	// Preemptions counts the schedule's preemptions: switches away from a goroutine that could
	// have gone on.
	Preemptions int
	// Decisions is the schedule's length.
	Decisions int
}

// Simpler reports whether s ranks before t: a schedule that can be replayed before one that
// cannot, then the fewer preemptions, then the fewer decisions. A schedule that is as simple
// is not simpler, so the first found of equals is kept.
func (s Simplicity) Simpler(t Simplicity) bool { return s.Compare(t) < 0 }

// Compare returns -1 if s is simpler than t, 1 if t is simpler than s, and 0 if they are as
// simple: the order of Simpler, for sorting.
func (s Simplicity) Compare(t Simplicity) int {
	switch {
	case s.Replayable != t.Replayable:
		if s.Replayable {
			return -1
		}
		return 1
	case s.Preemptions != t.Preemptions:
		return cmp.Compare(s.Preemptions, t.Preemptions)
	}
	return cmp.Compare(s.Decisions, t.Decisions)
}

// TraceSimplicity is the Simplicity of a bug's schedule with preemptions preemptions whose
// trace is tr, nil if the trace is not at hand.
func TraceSimplicity(preemptions int, tr *Trace) Simplicity {
	s := Simplicity{Preemptions: preemptions}
	if tr != nil {
		s.Replayable, s.Decisions = true, len(tr.Decisions)
	}
	return s
}
