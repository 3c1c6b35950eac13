package bidir

import (
	"context"
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
}

// fake is an incarnation of a program: position (k, s) is line s of segment k.
type fake struct {
	p       *program
	k, s    int
	started bool
	ended   bool
}

func (p *program) start(context.Context) (Incarnation, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.started++
	return &fake{p: p, k: -1}, nil
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
