package suite

import (
	"os"
	"path/filepath"
	"testing"
)

// TestResolveShard: -shard wins over the CI conventions, Bazel's over Kubernetes', and every
// bad value is an error that names where it came from.
func TestResolveShard(t *testing.T) {
	status := filepath.Join(t.TempDir(), "status")
	for _, c := range []struct {
		name string
		flag string
		env  map[string]string
		want string // the shard, or the error
	}{
		{"none", "", nil, ""},
		{"flag", "1/3", nil, "1/3"},
		{"flag over bazel", "1/3", map[string]string{envBazelTotal: "4", envBazelIndex: "2"}, "1/3"},
		{"bazel", "", map[string]string{envBazelTotal: "4", envBazelIndex: "2", envBazelStatus: status}, "2/4"},
		{"bazel over job", "", map[string]string{envBazelTotal: "4", envBazelIndex: "2", envJobIndex: "1", envShards: "5"}, "2/4"},
		{"job", "", map[string]string{envJobIndex: "1", envShards: "5"}, "1/5"},
		{"one shard", "0/1", nil, "0/1"},
		{"flag out of range", "3/3", nil, `error: shard 3 of 3: want 0 to 2 (shards count from 0)`},
		{"flag negative", "-1/3", nil, `error: shard -1 of 3: want 0 to 2 (shards count from 0)`},
		{"flag no shards", "0/0", nil, `error: 0 shards: want 1 or more`},
		{"flag not i/n", "2", nil, `error: "2" is not i/n`},
		{"flag not numbers", "a/b", nil, `error: "a/b" is not i/n`},
		{"bazel index", "", map[string]string{envBazelTotal: "4", envBazelIndex: "4"}, `error: TEST_SHARD_INDEX, TEST_TOTAL_SHARDS: shard 4 of 4: want 0 to 3 (shards count from 0)`},
		{"bazel total", "", map[string]string{envBazelTotal: "x"}, `error: TEST_TOTAL_SHARDS="x" is not a number`},
		{"bazel no index", "", map[string]string{envBazelTotal: "2"}, `error: TEST_SHARD_INDEX="" is not a number (with TEST_TOTAL_SHARDS=2)`},
		{"bazel status", "", map[string]string{envBazelTotal: "2", envBazelIndex: "0", envBazelStatus: "/nonexistent/dir/status"}, `error: TEST_SHARD_STATUS_FILE: open /nonexistent/dir/status: no such file or directory`},
		{"job without total", "", map[string]string{envJobIndex: "1"}, `error: JOB_COMPLETION_INDEX=1 without HEDDLE_SHARDS: set it to the job's completions (or give -shard)`},
		{"job total", "", map[string]string{envJobIndex: "1", envShards: "many"}, `error: HEDDLE_SHARDS="many" is not a number`},
		{"job index", "", map[string]string{envJobIndex: "x", envShards: "3"}, `error: JOB_COMPLETION_INDEX="x" is not a number`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var s shardFlag
			var err error
			if c.flag != "" {
				err = s.Set(c.flag)
			}
			if err == nil {
				err = resolveShard(&s, func(k string) string { return c.env[k] })
			}
			got := s.String()
			if err != nil {
				got = "error: " + err.Error()
			}
			if got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
			if c.env[envBazelStatus] == status {
				if _, err := os.Stat(status); err != nil {
					t.Errorf("the status file: %v", err)
				}
			}
		})
	}
}
