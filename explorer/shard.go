package explorer

import "github.com/heddledbg/heddle/rt"

// Sharding splits a systematic search among explorations that share nothing: across CI
// machines (heddle test -shard i/n, Options.Shard), and again among the processes of one
// machine (heddle test -workers, Options.Part); docs/sharding.md.
//
// A run belongs to one shard by the decisions it makes after the fixed prefix, read as a
// number in mixed radix (the pick of each decision a digit, its number of alternatives the
// radix) down to the split node, the first decision at which the product of the radices
// reaches the number of shards n: the run belongs to shard number mod n. Above the split node
// every shard explores every alternative, at the split node only its own. A run that ends
// above the split node belongs to the shard of its whole number. Splitting where the product
// reaches n, rather than at the first decision, gives every shard a share even when the first
// decisions offer fewer than n alternatives.
//
// The processes of one shard split its share the same way, from the decision after the
// shard's split node on: a run's shard does not depend on how many processes each shard has.

// share is one level of a split: share index of of.
type share struct{ index, of int }

// sharesOf returns the levels of the split of an exploration: the shard, then the part of the
// shard, each when there is more than one.
func sharesOf(shard, shards, part, parts int) []share {
	var sh []share
	if shards > 1 {
		sh = append(sh, share{shard, shards})
	}
	if parts > 1 {
		sh = append(sh, share{part, parts})
	}
	return sh
}

// split is the position of a run, or of a prefix of one, in the split of a search: level is
// the level of the split it has not passed yet, span the product of the numbers of
// alternatives of its decisions since the previous level's split node, and rank the number
// its picks make, modulo the level's number of shares.
type split struct{ level, rank, span int }

var splitStart = split{span: 1}

// add extends the position by a decision of alts alternatives that picked alternative i.
func (s split) add(alts, i int, sh []share) split {
	if s.level >= len(sh) {
		return s
	}
	n := sh[s.level].of
	if s.span*alts >= n {
		return split{level: s.level + 1, span: 1} // the split node of the level
	}
	return split{level: s.level, rank: (s.rank*alts + i) % n, span: s.span * alts}
}

// above reports whether a decision at position s is at or above a split node, where every
// share explores every alternative.
func (s split) above(sh []share) bool { return s.level < len(sh) }

// owns reports whether alternative i of a decision of alts alternatives, at position s, keeps
// the run in the share sh.
func (s split) owns(alts, i int, sh []share) bool {
	if s.level >= len(sh) || s.span*alts < sh[s.level].of {
		return true
	}
	return (s.rank*alts+i)%sh[s.level].of == sh[s.level].index
}

// owned returns the first alternative of a decision of alts alternatives, at position s, that
// keeps the run in the share sh, or -1 if none does.
func (s split) owned(alts int, sh []share) int {
	for i := range alts {
		if s.owns(alts, i, sh) {
			return i
		}
	}
	return -1
}

// ends reports whether a run that ended at position s belongs to the share sh: past every
// split node, or, ended above one, if its number is the share's and the levels it did not
// reach are taken by their first share.
func (s split) ends(sh []share) bool {
	if s.level >= len(sh) {
		return true
	}
	if s.rank != sh[s.level].index {
		return false
	}
	for _, l := range sh[s.level+1:] {
		if l.index != 0 {
			return false
		}
	}
	return true
}

// splitOf is the position of a run that made decisions ds after its fixed prefix.
func splitOf(ds []rt.Decision, sh []share) split {
	s := splitStart
	for i := range ds {
		d := &ds[i]
		pick := 0
		for j, a := range d.Alts {
			if a == d.Pick {
				pick = j
				break
			}
		}
		s = s.add(len(d.Alts), pick, sh)
	}
	return s
}

// elsewhere reports whether run res of guide gd belongs to another share: a run that the
// guide stopped at a split node it had no share of, or that ended above a split node with
// another share's number. Such a run is part of the search but not of its share.
func elsewhere(gd *Guide, res *rt.Result) bool {
	if len(gd.sh) == 0 || res.Verdict.Kind == rt.VerdictDiverged || len(res.Decisions) < gd.SplitFrom {
		return false
	}
	s := splitOf(res.Decisions[gd.SplitFrom:], gd.sh)
	// Above a split node no sleep set stops a run: a pruned run there was stopped for its
	// share.
	return s.above(gd.sh) && (res.Verdict.Kind == rt.VerdictPruned || !s.ends(gd.sh))
}
