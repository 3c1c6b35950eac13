package lsp

import (
	"cmp"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/heddledbg/heddle/locktree"
	"github.com/heddledbg/heddle/record"
)

// maxTraceSize bounds the trace files read. Traces of long runs are megabytes; one larger than
// this is not worth holding in an editor's memory.
const maxTraceSize = 256 << 20

// A result is one bug of the latest exploration of a test, with its trace, or one
// atomicity warning of the exploration, which has no trace.
type result struct {
	path    string        // absolute path of the trace file; "" for a warning
	test    string        // the test's name
	kind    string        // the bug kind
	message string        // the bug's message: the exploration's, else the verdict's
	trace   *record.Trace // without its events; nil for a warning
	files   []string      // the files the trace names
	dir     string        // the directory of the test's package when it was explored
	// atomicity is the //heddle:atomic function of an atomicity bug or warning.
	atomicity *record.Atomicity
	// exploration is the exploration file that lists a warning.
	exploration string
	// locks are the lock trees of the exploration, which locate a lock-order inversion: its
	// trace is a run that did not deadlock.
	locks *locktree.Report
}

// resultFile reports whether a file in a result directory is one the server reads. Files
// whose names start with a dot are the temporary files of a write in progress.
func resultFile(name string) bool {
	return !strings.HasPrefix(name, ".") && (record.IsExploration(name) || record.IsTrace(name))
}

// walkResults calls fn for each result file under the directories, in lexical order. A
// directory that does not exist holds no results yet; it is not an error.
func walkResults(dirs []string, fn func(path string, d fs.DirEntry)) {
	for _, root := range dirs {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable or vanished while walking: the next refresh sees it
			}
			if d.IsDir() {
				if path != root && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() && resultFile(d.Name()) {
				fn(path, d)
			}
			return nil
		})
	}
}

// fingerprint summarizes the names, sizes and modification times of the result files under
// dirs, so that a poll can tell cheaply whether anything changed.
func fingerprint(dirs []string) string {
	var b strings.Builder
	walkResults(dirs, func(path string, d fs.DirEntry) {
		fi, err := d.Info()
		if err != nil {
			return
		}
		fmt.Fprintf(&b, "%s\x00%d\x00%d\n", path, fi.Size(), fi.ModTime().UnixNano())
	})
	return b.String()
}

// A loader reads the result files. It keeps what the diagnostics need of each file between
// refreshes, for as long as the file's size and modification time stay the same: a poll that
// finds a new trace reads that trace only, not every exploration of the workspace again.
type loader struct {
	cache map[string]*loaded // by path
	reads int                // files read, for tests
}

// loaded is what the diagnostics need of a result file.
type loaded struct {
	size  int64
	mod   time.Time
	exp   *record.Exploration // without its tree
	trace *record.Trace       // without its decisions, objects and events
	files []string            // the files the trace names
	err   error
}

func newLoader() *loader { return &loader{cache: map[string]*loaded{}} }

// file returns the contents of a result file, from the cache if the file did not change.
// It records the file in seen, the cache of the next refresh.
func (l *loader) file(path string, d fs.DirEntry, seen map[string]*loaded) *loaded {
	fi, err := d.Info()
	if err != nil {
		return &loaded{err: err}
	}
	c := l.cache[path]
	if c == nil || c.size != fi.Size() || !c.mod.Equal(fi.ModTime()) {
		l.reads++
		c = &loaded{size: fi.Size(), mod: fi.ModTime()}
		if record.IsExploration(d.Name()) {
			if c.exp, c.err = readExploration(path); c.exp != nil {
				c.exp.Tree = nil
			}
		} else if c.trace, c.err = readTrace(path); c.trace != nil {
			c.files = tracedFiles(c.trace)
			c.trace.Decisions, c.trace.Objects, c.trace.Events = nil, nil, nil
		}
	}
	seen[path] = c
	return c
}

// results reads the bugs of the latest explorations under dirs. A file that cannot be read
// is skipped and reported to warn.
//
// heddle test rewrites a test's exploration file on every run but leaves trace files of
// earlier runs in place, so when a directory has an exploration file, only the traces its
// bugs name are current. A directory without one (traces copied by hand) counts all of its
// traces.
func (l *loader) results(dirs []string, warn func(string)) []*result {
	type testDir struct {
		exp    fs.DirEntry // the exploration file (record.IsExploration), if any
		traces []string
		ents   map[string]fs.DirEntry
	}
	tests := map[string]*testDir{}
	walkResults(dirs, func(path string, d fs.DirEntry) {
		dir := filepath.Dir(path)
		td := tests[dir]
		if td == nil {
			td = &testDir{ents: map[string]fs.DirEntry{}}
			tests[dir] = td
		}
		if record.IsExploration(d.Name()) {
			// The compressed file, if an earlier version's plain one is still beside it.
			if td.exp == nil || d.Name() == record.ExplorationFile {
				td.exp = d
			}
		} else {
			td.traces = append(td.traces, path)
			td.ents[path] = d
		}
	})
	seen := map[string]*loaded{}
	var out []*result
	for _, dir := range slices.Sorted(maps.Keys(tests)) {
		td := tests[dir]
		var exp *record.Exploration
		if td.exp != nil {
			path := filepath.Join(dir, td.exp.Name())
			if c := l.file(path, td.exp, seen); c.err != nil {
				warn(fmt.Sprintf("heddle: skipping the exploration file: %v", c.err))
			} else {
				exp = c.exp
			}
		}
		out = append(out, l.dir(dir, exp, td.traces, td.ents, seen, warn)...)
		if exp != nil {
			out = append(out, atomicityWarnings(filepath.Join(dir, td.exp.Name()), exp)...)
		}
	}
	l.cache = seen
	return out
}

// dir loads the current traces of one test directory.
func (l *loader) dir(dir string, exp *record.Exploration, traces []string, ents map[string]fs.DirEntry, seen map[string]*loaded, warn func(string)) []*result {
	var bugs map[string]*record.Bug
	if exp != nil {
		bugs = map[string]*record.Bug{}
		for i := range exp.Bugs {
			if t := exp.Bugs[i].Trace; t != "" {
				bugs[filepath.Base(t)] = &exp.Bugs[i]
			}
		}
	}
	var out []*result
	for _, path := range traces {
		base := filepath.Base(path)
		var bug *record.Bug
		if exp != nil {
			if bug = bugs[base]; bug == nil {
				continue // left over from an earlier exploration of the test
			}
		}
		c := l.file(path, ents[path], seen)
		if c.err != nil {
			warn(fmt.Sprintf("heddle: skipping the trace file: %v", c.err))
			continue
		}
		tr := c.trace
		r := &result{path: path, trace: tr, files: c.files, dir: tr.Program.Dir, test: tr.Program.Test,
			message: tr.Verdict.Message, atomicity: tr.Verdict.Atomicity}
		// The kind of a bug is the exploration's, else the file name's (kind-N.trace.json.gz),
		// else the verdict's: a predicted bug (lockorder, lockcycle) has the trace of a run
		// that ended well.
		if kind, _, ok := strings.Cut(base, "-"); ok && kind != "" {
			r.kind = kind
		} else {
			r.kind = tr.Verdict.Kind
		}
		if exp != nil {
			r.kind = bug.Kind
			if bug.Message != "" {
				r.message = bug.Message
			}
			if r.test == "" {
				r.test = exp.Program.Test
			}
			r.locks = exp.LockTrees
		}
		if r.test == "" {
			r.test = filepath.Base(dir)
		}
		out = append(out, r)
	}
	return out
}

// atomicityWarnings returns the atomicity warnings of an exploration: the //heddle:atomic
// functions possibly not atomic. They have no trace; a warning of another kind, or one that
// does not name its function, has no place in the editor.
func atomicityWarnings(path string, exp *record.Exploration) []*result {
	var out []*result
	for _, w := range exp.Warnings {
		if w.Kind != "atomicity" || w.Atomicity == nil {
			continue
		}
		r := &result{exploration: path, kind: w.Kind, message: w.Message, dir: exp.Program.Dir,
			test: cmp.Or(exp.Program.Test, filepath.Base(filepath.Dir(path))), atomicity: w.Atomicity}
		if f := w.Atomicity.Decl.File; filepath.IsAbs(f) {
			r.files = []string{filepath.Clean(f)}
		}
		out = append(out, r)
	}
	return out
}

// tracedFiles returns the absolute paths of the files a trace names, sorted.
func tracedFiles(t *record.Trace) []string {
	seen := map[string]bool{}
	add := func(f string) {
		if filepath.IsAbs(f) {
			seen[filepath.Clean(f)] = true
		}
	}
	for _, g := range t.Goroutines {
		if g.Pos != nil {
			add(g.Pos.File)
		}
	}
	for _, o := range t.Objects {
		if o.Pos != nil {
			add(o.Pos.File)
		}
	}
	for _, e := range t.Events {
		if e.Pos != nil {
			add(e.Pos.File)
		}
	}
	if a := t.Verdict.Atomicity; a != nil {
		add(a.Decl.File)
	}
	for _, g := range t.Verdict.Goroutines {
		if g.Pos != nil {
			add(g.Pos.File)
		}
		for _, f := range g.Stack {
			add(f.File)
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// readTrace reads a trace file with package record's reader, which rejects unknown
// fields and versions.
func readTrace(path string) (*record.Trace, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxTraceSize {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d read", path, fi.Size(), maxTraceSize)
	}
	return record.ReadTrace(path)
}

// readExploration reads an exploration file with package server's reader, which checks the
// tree and the bugs.
func readExploration(path string) (*record.Exploration, error) {
	v, err := record.ReadFile(path)
	if err != nil {
		return nil, err
	}
	exp, ok := v.(*record.Exploration)
	if !ok {
		return nil, fmt.Errorf("%s: not an exploration file", path)
	}
	return exp, nil
}
