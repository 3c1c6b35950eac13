package explorer_test

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/heddledbg/heddle"
	"github.com/heddledbg/heddle/rt"
)

// Random small programs for testing the reductions against exhaustive search. A program is
// data (genProgram) that one interpreter (genProgram.body) runs, so a seed determines the
// program and the program can be printed when a test fails.

// genOpKind is an instruction of a generated goroutine.
type genOpKind uint8

const (
	genLock   genOpKind = iota // lock mutex Arg
	genUnlock                  // unlock mutex Arg
	genWrite                   // read and update x[Arg], the variable protected by mutex Arg
	genSend                    // send on channel Arg
	genRecv                    // receive from channel Arg
	genAdd                     // atomically add to the shared counter
	genLoad                    // atomically load the shared counter
	genRead                    // read x[Arg], the variable protected by mutex Arg
	genAfter                   // AfterFunc(Arg quanta, atomically add 100 to the shared counter)
	genWait                    // <-time.After(Arg quanta)
)

type genOp struct {
	Kind genOpKind
	Arg  int
}

func (op genOp) String() string {
	switch op.Kind {
	case genLock:
		return fmt.Sprintf("m%d.Lock()", op.Arg)
	case genUnlock:
		return fmt.Sprintf("m%d.Unlock()", op.Arg)
	case genWrite:
		return fmt.Sprintf("x%d = f(x%d)", op.Arg, op.Arg)
	case genSend:
		return fmt.Sprintf("c%d <- v", op.Arg)
	case genRecv:
		return fmt.Sprintf("<-c%d", op.Arg)
	case genAdd:
		return "atomic.Add(&n)"
	case genLoad:
		return "atomic.Load(&n)"
	case genRead:
		return fmt.Sprintf("_ = x%d", op.Arg)
	case genAfter:
		return fmt.Sprintf("time.AfterFunc(%d quanta, add)", op.Arg)
	case genWait:
		return fmt.Sprintf("<-time.After(%d quanta)", op.Arg)
	}
	return "?"
}

// genProgram is a generated program: the root starts len(Gs) goroutines, waits for them with a
// WaitGroup, and then, if Assert is set, asserts a predicate of the final state that holds for
// some final states and not for others.
type genProgram struct {
	Seed    uint64
	Mutexes int
	Chans   []int // channel capacities
	Gs      [][]genOp
	Assert  bool
}

func (p *genProgram) String() string {
	var b strings.Builder
	if p.Seed != 0 {
		fmt.Fprintf(&b, "seed %d: ", p.Seed)
	}
	fmt.Fprintf(&b, "%d mutex(es), channel capacities %v, final assertion %v\n", p.Mutexes, p.Chans, p.Assert)
	for g, ops := range p.Gs {
		fmt.Fprintf(&b, "  G1.%d:", g+1)
		for _, op := range ops {
			fmt.Fprintf(&b, " %s;", op)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// maxInterleavings bounds the number of interleavings of a generated program's scheduling
// points, so that exhaustive search of every generated program takes well under a second.
const maxInterleavings = 20_000

// generate returns the program of a seed: 2–4 goroutines of 2–5 actions each (fewer for more
// goroutines), an action being a critical section on one mutex or two nested ones (in an order
// chosen per goroutine, so lock cycles occur), a send, a receive, or an atomic add or load. The
// channels' sends and receives are balanced for two thirds of the seeds, so that some programs
// complete and others block.
func generate(seed uint64) *genProgram {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	for {
		p := &genProgram{Seed: seed, Mutexes: 1 + rng.IntN(3), Assert: rng.IntN(3) == 0}
		for range rng.IntN(3) {
			p.Chans = append(p.Chans, rng.IntN(2))
		}
		n := 2 + rng.IntN(3)
		maxActions := map[int]int{2: 5, 3: 4, 4: 3}[n]
		p.Gs = make([][]genOp, n)
		for g := range p.Gs {
			for range 2 + rng.IntN(maxActions-1) {
				p.Gs[g] = append(p.Gs[g], p.action(rng)...)
			}
		}
		if len(p.Chans) > 0 && rng.IntN(3) != 0 {
			p.balance(rng)
		}
		p.readers(seed)
		if p.interleavings() <= maxInterleavings {
			return p
		}
	}
}

func (p *genProgram) action(rng *rand.Rand) []genOp {
	kinds := 4
	if len(p.Chans) > 0 {
		kinds = 6
	}
	switch rng.IntN(kinds) {
	case 0:
		m := rng.IntN(p.Mutexes)
		return []genOp{{genLock, m}, {genWrite, m}, {genUnlock, m}}
	case 1:
		if p.Mutexes < 2 {
			return []genOp{{genAdd, 0}}
		}
		outer := rng.IntN(p.Mutexes)
		inner := (outer + 1 + rng.IntN(p.Mutexes-1)) % p.Mutexes
		return []genOp{{genLock, outer}, {genWrite, outer}, {genLock, inner}, {genWrite, inner}, {genUnlock, inner}, {genUnlock, outer}}
	case 2:
		return []genOp{{genAdd, 0}}
	case 3:
		return []genOp{{genLoad, 0}}
	case 4:
		return []genOp{{genSend, rng.IntN(len(p.Chans))}}
	default:
		return []genOp{{genRecv, rng.IntN(len(p.Chans))}}
	}
}

// readers turns about half the critical sections on one mutex into readers of its variable,
// so that two critical sections of a mutex can share no written data: Stoller's eq. (4) makes
// them independent. The choice draws from a stream of its own, which leaves the rest of the
// program what the seed made it before readers existed.
func (p *genProgram) readers(seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 0x5eadbeef))
	for _, ops := range p.Gs {
		for i := 0; i+2 < len(ops); i++ {
			if ops[i].Kind == genLock && ops[i+1].Kind == genWrite && ops[i+2].Kind == genUnlock && rng.IntN(2) == 0 {
				ops[i+1].Kind = genRead
			}
		}
	}
}

// withTimers returns p with one to three timer operations (genAfter, genWait) of 1 to 4
// quanta inserted at random places, drawn from a stream of the seed's own: under the default
// time a timer falls due after as many steps as its quanta, wherever they were taken, and
// fires at any later step; the reductions must find every final state that dfs finds.
func (p *genProgram) withTimers() *genProgram {
	rng := rand.New(rand.NewPCG(p.Seed, 0x7173e5))
	q := *p
	q.Gs = make([][]genOp, len(p.Gs))
	for g := range p.Gs {
		q.Gs[g] = slices.Clone(p.Gs[g])
	}
	for range 1 + rng.IntN(3) {
		g := rng.IntN(len(q.Gs))
		// Not inside a critical section: between two actions.
		var at []int
		depth := 0
		for i, op := range q.Gs[g] {
			if depth == 0 {
				at = append(at, i)
			}
			switch op.Kind {
			case genLock:
				depth++
			case genUnlock:
				depth--
			}
		}
		at = append(at, len(q.Gs[g]))
		i := at[rng.IntN(len(at))]
		op := genOp{genAfter, 1 + rng.IntN(4)}
		if rng.IntN(2) == 0 {
			op.Kind = genWait
		}
		q.Gs[g] = slices.Insert(q.Gs[g], i, op)
	}
	return &q
}

// timers reports whether p sets timers.
func (p *genProgram) timers() bool {
	for _, ops := range p.Gs {
		for _, op := range ops {
			if op.Kind == genAfter || op.Kind == genWait {
				return true
			}
		}
	}
	return false
}

// balance adds the missing sends or receives of every channel to random goroutines.
func (p *genProgram) balance(rng *rand.Rand) {
	for c := range p.Chans {
		diff := 0
		for _, ops := range p.Gs {
			for _, op := range ops {
				switch {
				case op.Kind == genSend && op.Arg == c:
					diff++
				case op.Kind == genRecv && op.Arg == c:
					diff--
				}
			}
		}
		for ; diff > 0; diff-- {
			g := rng.IntN(len(p.Gs))
			p.Gs[g] = append(p.Gs[g], genOp{genRecv, c})
		}
		for ; diff < 0; diff++ {
			g := rng.IntN(len(p.Gs))
			p.Gs[g] = append(p.Gs[g], genOp{genSend, c})
		}
	}
}

// interleavings is the multinomial number of interleavings of the goroutines' scheduling
// points (every operation but Unlock and the write, plus the final WaitGroup.Done), an upper
// bound of the runs of exhaustive search.
func (p *genProgram) interleavings() float64 {
	total, res := 0, 1.0
	for _, ops := range p.Gs {
		steps := 1
		for _, op := range ops {
			if op.Kind != genUnlock && op.Kind != genWrite && op.Kind != genRead {
				steps++
			}
		}
		for i := 1; i <= steps; i++ {
			total++
			res = res * float64(total) / float64(i)
		}
	}
	return res
}

// genRun is what one run of a generated program reached: where each goroutine stopped, and
// the final state if the root got past waiting for the goroutines.
type genRun struct {
	pcs   []int // index of the operation each goroutine is at; len(ops) once it is done
	state string
}

// terminal names the run's terminal state in terms of the program, independently of the
// schedule: the final state, or the operation each goroutine is blocked at.
func (p *genProgram) terminal(r *genRun) string {
	if r.state != "" {
		return "final " + r.state
	}
	var b strings.Builder
	b.WriteString("blocked")
	for g, pc := range r.pcs {
		if pc < len(p.Gs[g]) {
			fmt.Fprintf(&b, " G1.%d@%d:%s", g+1, pc, p.Gs[g][pc])
		} else {
			fmt.Fprintf(&b, " G1.%d:done", g+1)
		}
	}
	return b.String()
}

// body returns the program as a body for explore. Each run stores in *last what it reached.
func (p *genProgram) body(last **genRun) func() {
	return func() {
		run := &genRun{pcs: make([]int, len(p.Gs))}
		*last = run
		mus := make([]rt.Mutex, p.Mutexes)
		xs := make([]int64, p.Mutexes) // x[i] is protected by mus[i]
		chans := make([]chan int64, len(p.Chans))
		for i, c := range p.Chans {
			chans[i] = rt.MakeChan[int64](c)
		}
		var counter int64
		results := make([]int64, len(p.Gs))
		// Stoller's bounds name every object in advance; a timer is made by the operation.
		timers := p.timers()
		var wg rt.WaitGroup
		wg.Add(len(p.Gs))
		// bound is what goroutine g may still do from operation i on, as a static analysis of
		// its code at that point would give it (Stoller's allowedOps, for stoller-ps).
		bound := func(g, i int) rt.Bound {
			b := rt.Bound{}.Sync(&wg).Writes(&results[g])
			for _, op := range p.Gs[g][i:] {
				switch op.Kind {
				case genLock, genUnlock:
					b = b.Sync(&mus[op.Arg])
				case genWrite:
					b = b.Writes(&xs[op.Arg])
				case genRead:
					b = b.Reads(&xs[op.Arg])
				case genSend, genRecv:
					b = b.Sync(chans[op.Arg])
				case genAdd:
					b = b.Atomic(&counter)
				case genLoad:
					b = b.Atomic(&counter).Polls() // a load that repeats the previous one polls
				}
			}
			return b
		}
		for g, ops := range p.Gs {
			rt.Go(func() {
				defer wg.Done()
				// acc folds in everything the goroutine observes, in order, so that the final
				// state tells apart the orders in which it observed other goroutines' effects.
				acc := int64(g + 1)
				for i, op := range ops {
					run.pcs[g] = i
					if !timers {
						rt.Declare(bound(g, i))
					}
					switch op.Kind {
					case genLock:
						mus[op.Arg].Lock()
					case genUnlock:
						mus[op.Arg].Unlock()
					case genWrite:
						// The accesses instrumented code reports (rt.Load, rt.Store), which
						// Stoller's eq. (4) needs to keep critical sections dependent.
						acc = acc*5 + *rt.Load(&xs[op.Arg], "x")
						xs[op.Arg] = rt.Store(&xs[op.Arg], *rt.Load(&xs[op.Arg], "x")*3+int64(g+1), "x")
					case genSend:
						rt.Send(chans[op.Arg], int64(10*(g+1)+i))
					case genRecv:
						acc = acc*7 + rt.Recv(chans[op.Arg])
					case genAdd:
						acc = acc*11 + rt.AddInt64(&counter, int64(g+1))
					case genLoad:
						acc = acc*13 + rt.LoadInt64(&counter)
					case genRead:
						acc = acc*17 + *rt.Load(&xs[op.Arg], "x")
					case genAfter:
						rt.AfterFunc(time.Duration(op.Arg)*rt.DefaultQuantum, func() { rt.AddInt64(&counter, 100) })
					case genWait:
						rt.Recv(rt.After(time.Duration(op.Arg) * rt.DefaultQuantum))
					}
				}
				run.pcs[g] = len(ops)
				if !timers {
					rt.Declare(bound(g, len(ops)))
				}
				results[g] = rt.Store(&results[g], acc, "results")
			})
		}
		root := rt.Bound{}.Sync(&wg).Atomic(&counter)
		for i := range xs {
			root = root.Reads(&xs[i])
		}
		for i := range results {
			root = root.Reads(&results[i])
		}
		if !timers {
			rt.Declare(root)
		}
		wg.Wait()
		for i := range xs {
			rt.Load(&xs[i], "x")
		}
		for i := range results {
			rt.Load(&results[i], "results")
		}
		run.state = fmt.Sprintf("x=%v n=%d results=%v", xs, rt.LoadInt64(&counter), results)
		if p.Assert {
			h := fnv.New32a()
			h.Write([]byte(run.state))
			heddle.Assert(h.Sum32()%3 != 0, "final state %s", run.state)
		}
	}
}
