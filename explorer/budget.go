package explorer

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseBudget reads a budget as the CLI and the debug adapter take it: a number of runs
// ("1000"), a duration ("30s"), or both ("runs=1000,time=30s").
func ParseBudget(s string) (runs int, d time.Duration, err error) {
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			v = part
			if _, err := strconv.Atoi(v); err == nil {
				k = "runs"
			} else {
				k = "time"
			}
		}
		switch k {
		case "runs":
			if runs, err = strconv.Atoi(v); err != nil || runs < 0 {
				return 0, 0, fmt.Errorf("-budget: %q is not a number of runs", v)
			}
		case "time":
			if d, err = time.ParseDuration(v); err != nil || d < 0 {
				return 0, 0, fmt.Errorf("-budget: %q is not a duration", v)
			}
		default:
			return 0, 0, fmt.Errorf("-budget: unknown budget %q (want runs=N or time=D)", k)
		}
	}
	return runs, d, nil
}

// DefaultBudget is heddle test's -budget by default, and Explore from Here's: at most ten
// minutes for the whole run, and at most a minute for any one test (docs/budget.md).
const DefaultBudget = "total=10m,time=60s"

// TestBudget is heddle test's -budget: per test, a number of runs and a duration; with
// Total, a duration for the whole run, which heddle test divides among the tests, each getting
// no more than Time (when set) in one exploration.
type TestBudget struct {
	Runs  int
	Time  time.Duration
	Total time.Duration
}

// ParseTestBudget reads -budget: what ParseBudget reads (per test), and total=D.
func ParseTestBudget(s string) (TestBudget, error) {
	var b TestBudget
	var rest []string
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || k != "total" {
			rest = append(rest, part)
			continue
		}
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return b, fmt.Errorf("-budget: total %q is not a positive duration", v)
		}
		b.Total = d
	}
	if len(rest) > 0 {
		var err error
		if b.Runs, b.Time, err = ParseBudget(strings.Join(rest, ",")); err != nil {
			return b, err
		}
	}
	return b, nil
}

// Single is b for one search, of one test: its runs, and the least of its time and its total.
func (b TestBudget) Single() (runs int, d time.Duration) {
	d = b.Time
	if b.Total > 0 && (d == 0 || b.Total < d) {
		d = b.Total
	}
	return b.Runs, d
}
