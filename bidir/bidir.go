package bidir

import (
	"context"
	"fmt"
	"slices"
)

// Stop is where a stopped incarnation is.
type Stop struct {
	// Checkpoint is the index of the last checkpoint reached.
	Checkpoint int
	// Steps is the number of line steps made by the goroutine resumed at Checkpoint since
	// then: 0 at the checkpoint itself, -1 when unknown (a breakpoint hit).
	Steps int
	// Goroutine is the stopped goroutine's logical id; File, Line and Depth (the number of
	// the user's frames on its stack) tell where it is.
	Goroutine string
	File      string
	Line      int
	Depth     int
	// Ended is set when the run ended instead of stopping.
	Ended bool
}

// Same reports whether s and t are at the same place: the same checkpoint, goroutine, line
// and stack depth. Within one checkpoint's segment a line revisited at the same depth (a
// loop) is the same place; Steps tells the visits apart when it is known.
func (s Stop) Same(t Stop) bool {
	return s.Checkpoint == t.Checkpoint && s.Goroutine == t.Goroutine && s.File == t.File && s.Line == t.Line && s.Depth == t.Depth
}

func (s Stop) String() string {
	return fmt.Sprintf("checkpoint %d+%d %s at %s:%d", s.Checkpoint, s.Steps, s.Goroutine, s.File, s.Line)
}

// Incarnation is a live execution that can only go forward. A fresh incarnation has not
// started its run; its first call starts it. One that a Starter kept already stands
// somewhere in the run (Where).
type Incarnation interface {
	// Where returns the place the incarnation stands at, with its Steps when known, once
	// its run has started; a fresh incarnation stands nowhere yet.
	Where() (Stop, bool)
	// Goto runs to checkpoint k and stops the goroutine resumed there before its operation.
	// An incarnation that stands at checkpoint k itself, before any step, stays there.
	Goto(ctx context.Context, k int) (Stop, error)
	// Step makes one line step of the stopped goroutine.
	Step(ctx context.Context) (Stop, error)
	// Continue runs to the next breakpoint hit, or to the end of the run.
	Continue(ctx context.Context) (Stop, error)
	// State describes the stopped goroutine's innermost frame, its variables' values, so
	// that two visits of one line (a loop's iterations) can be told apart.
	State(ctx context.Context) (string, error)
	// Close ends the incarnation.
	Close()
}

// Starter returns an incarnation of the program that will follow the session's schedule, for
// a move to the place steps line steps after checkpoint k: a fresh one, or one kept standing
// at an earlier place of the same execution (a spare incarnation along the run, as in
// Bruening's thesis, ch. 3): before checkpoint k, or at most steps line steps after it.
type Starter func(ctx context.Context, k, steps int) (Incarnation, error)

// Navigator plans backward moves. Checkpoints names the goroutine resumed at each checkpoint
// of the recorded execution.
type Navigator struct {
	Start       Starter
	Checkpoints []string
	// FromStart makes ReverseContinue replay from the start with breakpoints on, for
	// breakpoints whose hit counts must count every hit.
	FromStart bool
	// Hits, when set, is the record of the hits met so far, and From the place on it that
	// the move leaves from (Hits.Leave).
	Hits *Hits
	From int
	// State returns the Incarnation.State of the stop a move starts from, or "" if it is not
	// known; nil is never known. It is called only when a count meets the stop's line, so
	// that reading it may go on beside the count.
	State func() string
	// Found is set by a StepBack from a stop whose line steps were unknown: the number of
	// line steps after its checkpoint at which the count found it, or -1 when the count
	// settled for a nearby place.
	Found int
}

// maxCount bounds the line steps made to find a stop's place after its checkpoint: a loop
// with no scheduling point in it may run for ever.
const maxCount = 5000

// StepBack returns an incarnation stopped at the previous line that cur's goroutine executed.
func (n *Navigator) StepBack(ctx context.Context, cur Stop) (Incarnation, Stop, error) {
	n.Found = -1
	if cur.Steps < 0 {
		// Count the steps in one incarnation while another goes to the checkpoint.
		ahead := n.goingTo(ctx, cur.Checkpoint)
		steps, err := n.count(ctx, cur)
		if err != nil {
			ahead.discard()
			return nil, Stop{}, err
		}
		if steps > 0 {
			return ahead.steps(ctx, cur.Checkpoint, steps-1)
		}
		ahead.discard()
		cur.Steps = steps
	}
	if cur.Steps > 0 {
		return n.at(ctx, cur.Checkpoint, cur.Steps-1)
	}
	// At a checkpoint: the previous line is the last but one of the goroutine's previous
	// segment (its last line is the operation it is now stopped before).
	prev := -1
	for j := min(cur.Checkpoint, len(n.Checkpoints)) - 1; j >= 0; j-- {
		if n.Checkpoints[j] == cur.Goroutine {
			prev = j
			break
		}
	}
	if prev < 0 {
		// The goroutine's first segment: go to the checkpoint before, whoever ran there.
		return n.at(ctx, max(cur.Checkpoint-1, 0), 0)
	}
	in, err := n.Start(ctx, prev, 0)
	if err != nil {
		return nil, Stop{}, err
	}
	last, err := segmentLength(ctx, in, prev)
	in.Close()
	if err != nil {
		return nil, Stop{}, err
	}
	return n.at(ctx, prev, max(last-1, 0))
}

// End returns an incarnation stopped on the last line the recorded execution ran before it
// ended: the last line of its last checkpoint's segment.
func (n *Navigator) End(ctx context.Context) (Incarnation, Stop, error) {
	last := len(n.Checkpoints) - 1
	if last < 0 {
		return nil, Stop{}, fmt.Errorf("the run has no checkpoint")
	}
	ahead := n.goingTo(ctx, last)
	in, err := n.Start(ctx, last, 0)
	if err != nil {
		ahead.discard()
		return nil, Stop{}, err
	}
	steps, err := segmentLength(ctx, in, last)
	in.Close()
	if err != nil {
		ahead.discard()
		return nil, Stop{}, err
	}
	return ahead.steps(ctx, last, steps)
}

// segmentLength goes to checkpoint k and counts the line steps that stay in its segment.
func segmentLength(ctx context.Context, in Incarnation, k int) (int, error) {
	st, err := in.Goto(ctx, k)
	if err != nil {
		return 0, err
	}
	g := st.Goroutine
	for steps := 0; ; steps++ {
		st, err = in.Step(ctx)
		if err != nil {
			return 0, err
		}
		if st.Ended || st.Checkpoint != k || st.Goroutine != g {
			return steps, nil
		}
	}
}

// count finds how many line steps after its checkpoint cur is, by stepping a new incarnation
// from the checkpoint until it is at cur's place. Of several visits of cur's line (a loop's
// iterations), the one whose state is n.State() is cur; when none is, the first.
func (n *Navigator) count(ctx context.Context, cur Stop) (int, error) {
	in, err := n.Start(ctx, cur.Checkpoint, 0)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	st, err := in.Goto(ctx, cur.Checkpoint)
	if err != nil {
		return 0, err
	}
	first := -1
	for steps := 0; ; steps++ {
		if st.Same(cur) {
			want := ""
			if n.State != nil {
				want = n.State()
			}
			if want == "" {
				n.Found = steps
				return steps, nil
			}
			if first < 0 {
				first = steps
			}
			if s, err := in.State(ctx); err == nil && s == want {
				n.Found = steps
				return steps, nil
			}
		}
		if st.Ended || st.Checkpoint != cur.Checkpoint {
			// cur is not on the stepping path (a goroutine heddle does not control, say):
			// the nearest place before it is its checkpoint.
			return max(first, 0), nil
		}
		if steps == maxCount {
			if first >= 0 {
				return first, nil
			}
			return 0, fmt.Errorf("%v is more than %d lines after its checkpoint", cur, maxCount)
		}
		if st, err = in.Step(ctx); err != nil {
			return 0, err
		}
	}
}

// pending is an incarnation on its way to a checkpoint.
type pending struct {
	done chan struct{}
	in   Incarnation
	st   Stop
	err  error
}

// goingTo starts a new incarnation and runs it to checkpoint k in the background.
func (n *Navigator) goingTo(ctx context.Context, k int) *pending {
	p := &pending{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		if p.in, p.err = n.Start(ctx, k, 0); p.err == nil {
			p.st, p.err = p.in.Goto(ctx, k)
		}
	}()
	return p
}

// steps waits for the incarnation to reach checkpoint k and makes it go steps line steps
// further.
func (p *pending) steps(ctx context.Context, k, steps int) (Incarnation, Stop, error) {
	<-p.done
	st, err := p.st, p.err
	for i := 0; i < steps && err == nil; i++ {
		st, err = p.in.Step(ctx)
	}
	if err != nil {
		if p.in != nil {
			p.in.Close()
		}
		return nil, Stop{}, err
	}
	st.Steps = steps
	return p.in, st, nil
}

// discard closes the incarnation once it is no longer needed.
func (p *pending) discard() {
	go func() {
		<-p.done
		if p.in != nil {
			p.in.Close()
		}
	}()
}

// at returns an incarnation stopped steps line steps after checkpoint k: one that stands on
// the way there goes the rest of the way.
func (n *Navigator) at(ctx context.Context, k, steps int) (Incarnation, Stop, error) {
	in, err := n.Start(ctx, k, steps)
	if err != nil {
		return nil, Stop{}, err
	}
	st, ok := in.Where()
	done := 0
	if ok && st.Checkpoint == k && st.Steps >= 0 && st.Steps <= steps {
		done = st.Steps
	} else {
		st, err = in.Goto(ctx, k)
	}
	for i := done; i < steps && err == nil; i++ {
		st, err = in.Step(ctx)
	}
	if err != nil {
		in.Close()
		return nil, Stop{}, err
	}
	st.Steps = steps
	return in, st, nil
}

// ReverseContinue returns an incarnation stopped at the latest breakpoint hit before cur, or
// at checkpoint 0 when there is none. It looks for hits in windows of checkpoints before cur
// that grow fourfold, so that the usual case, a hit shortly before, replays only the end of
// the execution with breakpoints on; replaying to a window's start needs none.
func (n *Navigator) ReverseContinue(ctx context.Context, cur Stop) (Incarnation, Stop, error) {
	if n.Hits != nil && !n.FromStart {
		if h, ok := n.Hits.Previous(n.From); ok {
			in, st, err := n.reach(ctx, h)
			if err == nil {
				n.Hits.Back(n.From)
				return in, st, nil
			}
			if ctx.Err() != nil {
				return nil, Stop{}, err
			}
			// The replay went elsewhere: search as if nothing were known.
		}
	}
	for w := 4; ; w *= 4 {
		k0 := max(cur.Checkpoint-w, 0)
		if n.FromStart {
			k0 = 0
		}
		// Count the window's hits in one incarnation while another goes to its start.
		var ahead *pending
		if k0 == 0 {
			// The window starts with the run: the incarnation need only exist.
			ahead = n.starting(ctx)
		} else {
			ahead = n.goingTo(ctx, k0)
		}
		hits, err := n.hitsBefore(ctx, k0, cur)
		if err != nil {
			ahead.discard()
			return nil, Stop{}, err
		}
		if hits > 0 {
			<-ahead.done
			in, err := ahead.in, ahead.err
			var st Stop
			for i := 0; i < hits && err == nil; i++ {
				st, err = in.Continue(ctx)
			}
			if err != nil {
				if in != nil {
					in.Close()
				}
				return nil, Stop{}, err
			}
			st.Steps = -1
			return in, st, nil
		}
		ahead.discard()
		if k0 == 0 {
			return n.at(ctx, 0, 0)
		}
	}
}

// reach returns a new incarnation stopped at a recorded hit.
func (n *Navigator) reach(ctx context.Context, h Hit) (Incarnation, Stop, error) {
	if h.Nth == 0 {
		return n.at(ctx, 0, 0)
	}
	in, err := n.Start(ctx, h.Stop.Checkpoint, 0)
	if err != nil {
		return nil, Stop{}, err
	}
	var st Stop
	if h.Stop.Checkpoint > 0 {
		st, err = in.Goto(ctx, h.Stop.Checkpoint)
	}
	for i := 0; i < h.Nth && err == nil; i++ {
		st, err = in.Continue(ctx)
	}
	if err == nil && !st.Same(h.Stop) {
		err = fmt.Errorf("the replay stopped at %v, not at the recorded hit %v", st, h.Stop)
	}
	if err != nil {
		in.Close()
		return nil, Stop{}, err
	}
	st.Steps = -1
	return in, st, nil
}

// starting starts a new incarnation in the background, without running it.
func (n *Navigator) starting(ctx context.Context) *pending {
	p := &pending{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.in, p.err = n.Start(ctx, 0, 0)
	}()
	return p
}

// window starts in's run at checkpoint k0, or from the very start for 0 (where checkpoint 0's
// goroutine has not yet run any line with a breakpoint).
func (n *Navigator) window(ctx context.Context, in Incarnation, k0 int) (Stop, error) {
	if k0 == 0 {
		return Stop{}, nil
	}
	return in.Goto(ctx, k0)
}

// hitsBefore counts the breakpoint hits from checkpoint k0 to cur.
func (n *Navigator) hitsBefore(ctx context.Context, k0 int, cur Stop) (int, error) {
	in, err := n.Start(ctx, k0, 0)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	if _, err := n.window(ctx, in, k0); err != nil {
		return 0, err
	}
	hits := 0
	var path []Stop // cur's stretch up to cur, once a hit falls in it
	used := 0       // the places of path that earlier hits were
	for {
		st, err := in.Continue(ctx)
		if err != nil {
			return 0, err
		}
		if st.Ended || st.Checkpoint > cur.Checkpoint {
			return hits, nil
		}
		if st.Checkpoint == cur.Checkpoint && cur.Steps >= 0 {
			// A hit in cur's own stretch is before cur only if stepping from the checkpoint to
			// cur passes it; otherwise it, and every later hit, is after cur.
			if path == nil {
				if path, err = n.path(ctx, cur); err != nil {
					return 0, err
				}
			}
			i := slices.IndexFunc(path[used:], st.Same)
			if i < 0 {
				return hits, nil
			}
			used += i + 1
		} else if st.Same(cur) {
			return hits, nil
		}
		hits++
	}
}

// path returns the places a new incarnation passes stepping from cur's checkpoint to cur,
// which cur.Steps says how far it is: cur itself is not among them.
func (n *Navigator) path(ctx context.Context, cur Stop) ([]Stop, error) {
	path := make([]Stop, 0, cur.Steps)
	if cur.Steps == 0 {
		return path, nil
	}
	in, err := n.Start(ctx, cur.Checkpoint, 0)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	st, err := in.Goto(ctx, cur.Checkpoint)
	for err == nil && len(path) < cur.Steps {
		path = append(path, st)
		st, err = in.Step(ctx)
	}
	return path, err
}
