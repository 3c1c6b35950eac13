package explorer

import "github.com/heddledbg/heddle/rt"

// Sharding splits a systematic search among explorations that share nothing, in one machine
// (heddle test -parallel) or across CI machines (heddle test -shard i/n); docs/sharding.md.
//
// A run belongs to one shard, by the decisions it makes after the fixed prefix: read as a
// number in mixed radix (the pick of each decision a digit, its number of alternatives the
// radix), down to the split node, the first decision at which the product of the radices
// reaches the number of shards n; the run belongs to shard number mod n. Above the split node
// every shard explores every alternative, at the split node only its own. A run that ends
// above the split node belongs to the shard of its whole number. Splitting where the product
// reaches n, rather than at the first decision, gives every shard a share even when the first
// decisions offer fewer than n alternatives.

// split is the position of a run, or of a prefix of one, in the split of a search into shards:
// span is the product of the numbers of alternatives of its decisions (at most the number of
// shards) and rank the number its picks make, modulo the number of shards.
type split struct{ rank, span int }

// add extends the position by a decision of alts alternatives that picked alternative i.
func (s split) add(alts, i, shards int) split {
	if s.span >= shards {
		return s
	}
	return split{rank: (s.rank*alts + i) % shards, span: min(s.span*alts, shards)}
}

// splitOf is the position of a run that made decisions ds after its fixed prefix.
func splitOf(ds []rt.Decision, shards int) split {
	s := split{span: 1}
	for i := range ds {
		d := &ds[i]
		pick := 0
		for j, a := range d.Alts {
			if a == d.Pick {
				pick = j
				break
			}
		}
		s = s.add(len(d.Alts), pick, shards)
	}
	return s
}

// owned returns the first alternative of a decision of alts alternatives, at position s, that
// keeps the run in shard, or -1 if none does. Any alternative does above the split node.
func (s split) owned(alts, shard, shards int) int {
	if s.span >= shards || s.span*alts < shards {
		return 0
	}
	i := ((shard-s.rank*alts)%shards + shards) % shards
	if i >= alts {
		return -1
	}
	return i
}

// owns reports whether alternative i of a decision of alts alternatives, at position s, keeps
// the run in shard.
func (s split) owns(alts, i, shard, shards int) bool {
	return s.span >= shards || s.span*alts < shards || (s.rank*alts+i)%shards == shard
}

// elsewhere reports whether run res of guide gd belongs to another shard: a run that the
// guide stopped at a split node it had no share of, or that ended above the split node with
// another shard's number. Such a run is part of the search but not of its share.
func elsewhere(gd *Guide, res *rt.Result) bool {
	if gd.Shards <= 1 || res.Verdict.Kind == rt.VerdictDiverged || len(res.Decisions) < gd.SplitFrom {
		return false
	}
	s := splitOf(res.Decisions[gd.SplitFrom:], gd.Shards)
	// Above the split node no sleep set stops a run: a pruned run there was stopped for its
	// shard.
	return s.span < gd.Shards && (res.Verdict.Kind == rt.VerdictPruned || s.rank != gd.Shard)
}
