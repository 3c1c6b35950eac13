package suite

import (
	"reflect"
	"testing"

	"github.com/heddledbg/heddle/record"
)

func TestSubtestResults(t *testing.T) {
	for _, tc := range []struct {
		name     string
		started  []string
		skips    []record.Skip
		failedIn []string
		want     []subtestResult
	}{
		{
			name:     "passed, skipped and a failure nested two deep, which fails its parent",
			started:  []string{"TestX/a", "TestX/b", "TestX/b/c", "TestX/d"},
			skips:    []record.Skip{{Test: "TestX/d", Output: "x_test.go:9: no network"}},
			failedIn: []string{"TestX/b/c"},
			want: []subtestResult{
				{test: "TestX/a", status: "PASS", depth: 1},
				{test: "TestX/b", status: "FAIL", depth: 1},
				{test: "TestX/b/c", status: "FAIL", depth: 2},
				{test: "TestX/d", status: "SKIP", depth: 1, output: "x_test.go:9: no network"},
			},
		},
		{
			name:     "a failure in a run wins over a skip in another",
			started:  []string{"TestX/a"},
			skips:    []record.Skip{{Test: "TestX/a"}},
			failedIn: []string{"TestX/a"},
			want:     []subtestResult{{test: "TestX/a", status: "FAIL", depth: 1}},
		},
		{
			name:     "a name that only begins like another subtest's is not its child",
			started:  []string{"TestX/b", "TestX/bc"},
			failedIn: []string{"TestX/bc"},
			want:     []subtestResult{{test: "TestX/b", status: "PASS", depth: 1}, {test: "TestX/bc", status: "FAIL", depth: 1}},
		},
		{
			name:  "an exploration file from before subtests were recorded: its skips",
			skips: []record.Skip{{Test: "TestX/s", Output: "why"}},
			want:  []subtestResult{{test: "TestX/s", status: "SKIP", depth: 1, output: "why"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			started := append(make([]string, 0, len(tc.started)+4), tc.started...)
			got := subtestResults("TestX", started, tc.skips, tc.failedIn)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
			if started[:cap(started)][len(started)] != "" {
				t.Errorf("subtestResults wrote into the caller's array: %q", started[:cap(started)])
			}
		})
	}
}
