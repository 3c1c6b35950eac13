package suite

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/heddledbg/heddle/record"
)

// shardFlag is the value of -shard: the share i of n of each test's search, from 0.
type shardFlag struct{ index, total int }

func (s *shardFlag) String() string {
	if s == nil || s.total == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.index, s.total)
}

// exploration is the shard as an exploration file records it: nil when the search is whole.
func (s shardFlag) exploration() *record.Shard {
	if s.total <= 1 {
		return nil
	}
	return &record.Shard{Index: s.index, Of: s.total}
}

func (s *shardFlag) Set(v string) error {
	i, n, ok := strings.Cut(v, "/")
	if !ok {
		return fmt.Errorf("%q is not i/n", v)
	}
	idx, err1 := strconv.Atoi(i)
	total, err2 := strconv.Atoi(n)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("%q is not i/n", v)
	}
	return s.check(idx, total, "")
}

// check sets the shard to index of total if they make one, and says what is wrong if not;
// from names where they came from.
func (s *shardFlag) check(index, total int, from string) error {
	switch {
	case total < 1:
		return fmt.Errorf("%s%d shards: want 1 or more", from, total)
	case index < 0 || index >= total:
		return fmt.Errorf("%sshard %d of %d: want 0 to %d (shards count from 0)", from, index, total, total-1)
	}
	s.index, s.total = index, total
	return nil
}

// The environment variables through which CI systems give a job its shard.
const (
	// Bazel's test sharding (the test encyclopedia): the total, the index from 0, and a file
	// that a test runner which supports sharding touches.
	envBazelTotal  = "TEST_TOTAL_SHARDS"
	envBazelIndex  = "TEST_SHARD_INDEX"
	envBazelStatus = "TEST_SHARD_STATUS_FILE"
	// Kubernetes Indexed Jobs give each pod its index from 0; the number of completions is not
	// in the pod's environment, so the job passes it in envShards.
	envJobIndex = "JOB_COMPLETION_INDEX"
	envShards   = "HEDDLE_SHARDS"
)

// resolveShard completes -shard from the CI conventions when the flag is not given: Bazel's
// TEST_TOTAL_SHARDS and TEST_SHARD_INDEX, then a Kubernetes Indexed Job's
// JOB_COMPLETION_INDEX with HEDDLE_SHARDS. Under Bazel it touches TEST_SHARD_STATUS_FILE,
// which tells Bazel that the runner splits the work.
func resolveShard(s *shardFlag, getenv func(string) string) error {
	if s.total > 0 {
		return nil
	}
	if t := getenv(envBazelTotal); t != "" {
		total, err := strconv.Atoi(t)
		if err != nil {
			return fmt.Errorf("%s=%q is not a number", envBazelTotal, t)
		}
		i := getenv(envBazelIndex)
		index, err := strconv.Atoi(i)
		if err != nil {
			return fmt.Errorf("%s=%q is not a number (with %s=%s)", envBazelIndex, i, envBazelTotal, t)
		}
		if err := s.check(index, total, envBazelIndex+", "+envBazelTotal+": "); err != nil {
			return err
		}
		if p := getenv(envBazelStatus); p != "" {
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE, 0o644)
			if err != nil {
				return fmt.Errorf("%s: %w", envBazelStatus, err)
			}
			f.Close()
		}
		return nil
	}
	if i := getenv(envJobIndex); i != "" {
		index, err := strconv.Atoi(i)
		if err != nil {
			return fmt.Errorf("%s=%q is not a number", envJobIndex, i)
		}
		t := getenv(envShards)
		if t == "" {
			return fmt.Errorf("%s=%s without %s: set it to the job's completions (or give -shard)", envJobIndex, i, envShards)
		}
		total, err := strconv.Atoi(t)
		if err != nil {
			return fmt.Errorf("%s=%q is not a number", envShards, t)
		}
		return s.check(index, total, envJobIndex+", "+envShards+": ")
	}
	return nil
}
