package explorer

import (
	"slices"
	"testing"

	"github.com/heddledbg/heddle/rt"
)

// seedRunner records the seed of every sampled run it is asked for.
type seedRunner struct{ seeds []uint64 }

func (r *seedRunner) Run(gd *Guide, _ bool) *rt.Result {
	if gd.Policy != PolicyFirst {
		r.seeds = append(r.seeds, gd.Seed)
	}
	return &rt.Result{Verdict: rt.Verdict{Kind: rt.VerdictOK}}
}

// TestShardSeeds: the shards of a sampling strategy, and the samplers of the portfolio, run
// disjoint seeds, and one exploration's seeds are those of one shard of one.
func TestShardSeeds(t *testing.T) {
	for _, strategy := range []Strategy{Random, PCT} {
		var union []uint64
		for s := range 3 {
			r := &seedRunner{}
			explore(r, Options{Strategy: strategy, MaxRuns: 10, Seed: 100, Shard: s, Shards: 3})
			union = append(union, r.seeds...)
		}
		slices.Sort(union)
		r := &seedRunner{}
		explore(r, Options{Strategy: strategy, MaxRuns: 30, Seed: 100})
		if !slices.Equal(union, r.seeds) {
			t.Errorf("%s: 3 shards of 10 runs ran seeds %v, one exploration of 30 %v", strategy, union, r.seeds)
		}
	}
}
