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

// A step back keeps the incarnation it leaves, and a next from there adopts it again; the
// step back after it adopts the incarnation that the first one went back with: going back
// and forth between two lines re-executes nothing.
func TestBackAndForth(t *testing.T) {
	s := newSession(t, counter(12))
	for _, what := range []string{"next", "stepBack", "next"} {
		s.move(what)
	}
	ahead := s.d.current()
	s.move("stepBack")
	back := s.d.current()
	if got := s.line(); got != 12 || back == ahead {
		t.Fatalf("step back: at line %d in incarnation %d, want line 12 in another than %d", got, back.id, ahead.id)
	}
	for i := range 3 {
		s.move("next")
		if got := s.line(); got != 13 || s.d.current() != ahead {
			t.Fatalf("next %d: at line %d in incarnation %d, want line 13 in %d, which the step back left", i, got, s.d.current().id, ahead.id)
		}
		s.move("stepBack")
		if got := s.line(); got != 12 || s.d.current() != back {
			t.Fatalf("step back %d: at line %d in incarnation %d, want line 12 in %d, which the next left", i, got, s.d.current().id, back.id)
		}
	}
}

// A continue from a hit that a reverse continue went back to along the chain of continues
// adopts the incarnation the reverse continue left at the next hit.
func TestContinueAgain(t *testing.T) {
	s := newSession(t, counter(12, 21))
	s.move("continue")
	ahead := s.d.current()
	s.move("reverseContinue")
	back := s.d.current()
	if got := s.line(); got != 12 || back == ahead {
		t.Fatalf("reverse continue: at line %d in incarnation %d, want line 12 in another than %d", got, back.id, ahead.id)
	}
	s.move("continue")
	if got := s.line(); got != 21 || s.d.current() != ahead || s.cur.Reason != "breakpoint" {
		t.Fatalf("continue: at line %d (%s) in incarnation %d, want line 21 (breakpoint) in %d, which the reverse continue left", got, s.cur.Reason, s.d.current().id, ahead.id)
	}
	// The chain goes on from there: a reverse continue goes back to the incarnation the
	// continue left.
	s.move("reverseContinue")
	if got := s.line(); got != 12 || s.d.current() != back {
		t.Fatalf("reverse continue again: at line %d in incarnation %d, want line 12 in %d, which the continue left", got, s.d.current().id, back.id)
	}
}
