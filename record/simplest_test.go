package record

import "testing"

func TestSimpler(t *testing.T) {
	r := func(pre, dec int) Simplicity { return Simplicity{Replayable: true, Preemptions: pre, Decisions: dec} }
	for _, tc := range []struct {
		name string
		s, t Simplicity
		want bool
	}{
		{"fewer preemptions", r(1, 40), r(2, 10), true},
		{"more preemptions", r(2, 10), r(1, 40), false},
		{"same preemptions, fewer decisions", r(1, 10), r(1, 40), true},
		{"same preemptions, more decisions", r(1, 40), r(1, 10), false},
		{"equal: the first found stays", r(1, 10), r(1, 10), false},
		{"replayable beats fewer preemptions", r(3, 50), Simplicity{Preemptions: 0}, true},
		{"not replayable loses", Simplicity{Preemptions: 0}, r(3, 50), false},
		{"neither replayable: fewer preemptions", Simplicity{Preemptions: 1}, Simplicity{Preemptions: 2}, true},
		{"neither replayable, equal", Simplicity{Preemptions: 1}, Simplicity{Preemptions: 1}, false},
	} {
		if got := tc.s.Simpler(tc.t); got != tc.want {
			t.Errorf("%s: %+v.Simpler(%+v) = %v, want %v", tc.name, tc.s, tc.t, got, tc.want)
		}
		// Compare is the same order, both ways.
		want := 0
		switch {
		case tc.want:
			want = -1
		case tc.t.Simpler(tc.s):
			want = 1
		}
		if got := tc.s.Compare(tc.t); got != want {
			t.Errorf("%s: %+v.Compare(%+v) = %d, want %d", tc.name, tc.s, tc.t, got, want)
		}
		if got := tc.t.Compare(tc.s); got != -want {
			t.Errorf("%s: %+v.Compare(%+v) = %d, want %d", tc.name, tc.t, tc.s, got, -want)
		}
	}
}

func TestTraceSimplicity(t *testing.T) {
	tr := &Trace{Decisions: make([]Decision, 7)}
	if got, want := TraceSimplicity(2, tr), (Simplicity{Replayable: true, Preemptions: 2, Decisions: 7}); got != want {
		t.Errorf("TraceSimplicity(2, a trace of 7 decisions) = %+v, want %+v", got, want)
	}
	if got, want := TraceSimplicity(2, nil), (Simplicity{Preemptions: 2}); got != want {
		t.Errorf("TraceSimplicity(2, nil) = %+v, want %+v", got, want)
	}
}
