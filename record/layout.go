package record

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The layout of heddle's results: under a results directory (ResultDir by default), each
// test's files are in <package import path>/<Test>: its exploration (ExplorationFile) and a
// trace per bug (BugFile). A shard's results are in a results directory of their own under it
// (ShardDir). heddle test writes it, heddle merge combines the shards' results into it, the
// debug adapter adds the bugs that an exploration from a breakpoint finds, and the language
// server reads it.

// ResultDir is the results directory, relative to where heddle test runs or, for the debug
// adapter, to the package's module root.
const ResultDir = ".heddle"

// ShardDir is the results directory of shard index of n under the results directory out:
// a shard's results stay apart from the others' and from the merged results that heddle merge
// writes to out, even when CI collects every shard's results into one directory.
func ShardDir(out string, index, n int) string {
	return filepath.Join(out, fmt.Sprintf("shard-%d-of-%d", index, n))
}

// ExplorationFile and TraceSuffix name a test's exploration and its traces in its directory.
// Both are compressed (gzip): a trace holds every step of its run, an exploration its schedule
// tree, and their JSON compresses tenfold or more. PlainExplorationFile and PlainTraceSuffix
// name the uncompressed files of earlier versions, and of heddle replay -o; every reader reads
// both (ReadFile, IsExploration, IsTrace).
const (
	ExplorationFile      = "exploration.json.gz"
	PlainExplorationFile = "exploration.json"
	TraceSuffix          = ".trace.json.gz"
	PlainTraceSuffix     = ".trace.json"
)

// IsExploration reports whether a file's name is a test's exploration's, compressed or not.
func IsExploration(name string) bool {
	name = filepath.Base(name)
	return name == ExplorationFile || name == PlainExplorationFile
}

// IsTrace reports whether a file's name is a trace's, compressed or not.
func IsTrace(name string) bool {
	return strings.HasSuffix(name, TraceSuffix) || strings.HasSuffix(name, PlainTraceSuffix)
}

// TraceName is a trace file's name without its suffix, compressed or not: deadlock-1.
func TraceName(name string) string {
	name = filepath.Base(name)
	if n, ok := strings.CutSuffix(name, TraceSuffix); ok {
		return n
	}
	return strings.TrimSuffix(name, PlainTraceSuffix)
}

// TestDir is the directory of the results of test in package pkg, under the results
// directory out.
func TestDir(out, pkg, test string) string {
	return filepath.Join(out, filepath.FromSlash(pkg), test)
}

// BugFile is the trace file of the n-th bug of kind in a test's directory; prefix tells apart
// the files of other writers ("explore-" for the debug adapter's).
func BugFile(dir, prefix, kind string, n int) string {
	return filepath.Join(dir, fmt.Sprintf("%s%s-%d%s", prefix, kind, n, TraceSuffix))
}

// ModuleResultDir is the results directory of the module that contains directory dir: where
// heddle test writes when run at the module's root.
func ModuleResultDir(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, ResultDir)
		}
		up := filepath.Dir(d)
		if up == d {
			return filepath.Join(dir, ResultDir)
		}
		d = up
	}
}
