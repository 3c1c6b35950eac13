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
