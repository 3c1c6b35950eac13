package timeline

import (
	"fmt"
	"os"
	"path/filepath"
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
const (
	ExplorationFile = "exploration.json"
	TraceSuffix     = ".trace.json"
)

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
