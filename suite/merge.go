package suite

import (
	"cmp"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/heddledbg/heddle/record"
	"github.com/heddledbg/heddle/wire"
)

// shardResult is one shard's exploration of a test, with the file it was read from.
type shardResult struct {
	path string
	e    *record.Exploration
}

// mergedTest is the combination of the shards' explorations of one test.
type mergedTest struct {
	e       record.Exploration
	traces  []*record.Trace // the trace of each bug, or nil
	shards  []shardResult
	missing []int // the shards not given
}

// Merge combines the shards' exploration files that paths name or contain (heddle test
// -shard's results) into one exploration per test under out, and prints the merged tests to
// stdout as heddle test prints its tests (its notes to stderr), with -v (verbose) or -json (jsonOut). Nothing is written
// unless every file reads. It returns heddle's exit code, or an error that says why the files
// do not merge, after which nothing more is written or printed.
func Merge(stdout, stderr io.Writer, paths []string, out string, verbose, jsonOut bool) (int, error) {
	tests, err := readShards(paths)
	if err != nil {
		return ExitUsage, err
	}
	var merged []*mergedTest
	for _, rs := range tests {
		m, err := mergeShards(rs)
		if err != nil {
			return ExitUsage, err
		}
		merged = append(merged, m)
	}
	rep := newReporter(Flags{verbose: verbose, jsonOut: jsonOut, Stdout: stdout, Stderr: stderr})
	code, incomplete := ExitOK, false
	var pkgElapsed time.Duration
	pkgFailed := false
	for i, m := range merged {
		if err := writeMerged(out, m); err != nil {
			return ExitUsage, err
		}
		if reportMerged(rep, out, m).verdict == verdictBug {
			code, pkgFailed = ExitBug, true
		}
		incomplete = incomplete || len(m.missing) > 0
		pkgElapsed += m.e.Stats.Elapsed
		if pkg := m.e.Program.Package; i == len(merged)-1 || merged[i+1].e.Program.Package != pkg {
			status := ""
			if pkgFailed {
				status = pkgFail
			}
			rep.packageDone(pkg, status, pkgElapsed)
			pkgElapsed, pkgFailed = 0, false
		}
	}
	rep.finish()
	if incomplete && code == ExitOK {
		code = ExitUsage
	}
	return code, nil
}

// reportMerged reports a merged test as heddle test reports a test it explored, and returns
// its outcome. A shard that is missing is said on standard error too.
func reportMerged(rep *reporter, out string, m *mergedTest) testOutcome {
	e := &m.e
	pkg, test := e.Program.Package, e.Program.Test
	rep.begin(pkg, test)
	var missing []string
	for _, i := range m.missing {
		missing = append(missing, fmt.Sprintf("%d/%d", i, m.shards[0].e.Shard.Of))
	}
	o := searched(len(e.Bugs), e.Stats.Cut)
	if len(missing) > 0 {
		o.search = "search incomplete, missing shard " + strings.Join(missing, ", ")
		fmt.Fprintf(rep.errw, "heddle merge: %s %s: missing shard %s\n", pkg, test, strings.Join(missing, ", "))
	}
	if e.Unexplorable != "" && len(e.Bugs) == 0 {
		o = testOutcome{verdict: verdictUnexplorable, reason: e.Unexplorable}
	}
	o.subtests = subtestResults(test, e.Subtests, e.Skips, failedIn(m.traces))
	dir := record.TestDir(out, pkg, test)
	var saved []savedBug
	for j, b := range e.Bugs {
		sb := savedBug{Bug: &wire.Bug{Kind: b.Kind, Message: b.Message, Key: b.Key, Hits: b.Hits, Preemptions: b.Preemptions, Trace: m.traces[j]}}
		if b.Trace != "" {
			sb.Path = filepath.Join(dir, b.Trace)
		}
		saved = append(saved, sb)
	}
	rep.bugs(pkg, test, saved)
	var ws []*record.Warning
	for j := range e.Warnings {
		ws = append(ws, &e.Warnings[j])
	}
	rep.warnings(pkg, test, ws)
	if rep.verbose() {
		rep.note(pkg, test, "merged into "+filepath.Join(dir, record.ExplorationFile))
	}
	// The test's time is its longest shard's, as the merged statistics have it.
	rep.f.strategy = e.Strategy + ", " + plural(len(m.shards), "shard") + " merged"
	stats := e.Stats
	return rep.verdict(pkg, test, &stats, time.Now().Add(-stats.Elapsed), o)
}

// readShards reads the shards' exploration files that the arguments name or contain, and
// groups them by test, in the order of package and test. An explicit file must be a shard's;
// in a directory, the explorations that are not a shard's (earlier merged results) are left
// alone.
func readShards(args []string) ([][]shardResult, error) {
	rd := shardReader{byTest: map[record.Program][]shardResult{}, seen: map[string]bool{}}
	for _, a := range args {
		if err := rd.addArg(a); err != nil {
			return nil, err
		}
	}
	if len(rd.byTest) == 0 {
		return nil, fmt.Errorf("no shard's exploration in %s", strings.Join(args, " "))
	}
	keys := slices.SortedFunc(maps.Keys(rd.byTest), func(a, b record.Program) int {
		return cmp.Or(strings.Compare(a.Package, b.Package), strings.Compare(a.Test, b.Test))
	})
	var out [][]shardResult
	for _, k := range keys {
		rs := rd.byTest[k]
		slices.SortStableFunc(rs, func(a, b shardResult) int { return a.e.Shard.Index - b.e.Shard.Index })
		out = append(out, rs)
	}
	return out, nil
}

// shardReader reads shards' exploration files, each once, by test.
type shardReader struct {
	byTest map[record.Program][]shardResult
	seen   map[string]bool // the files read, by absolute path
}

// addArg reads the file that an argument names, or the exploration files in the directory it
// names, of which there must be one.
func (rd *shardReader) addArg(a string) error {
	fi, err := os.Stat(a)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return rd.add(a, true)
	}
	found := 0
	err = filepath.WalkDir(a, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && record.IsExploration(d.Name()) {
			if err := rd.add(path, false); err != nil {
				return err
			}
			found++
		}
		return nil
	})
	if err == nil && found == 0 {
		err = fmt.Errorf("%s: no %s (or %s) in it", a, record.ExplorationFile, record.PlainExplorationFile)
	}
	return err
}

// add reads an exploration file, explicit if an argument named it.
func (rd *shardReader) add(path string, explicit bool) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if rd.seen[abs] {
		return nil
	}
	rd.seen[abs] = true
	v, err := record.ReadFile(path)
	if err != nil {
		return err
	}
	e, ok := v.(*record.Exploration)
	switch {
	case !ok:
		return fmt.Errorf("%s: not an exploration file", path)
	case e.Shard == nil && explicit:
		return fmt.Errorf("%s: not a shard's exploration (heddle test -shard writes those)", path)
	case e.Shard == nil:
		return nil
	}
	k := record.Program{Package: e.Program.Package, Test: e.Program.Test}
	rd.byTest[k] = append(rd.byTest[k], shardResult{path: path, e: e})
	return nil
}

// mergeShards combines the shards' explorations of one test, sorted by shard, and reads the
// traces of their bugs.
func mergeShards(rs []shardResult) (*mergedTest, error) {
	first := rs[0]
	m := &mergedTest{shards: rs}
	e := &m.e
	*e = record.Exploration{Heddle: "exploration", Version: record.Version, Program: first.e.Program,
		Strategy: first.e.Strategy, Tree: []record.Node{}, Bugs: []record.Bug{}}
	e.Stats.Complete = true
	have := make([]bool, first.e.Shard.Of)
	byKey := map[string]int{} // the merged bugs' indexes, by key
	var trees [][]record.Node
	var warnings []*record.Warning
	for j, r := range rs {
		if err := checkShard(rs, j, have); err != nil {
			return nil, err
		}
		have[r.e.Shard.Index] = true
		e.Stats.Add(&r.e.Stats)
		e.Skipped = e.Skipped || r.e.Skipped
		e.Skips = record.AddSkips(e.Skips, r.e.Skips)
		e.Subtests = record.AddSubtests(e.Subtests, r.e.Subtests)
		e.Unexplorable = cmp.Or(e.Unexplorable, r.e.Unexplorable)
		if e.LockTrees == nil {
			e.LockTrees = r.e.LockTrees
		}
		for i := range r.e.Warnings {
			warnings = record.MergeWarnings(warnings, []*record.Warning{&r.e.Warnings[i]})
		}
		ids, err := m.addBugs(r, byKey)
		if err != nil {
			return nil, err
		}
		trees = append(trees, relabelLeaves(r.e.Tree, ids, byKey))
	}
	m.finish(have, warnings, trees)
	return m, nil
}

// checkShard says what is wrong if shard j does not belong with the shards before it: a
// shard of another split, of another search, or given twice.
func checkShard(rs []shardResult, j int, have []bool) error {
	first, r := rs[0], rs[j]
	switch s := r.e.Shard; {
	case s.Of != first.e.Shard.Of:
		return fmt.Errorf("%s is shard %s, %s is shard %s: not the same split", first.path, first.e.Shard, r.path, s)
	case r.e.Strategy != first.e.Strategy:
		return fmt.Errorf("%s explored with %s, %s with %s: not the same search", first.path, first.e.Strategy, r.path, r.e.Strategy)
	case have[s.Index]:
		return fmt.Errorf("shard %s of %s %s twice: %s and %s", s, first.e.Program.Package, first.e.Program.Test, rs[j-1].path, r.path)
	}
	return nil
}

// addBugs adds the bugs of a shard, the same bug (by key) once, with its simplest schedule,
// and reads their traces. It returns the merged bugs' indexes by the shard's bug ids.
func (m *mergedTest) addBugs(r shardResult, byKey map[string]int) (map[int]int, error) {
	e := &m.e
	ids := map[int]int{}
	for _, b := range r.e.Bugs {
		key := b.Key
		if key == "" {
			key = b.Kind + "|" + b.Message
		}
		tr, err := readBugTrace(r, b)
		if err != nil {
			return nil, err
		}
		i, ok := byKey[key]
		if !ok {
			i = len(e.Bugs)
			byKey[key] = i
			b.Key = key
			e.Bugs = append(e.Bugs, b)
			m.traces = append(m.traces, tr)
		} else {
			old := &e.Bugs[i]
			hits := old.Hits + b.Hits
			if record.TraceSimplicity(b.Preemptions, tr).Simpler(record.TraceSimplicity(old.Preemptions, m.traces[i])) {
				// The simpler schedule of the same bug.
				b.Key = key
				*old, m.traces[i] = b, tr
			}
			old.Hits = hits
		}
		ids[b.ID] = i
	}
	return ids, nil
}

// readBugTrace reads the trace of a shard's bug, or returns nil if it has none.
func readBugTrace(r shardResult, b record.Bug) (*record.Trace, error) {
	if b.Trace == "" {
		return nil, nil
	}
	p := filepath.Join(filepath.Dir(r.path), b.Trace)
	v, err := record.ReadFile(p)
	if err != nil {
		return nil, err
	}
	tr, ok := v.(*record.Trace)
	if !ok {
		return nil, fmt.Errorf("%s: bug %d's trace %s is not a trace file", r.path, b.ID, p)
	}
	return tr, nil
}

// relabelLeaves is a copy of a shard's tree whose leaves name the merged bugs: by the shard's
// bug ids, or by their keys.
func relabelLeaves(shardTree []record.Node, ids map[int]int, byKey map[string]int) []record.Node {
	tree := slices.Clone(shardTree)
	for k := range tree {
		l := tree[k].Leaf
		if l == nil {
			continue
		}
		c := *l
		if c.Bug != nil {
			if i, ok := ids[*c.Bug]; ok {
				c.Bug = &i
			}
		} else if i, ok := byKey[c.Key]; ok && c.Key != "" {
			c.Bug = &i
		}
		tree[k].Leaf = &c
	}
	return tree
}

// finish completes a merged exploration: the shards missing, the warnings, the bugs numbered,
// and one tree of the shards' trees.
func (m *mergedTest) finish(have []bool, warnings []*record.Warning, trees [][]record.Node) {
	e := &m.e
	for i, ok := range have {
		if !ok {
			m.missing = append(m.missing, i)
		}
	}
	if len(m.missing) > 0 {
		e.Stats.Complete = false
	}
	for _, w := range warnings {
		e.Warnings = append(e.Warnings, *w)
	}
	e.Stats.Bugs = len(e.Bugs)
	for i := range e.Bugs {
		e.Bugs[i].ID = i
	}
	e.Tree = record.MergeTrees(trees...)
	if e.Tree == nil {
		e.Tree = []record.Node{}
	}
	// A test that skipped itself in some shard is skipped only if no shard found a bug.
	if len(e.Bugs) > 0 {
		e.Skipped = false
	}
}

// writeMerged writes a merged exploration and its bugs' traces, renumbered, to the test's
// directory under out.
func writeMerged(out string, m *mergedTest) error {
	e := &m.e
	dir := record.TestDir(out, e.Program.Package, e.Program.Test)
	for i := range e.Bugs {
		b := &e.Bugs[i]
		if m.traces[i] == nil {
			b.Trace, b.Replay = "", ""
			continue
		}
		p := record.BugFile(dir, "", b.Kind, i+1)
		if err := record.WriteFile(p, m.traces[i]); err != nil {
			return err
		}
		b.Trace, b.Replay = filepath.Base(p), "heddle replay "+p
	}
	return writeExplorationFile(filepath.Join(dir, record.ExplorationFile), e)
}
