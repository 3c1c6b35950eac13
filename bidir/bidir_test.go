package bidir

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// segment is what runs after a checkpoint: goroutine g, stopped before its operation on
// lines[0], then on the following lines; the operation on its last line ends the segment.
type segment struct {
	g     string
	lines []int
}

// program is a deterministic execution: its segments in order, and breakpoint lines.
type program struct {
	segs []segment
	bps  map[int]bool
	// started counts incarnations, to check how many re-executions a move costs.
	mu      sync.Mutex
	started int
	// kept, when set, is an incarnation standing in the run that the next start for a
	// place at or after it returns instead of a fresh one.
	kept *fake
}

// fake is an incarnation of a program: position (k, s) is line s of segment k.
type fake struct {
	p       *program
	k, s    int
	started bool
	ended   bool
}

func (p *program) start(_ context.Context, k, steps int) (Incarnation, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if f := p.kept; f != nil && (f.k < k || f.k == k && f.s <= steps) {
		p.kept = nil
		return f, nil
	}
	p.started++
	return &fake{p: p, k: -1}, nil
}

func (f *fake) Where() (Stop, bool) {
	if f.k < 0 {
		return Stop{}, false
	}
	st := f.stop()
	st.Steps = f.s
	return st, true
}

func (f *fake) stop() Stop {
	if f.ended {
		return Stop{Ended: true}
	}
	seg := f.p.segs[f.k]
	return Stop{Checkpoint: f.k, Steps: -1, Goroutine: seg.g, File: "f.go", Line: seg.lines[f.s], Depth: 1}
}

func (f *fake) Goto(_ context.Context, k int) (Stop, error) {
	f.k, f.s = k, 0
	st := f.stop()
	st.Steps = 0
	return st, nil
}

// Step goes to the goroutine's next line: past its segment's end, the line after the
// operation in its next segment.
func (f *fake) Step(context.Context) (Stop, error) {
	g := f.p.segs[f.k].g
	if f.s+1 < len(f.p.segs[f.k].lines) {
		f.s++
		return f.stop(), nil
	}
	for k := f.k + 1; k < len(f.p.segs); k++ {
		if f.p.segs[k].g == g && len(f.p.segs[k].lines) > 1 {
			f.k, f.s = k, 1
			return f.stop(), nil
		}
	}
	f.ended = true
	return f.stop(), nil
}

// Continue runs to the next line with a breakpoint. An operation's line is hit before the
// operation, at the end of a segment, not at the checkpoint after it.
func (f *fake) Continue(context.Context) (Stop, error) {
	k, s := f.k, f.s
	if k < 0 {
		k, s = 0, -1
	}
	for {
		s++
		if s >= len(f.p.segs[k].lines) {
			k, s = k+1, 1
			if k >= len(f.p.segs) {
				f.ended = true
				return f.stop(), nil
			}
			if s >= len(f.p.segs[k].lines) {
				s = len(f.p.segs[k].lines) - 1
				continue
			}
		}
		if f.p.bps[f.p.segs[k].lines[s]] {
			f.k, f.s = k, s
			return f.stop(), nil
		}
	}
}

func (f *fake) Close() {}

// State tells a segment's visits of one line apart, as a loop variable would.
func (f *fake) State(context.Context) (string, error) { return fmt.Sprint(f.k, f.s), nil }

// Two goroutines taking turns: G1 runs lines 10–12, G2 lines 20–22, and so on.
func testProgram() *program {
	return &program{segs: []segment{
		{"G1", []int{10, 11, 12}}, // 0
		{"G2", []int{20, 21, 22}}, // 1
		{"G1", []int{12, 13, 14}}, // 2
		{"G2", []int{22, 23, 24}}, // 3
		{"G1", []int{14, 15, 16}}, // 4
		{"G2", []int{24, 25, 26}}, // 5
	}, bps: map[int]bool{}}
}

func (p *program) navigator() *Navigator {
	var names []string
	for _, s := range p.segs {
		names = append(names, s.g)
	}
	return &Navigator{Start: p.start, Checkpoints: names}
}

func TestStepBack(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name      string
		cur       Stop
		wantLine  int
		wantCP    int
		wantSteps int
		starts    int
	}{
		{"known steps", Stop{Checkpoint: 2, Steps: 2, Goroutine: "G1", File: "f.go", Line: 14, Depth: 1}, 13, 2, 1, 1},
		{"counted steps", Stop{Checkpoint: 2, Steps: -1, Goroutine: "G1", File: "f.go", Line: 14, Depth: 1}, 13, 2, 1, 2},
		{"at a checkpoint: the line before the operation's", Stop{Checkpoint: 2, Steps: 0, Goroutine: "G1", File: "f.go", Line: 12, Depth: 1}, 11, 0, 1, 2},
		{"first line after a checkpoint", Stop{Checkpoint: 3, Steps: 1, Goroutine: "G2", File: "f.go", Line: 23, Depth: 1}, 22, 3, 0, 1},
		{"a goroutine's first segment", Stop{Checkpoint: 1, Steps: 0, Goroutine: "G2", File: "f.go", Line: 20, Depth: 1}, 10, 0, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := testProgram()
			_, st, err := p.navigator().StepBack(ctx, tt.cur)
			if err != nil {
				t.Fatal(err)
			}
			if st.Line != tt.wantLine || st.Checkpoint != tt.wantCP || st.Steps != tt.wantSteps {
				t.Errorf("step back from %v reached %v, want line %d at checkpoint %d+%d", tt.cur, st, tt.wantLine, tt.wantCP, tt.wantSteps)
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.started != tt.starts {
				t.Errorf("%d incarnations, want %d", p.started, tt.starts)
			}
		})
	}
}

// A step back takes an incarnation kept on the way to its target, and goes the rest of the
// way with it: no re-execution.
func TestStepBackFromKept(t *testing.T) {
	ctx := context.Background()
	cur := Stop{Checkpoint: 4, Steps: 2, Goroutine: "G1", File: "f.go", Line: 16, Depth: 1}
	for _, tt := range []struct {
		name   string
		k, s   int
		starts int
	}{
		{"at the target", 4, 1, 0},
		{"at the target's checkpoint", 4, 0, 0},
		{"at an earlier checkpoint", 2, 1, 0},
		{"past the target", 4, 2, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := testProgram()
			p.kept = &fake{p: p, k: tt.k, s: tt.s}
			_, st, err := p.navigator().StepBack(ctx, cur)
			if err != nil {
				t.Fatal(err)
			}
			if st.Line != 15 || st.Checkpoint != 4 || st.Steps != 1 {
				t.Errorf("step back from %v reached %v, want line 15 at checkpoint 4+1", cur, st)
			}
			if p.started != tt.starts {
				t.Errorf("%d fresh incarnations, want %d", p.started, tt.starts)
			}
		})
	}
}

// TestStepBackInLoop steps back from the second visit of a loop's line in one segment: the
// state tells it from the first.
func TestStepBackInLoop(t *testing.T) {
	ctx := context.Background()
	p := &program{segs: []segment{
		{"G1", []int{10, 11, 12, 11, 12, 13}},
		{"G1", []int{13, 14}},
	}, bps: map[int]bool{}}
	cur := Stop{Checkpoint: 0, Steps: -1, Goroutine: "G1", File: "f.go", Line: 12, Depth: 1}
	for _, tt := range []struct {
		state            string
		wantSteps, found int
	}{{"0 4", 3, 4}, {"0 2", 1, 2}, {"", 1, 2}, {"no such state", 1, -1}} {
		nav := p.navigator()
		nav.State = func() string { return tt.state }
		_, st, err := nav.StepBack(ctx, cur)
		if err != nil {
			t.Fatal(err)
		}
		if st.Line != 11 || st.Steps != tt.wantSteps {
			t.Errorf("step back from line 12 in state %q reached line %d at checkpoint 0+%d, want line 11 at 0+%d", tt.state, st.Line, st.Steps, tt.wantSteps)
		}
		if nav.Found != tt.found {
			t.Errorf("step back from line 12 in state %q: Found = %d, want %d", tt.state, nav.Found, tt.found)
		}
	}
}

func TestReverseContinue(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		bps      []int
		cur      Stop
		wantLine int
		wantCP   int
	}{
		{"the previous hit", []int{11, 25}, Stop{Checkpoint: 5, Goroutine: "G2", File: "f.go", Line: 25, Depth: 1}, 11, 0},
		{"the latest of several", []int{13, 15, 21}, Stop{Checkpoint: 4, Goroutine: "G1", File: "f.go", Line: 15, Depth: 1}, 13, 2},
		{"no earlier hit: the start", []int{25}, Stop{Checkpoint: 5, Goroutine: "G2", File: "f.go", Line: 25, Depth: 1}, 10, 0},
		// From a place that stepping reached, the hits later in its own stretch are after it.
		{"at a checkpoint, before its stretch's hit", []int{21, 13}, Stop{Checkpoint: 2, Steps: 0, Goroutine: "G1", File: "f.go", Line: 12, Depth: 1}, 21, 1},
		{"within a stretch, before its hit", []int{21, 14}, Stop{Checkpoint: 2, Steps: 1, Goroutine: "G1", File: "f.go", Line: 13, Depth: 1}, 21, 1},
		{"within a stretch, after its hit", []int{21, 13}, Stop{Checkpoint: 2, Steps: 2, Goroutine: "G1", File: "f.go", Line: 14, Depth: 1}, 13, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := testProgram()
			for _, l := range tt.bps {
				p.bps[l] = true
			}
			_, st, err := p.navigator().ReverseContinue(ctx, tt.cur)
			if err != nil {
				t.Fatal(err)
			}
			if st.Line != tt.wantLine || st.Checkpoint != tt.wantCP {
				t.Errorf("reverse continue from %v reached %v, want line %d at checkpoint %d", tt.cur, st, tt.wantLine, tt.wantCP)
			}
		})
	}
}

// TestReverseContinueFromHits follows a user who continues from the start and then reverse
// continues: each hit the continues met is reached again by one incarnation, without a
// search.
func TestReverseContinueFromHits(t *testing.T) {
	ctx := context.Background()
	p := testProgram()
	for _, l := range []int{11, 13, 15, 25} {
		p.bps[l] = true
	}
	hits := NewHits()
	hits.Start()
	user, _ := p.start(ctx, 0, 0)
	var stops []Stop
	cur := Stop{}
	for range 4 {
		from := hits.Leave()
		st, err := user.Continue(ctx)
		if err != nil || st.Ended {
			t.Fatalf("continue from %v: %v, %v", cur, st, err)
		}
		hits.Continued(from, cur, st, true)
		stops, cur = append(stops, st), st
	}
	for i := len(stops) - 1; i >= 0; i-- {
		p.started = 0
		nav := p.navigator()
		nav.Hits, nav.From = hits, hits.Leave()
		_, st, err := nav.ReverseContinue(ctx, cur)
		if err != nil {
			t.Fatal(err)
		}
		want := Stop{Goroutine: "G1", File: "f.go", Line: 10, Depth: 1}
		if i > 0 {
			want = stops[i-1]
		}
		if !st.Same(want) {
			t.Errorf("reverse continue from %v reached %v, want %v", cur, st, want)
		}
		if p.started != 1 {
			t.Errorf("reverse continue from %v took %d incarnations, want 1", cur, p.started)
		}
		cur = st
	}
}

// TestHitsFallBack checks the cases where the record proves nothing, and a reverse continue
// must search.
func TestHitsFallBack(t *testing.T) {
	a := Stop{Checkpoint: 1, Goroutine: "G2", File: "f.go", Line: 21, Depth: 1}
	b := Stop{Checkpoint: 2, Goroutine: "G1", File: "f.go", Line: 13, Depth: 1}
	c := Stop{Checkpoint: 2, Goroutine: "G1", File: "f.go", Line: 14, Depth: 1}
	tests := []struct {
		name string
		do   func(h *Hits) int // returns the place to reverse continue from
		ok   bool
		want Hit
	}{
		{"after a continue from the start", func(h *Hits) int {
			h.Start()
			h.Continued(h.Leave(), Stop{}, a, true)
			return h.Leave()
		}, true, Hit{Nth: 0}},
		{"a later checkpoint's first hit", func(h *Hits) int {
			h.Start()
			h.Continued(h.Leave(), Stop{}, a, true)
			h.Continued(h.Leave(), a, b, true)
			h.Continued(h.Leave(), b, c, true)
			return h.Leave()
		}, true, Hit{Stop: b, Nth: 1}},
		{"breakpoints changed", func(h *Hits) int {
			h.Start()
			h.Continued(h.Leave(), Stop{}, a, true)
			h.Clear()
			return h.Leave()
		}, false, Hit{}},
		{"after a step", func(h *Hits) int {
			h.Start()
			h.Continued(h.Leave(), Stop{}, a, true)
			h.Leave() // the step
			return h.Leave()
		}, false, Hit{}},
		{"a chain from a step's stop: nothing known before its first hit", func(h *Hits) int {
			h.Start()
			h.Continued(h.Leave(), Stop{}, a, true)
			h.Leave() // a step to b
			h.Continued(h.Leave(), b, c, true)
			return h.Leave()
		}, false, Hit{}},
		{"a hit in the same segment as a step's stop has no known rank", func(h *Hits) int {
			h.Leave() // a step to b
			h.Continued(h.Leave(), b, c, true)
			h.Continued(h.Leave(), c, Stop{Checkpoint: 2, Goroutine: "G1", File: "f.go", Line: 15, Depth: 1}, true)
			return h.Leave()
		}, false, Hit{}},
		{"a continue that ended off a breakpoint", func(h *Hits) int {
			h.Start()
			h.Continued(h.Leave(), Stop{}, a, true)
			h.Continued(h.Leave(), a, b, false)
			return h.Leave()
		}, false, Hit{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := NewHits()
			got, ok := h.Previous(tt.do(h))
			if ok != tt.ok || got != tt.want {
				t.Errorf("Previous = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestEnd goes to the last line the execution ran, the last of its last segment.
func TestEnd(t *testing.T) {
	_, st, err := testProgram().navigator().End(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Line != 26 || st.Checkpoint != 5 || st.Steps != 2 || st.Ended {
		t.Errorf("End reached %v, want G2 at line 26, checkpoint 5+2", st)
	}
}
