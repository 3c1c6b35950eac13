package debugger

import "testing"

// step is a move of a test and the line where it stops (0: the run ended).
type step struct {
	what string
	line int
}

// TestMoves runs the core's moves against a fake Delve and debuggee (fake_test.go).
func TestMoves(t *testing.T) {
	tests := []struct {
		name  string
		bps   []int
		steps []step
	}{
		{"step back after step", []int{12}, []step{{"next", 13}, {"stepBack", 12}, {"next", 13}}},
		{"step back twice", []int{12}, []step{{"next", 13}, {"next", 14}, {"stepBack", 13}, {"stepBack", 12}}},
		{"reverse continue to the previous hit", []int{12, 21}, []step{{"continue", 21}, {"reverseContinue", 12}, {"continue", 21}}},
		{"reverse continue from a step", []int{12}, []step{{"next", 13}, {"next", 14}, {"reverseContinue", 12}}},
		{"stepping past the end keeps the session", []int{12}, []step{{"next", 13}, {"next", 14}, {"next", 22}, {"next", 22}, {"stepBack", 21}, {"goto 1", 11}, {"next", 12}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t, counter(tt.bps...))
			if got := s.line(); got != tt.bps[0] {
				t.Fatalf("the run stopped at line %d, want the breakpoint at %d", got, tt.bps[0])
			}
			for _, st := range tt.steps {
				s.move(st.what)
				if got := s.line(); got != st.line {
					t.Fatalf("%s: at line %d (%+v), want %d", st.what, got, s.cur, st.line)
				}
			}
		})
	}
}

// move makes the move named what.
func (s *session) move(what string) {
	s.t.Helper()
	switch what {
	case "next":
		s.do(what, func(done func(error)) { s.d.Move(Next, s.cur.Thread, "", done) })
	case "continue":
		s.do(what, func(done func(error)) { s.d.Move(Continue, s.cur.Thread, "", done) })
	case "stepBack":
		s.do(what, s.d.StepBack)
	case "reverseContinue":
		s.do(what, s.d.ReverseContinue)
	case "goto 1":
		s.do(what, func(done func(error)) { s.d.GotoCheckpoint(1, done) })
	default:
		s.t.Fatalf("no move %q", what)
	}
}

// At the end of the run, the checkpoints are the run's and one beyond them is refused.
func TestMoveErrors(t *testing.T) {
	s := newSession(t, counter(12))
	s.move("next")
	s.move("next")
	s.move("next")
	if s.cur.Reason != "end" || s.cur.Description != "the run ended: ok" {
		t.Fatalf("stepping past the end: %+v, want the end of the run", s.cur)
	}
	errc := make(chan error, 1)
	if _, cps, err := s.d.Checkpoints(); err != nil || len(cps) < 4 {
		t.Errorf("checkpoints after the end: %d, %v; want the run's", len(cps), err)
	}
	s.d.GotoCheckpoint(99, func(err error) { errc <- err })
	if err := <-errc; err == nil {
		t.Errorf("goto checkpoint 99 succeeded")
	}
}
