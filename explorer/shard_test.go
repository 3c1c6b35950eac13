package explorer_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/internal/corpus"
	"github.com/heddledbg/heddle/record"
)

// runsOf explores p with opts and returns the report and the schedule of every complete run,
// read from the leaves of the schedule tree: the picks on the path from the root.
func runsOf(p corpus.Program, opts explorer.Options) (*explorer.Report, []string) {
	nodes := map[int]record.Node{}
	var leaves []record.Node
	opts.OnNode = func(n record.Node) {
		if n.Parent == record.Revisit {
			return
		}
		nodes[n.ID] = n
		if n.Leaf != nil {
			leaves = append(leaves, n)
		}
	}
	opts.Time = p.Time
	opts.Outcomes = true
	r := explorer.Explore(p.Body, opts)
	var runs []string
	for _, l := range leaves {
		var path []string
		for n := l; n.Parent >= 0; n = nodes[n.Parent] {
			path = append(path, n.G+" "+n.Op+" "+n.Obj)
		}
		slices.Reverse(path)
		runs = append(runs, strings.Join(path, " | "))
	}
	return r, runs
}

func bugKeys(r *explorer.Report) []string {
	var ks []string
	for _, b := range r.Bugs {
		ks = append(ks, b.Key)
	}
	slices.Sort(ks)
	return ks
}

// TestShards: n shards of an exhaustive search share its runs, shard 1 split again in two
// parts, as heddle test -shard 1/n -workers 2 splits it. For dfs, which explores every
// interleaving, the shards' complete runs are exactly the unsharded search's, none twice; for
// DPOR, whose backtrack sets depend on the order of the search, the shards' runs are distinct,
// and together they reach every terminal outcome the unsharded search reaches. Either way the
// shards find the same bugs.
func TestShards(t *testing.T) {
	lookup := func(name string) corpus.Program {
		p, ok := corpus.Lookup(name)
		if !ok {
			t.Fatalf("no corpus program %s", name)
		}
		return p
	}
	for _, c := range []struct {
		program  corpus.Program
		strategy explorer.Strategy
		// exact: the union of the shards' runs is the unsharded search's, and every shard
		// has runs of its own.
		exact bool
	}{
		{lookup("Deadlock3"), "dfs", true},
		{lookup("NoEraser"), "dfs", true},
		{corpus.Performance(3, 2), "dfs", true},
		{lookup("Deadlock3"), "dpor", false},
		{corpus.Performance(3, 3), "dpor", false},
		{lookup("BufferIf"), "dpor", false},
		{lookup("BufferNotify"), "stoller", false},
	} {
		t.Run(c.program.Name+"/"+c.strategy.String(), func(t *testing.T) {
			whole, want := runsOf(c.program, explorer.Options{Strategy: c.strategy})
			if !whole.Stats.Complete {
				t.Fatalf("the unsharded search is not complete: %+v", whole.Stats)
			}
			if len(want) != whole.Stats.Runs-whole.Stats.Aborted {
				t.Fatalf("the unsharded search has %d leaves for %d runs, %d aborted", len(want), whole.Stats.Runs, whole.Stats.Aborted)
			}
			slices.Sort(want)
			for _, n := range []int{1, 2, 3, 7} {
				var union, bugs []string
				largest := 0 // runs of the largest share
				outcomes := map[string]bool{}
				var total record.Stats
				total.Complete = true
				var shares []explorer.Options
				for s := range n {
					shares = append(shares, explorer.Options{Shard: s, Shards: n})
				}
				if n > 1 {
					// Shard 1 is split again between two processes.
					shares[1].Parts = 2
					p := shares[1]
					p.Part = 1
					shares = append(shares, p)
				}
				for _, o := range shares {
					o.Strategy = c.strategy
					r, runs := runsOf(c.program, o)
					if !r.Stats.Complete {
						t.Errorf("%d/%d part %d/%d: not complete: %+v", o.Shard, n, o.Part, o.Parts, r.Stats)
					}
					if c.exact && len(runs) == 0 && len(want) >= 4*n {
						t.Errorf("%d/%d part %d/%d: no run of %d", o.Shard, n, o.Part, o.Parts, len(want))
					}
					union = append(union, runs...)
					largest = max(largest, len(runs))
					bugs = append(bugs, bugKeys(r)...)
					for o := range r.Outcomes {
						outcomes[o] = true
					}
					total.Add(&r.Stats)
				}
				slices.Sort(union)
				if d := duplicates(union); len(d) > 0 {
					t.Errorf("%d shards: %d runs made twice, the first %s", n, len(d), d[0])
				}
				if got := total.Runs - total.Aborted - total.Elsewhere; got != len(union) {
					t.Errorf("%d shards: %d complete runs counted, %d leaves", n, got, len(union))
				}
				if c.exact && !slices.Equal(union, want) {
					t.Errorf("%d shards: %d runs, want the unsharded search's %d", n, len(union), len(want))
				}
				if !c.exact && len(union) < len(want) {
					t.Errorf("%d shards: %d runs, fewer than the unsharded search's %d", n, len(union), len(want))
				}
				if got, want := slices.Sorted(maps.Keys(outcomes)), slices.Sorted(maps.Keys(whole.Outcomes)); !slices.Equal(got, want) {
					t.Errorf("%d shards: outcomes\n%s\nwant\n%s", n, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				slices.Sort(bugs)
				if got, want := slices.Compact(bugs), bugKeys(whole); !slices.Equal(got, want) {
					t.Errorf("%d shards: bugs %v, want %v", n, got, want)
				}
				t.Logf("%d shards: %d complete runs (unsharded %d), the largest share %d, %d elsewhere, %d aborted", n, len(union), len(want), largest, total.Elsewhere, total.Aborted)
			}
		})
	}
}

// duplicates returns the elements of a sorted slice that occur more than once.
func duplicates(s []string) []string {
	var d []string
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] && (len(d) == 0 || d[len(d)-1] != s[i]) {
			d = append(d, s[i])
		}
	}
	return d
}
