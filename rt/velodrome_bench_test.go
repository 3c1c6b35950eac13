package rt

import (
	"fmt"
	"testing"
)

// turns picks the alternatives in turn, so that the goroutines interleave at every step.
type turns struct{}

func (turns) Choose(p *Point) int { return p.Index % len(p.Alts) }

// BenchmarkTxGraph measures what the transactional happens-before graph costs per step: one
// schedule of three goroutines, each taking items from a collection dominated by the pool's
// lock in two critical sections and counting them under a lock of its own, as annotated
// regions (the replicated workers' pattern, serializable in every run), with and without the
// graph. The regions, the accesses and the lockset check are the same in both.
func BenchmarkTxGraph(b *testing.B) {
	UseAccesses()
	body := func() {
		var pool, items, stats Mutex
		left, count := 600, 0
		var wg WaitGroup
		for range 3 {
			wg.Add(1)
			Go(func() {
				defer wg.Done()
				for range 200 {
					func() {
						AtomicEnter("take", "w.go:1")
						defer AtomicExit()
						pool.Lock()
						defer pool.Unlock()
						items.Lock()
						n := *Load(&left, "w.go:5:1")
						items.Unlock()
						items.Lock()
						left = Store(&left, n-1, "w.go:8:1")
						items.Unlock()
					}()
					func() {
						AtomicEnter("count", "c.go:1")
						defer AtomicExit()
						stats.Lock()
						count = Store(&count, *Load(&count, "c.go:3:1")+1, "c.go:3:1")
						stats.Unlock()
					}()
				}
			})
		}
		wg.Wait()
	}
	for _, off := range []bool{true, false} {
		b.Run(fmt.Sprintf("graph=%v", !off), func(b *testing.B) {
			txOff = off
			defer func() { txOff = false }()
			steps := 0
			for range b.N {
				res := Run(Config{Chooser: turns{}}, body)
				if res.Verdict.Kind != VerdictOK {
					b.Fatalf("%s: %s", res.Verdict.Kind, res.Verdict.Message)
				}
				steps += res.Steps
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
		})
	}
}
