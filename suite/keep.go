package suite

import (
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/heddledbg/heddle/record"
)

// The default bounds of the results heddle test keeps: a CI job that keeps .heddle as an
// artifact, run after run, must not see it grow without bound.
const (
	defaultKeepFiles    = 20
	defaultKeepBytes    = 10 << 20
	defaultKeepOutBytes = 200 << 20
)

// byteSize is a flag's number of bytes, written as 10MB, 512KB, 1GB or a number of bytes;
// 0 is no bound.
type byteSize int64

func (b *byteSize) String() string {
	switch n := int64(*b); {
	case n != 0 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGB", n>>30)
	case n != 0 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMB", n>>20)
	case n != 0 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKB", n>>10)
	default:
		return strconv.FormatInt(n, 10)
	}
}

func (b *byteSize) Set(s string) error {
	num, unit := strings.TrimSpace(s), int64(1)
	for _, u := range []struct {
		suffix string
		n      int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"B", 1}} {
		if n, ok := strings.CutSuffix(strings.ToUpper(num), u.suffix); ok {
			num, unit = n, u.n
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("%q: want a size such as 10MB, 512KB or a number of bytes, 0 for no bound", s)
	}
	*b = byteSize(n * unit)
	return nil
}

// keptFile is a file of the results directory with what decides whether it is kept.
type keptFile struct {
	path string
	size int64
	rank int // the files this exploration wrote, in the order they are kept: 0 first
	mod  int64
}

// current is a file an exploration wrote, ranked for keeping: the exploration first, then the
// bugs' traces from the simplest (record.Simplicity), then the other files.
type current struct {
	path       string
	simplicity record.Simplicity // of a trace's schedule
	trace      bool
}

// keepTest bounds a test's results directory to maxFiles files and maxBytes bytes (0: no
// bound): it keeps the files the latest exploration wrote (its exploration file always, then
// the traces of its bugs, simplest first), then the newest of the others, and removes the
// rest. It returns the files of the latest exploration that it removed, which the bounds did
// not leave room for.
func keepTest(dir string, wrote []current, maxFiles int, maxBytes int64) (dropped []string, err error) {
	if maxFiles <= 0 && maxBytes <= 0 {
		return nil, nil
	}
	files, err := rankFiles(dir, wrote)
	if err != nil {
		return nil, err
	}
	var n int
	var size int64
	for i, f := range files {
		fits := (maxFiles <= 0 || n+1 <= maxFiles) && (maxBytes <= 0 || size+f.size <= maxBytes)
		if fits || i == 0 && record.IsExploration(f.path) {
			n, size = n+1, size+f.size
			continue
		}
		if err := os.Remove(f.path); err != nil && !os.IsNotExist(err) {
			return dropped, err
		}
		if f.rank < len(wrote) {
			dropped = append(dropped, f.path)
		}
	}
	return dropped, nil
}

// rankFiles lists the files of a test's results directory in the order they are kept: the
// files the latest exploration wrote (its exploration file, then the traces of its bugs,
// simplest first, then the others), then the newest of the others.
func rankFiles(dir string, wrote []current) ([]keptFile, error) {
	slices.SortStableFunc(wrote, func(a, b current) int {
		return cmp.Or(cmp.Compare(a.kind(), b.kind()), a.simplicity.Compare(b.simplicity))
	})
	rank := map[string]int{}
	for i, c := range wrote {
		rank[filepath.Clean(c.path)] = i
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []keptFile
	for _, e := range ents {
		// A name that starts with a dot is a write in progress (record.WriteFile's).
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		p := filepath.Join(dir, e.Name())
		r, ok := rank[filepath.Clean(p)]
		if !ok {
			r = len(wrote)
		}
		files = append(files, keptFile{path: p, size: fi.Size(), rank: r, mod: fi.ModTime().UnixNano()})
	}
	slices.SortStableFunc(files, func(a, b keptFile) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), -cmp.Compare(a.mod, b.mod), strings.Compare(a.path, b.path))
	})
	return files, nil
}

// kind orders the kinds of files an exploration wrote for keeping: its exploration file, its
// bugs' traces, the others.
func (c current) kind() int {
	switch {
	case record.IsExploration(c.path):
		return 0
	case c.trace:
		return 1
	}
	return 2
}

// keepOut bounds the results directory out to maxBytes bytes (0: no bound): it removes the
// oldest files that this run did not write, and the directories they leave empty, until it
// is under the bound. It returns how many files it removed and their bytes.
func keepOut(out string, wrote map[string]bool, maxBytes int64) (removed int, freed int64, err error) {
	if maxBytes <= 0 {
		return 0, 0, nil
	}
	var files []keptFile
	var total int64
	err = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		total += fi.Size()
		if !wrote[filepath.Clean(p)] {
			files = append(files, keptFile{path: p, size: fi.Size(), mod: fi.ModTime().UnixNano()})
		}
		return nil
	})
	if err != nil || total <= maxBytes {
		return 0, 0, err
	}
	slices.SortFunc(files, func(a, b keptFile) int { return cmp.Or(cmp.Compare(a.mod, b.mod), strings.Compare(a.path, b.path)) })
	for _, f := range files {
		if total <= maxBytes {
			break
		}
		if err := os.Remove(f.path); err != nil && !os.IsNotExist(err) {
			return removed, freed, err
		}
		removed, freed, total = removed+1, freed+f.size, total-f.size
		// The directories the file leaves empty, up to out.
		for d := filepath.Dir(f.path); d != filepath.Clean(out) && strings.HasPrefix(d, filepath.Clean(out)); d = filepath.Dir(d) {
			if os.Remove(d) != nil {
				break
			}
		}
	}
	return removed, freed, nil
}
