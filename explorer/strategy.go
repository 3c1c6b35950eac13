package explorer

import (
	"fmt"
	"strings"
)

// Strategy names a search strategy: the value of heddle test's -strategy, of a launch
// configuration's "strategy" and of Options.Strategy. Its text form is its name, and
// UnmarshalText accepts only the names in Strategies (the empty name is the portfolio).
type Strategy string

// The strategies; docs/strategies.md describes them.
const (
	Portfolio         Strategy = "portfolio"
	DPOR              Strategy = "dpor"
	DPORSleep         Strategy = "dpor-sleep"
	DFS               Strategy = "dfs"
	ExitBlock         Strategy = "exitblock"
	ExitBlockRW       Strategy = "exitblock-rw"
	ExitBlockDD       Strategy = "exitblock-dd"
	ExitBlockRWDD     Strategy = "exitblock-rwdd"
	ExitBlockRWThesis Strategy = "exitblock-rw-thesis"
	Stoller           Strategy = "stoller"
	StollerPS         Strategy = "stoller-ps"
	Bounded           Strategy = "bounded"
	PCT               Strategy = "pct"
	Random            Strategy = "random"
)

// Strategies lists the strategies Explore accepts, the default first: the one list, which
// the CLI's usage, the debugger's launch configuration and the VS Code extension's settings
// follow (TestStrategyLists).
var Strategies = []Strategy{Portfolio, DPOR, DPORSleep, DFS, ExitBlock, ExitBlockRW, ExitBlockDD, ExitBlockRWDD, ExitBlockRWThesis, Stoller, StollerPS, Bounded, PCT, Random}

// StrategyNames returns the names of Strategies, joined by ", ", for usage texts.
func StrategyNames() string {
	names := make([]string, len(Strategies))
	for i, s := range Strategies {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// ParseStrategy returns the strategy named name; the empty name is the portfolio.
func ParseStrategy(name string) (Strategy, error) {
	if name == "" {
		return Portfolio, nil
	}
	for _, s := range Strategies {
		if string(s) == name {
			return s, nil
		}
	}
	return "", fmt.Errorf("unknown strategy %q (want one of %s)", name, StrategyNames())
}

// String returns the strategy's name.
func (s Strategy) String() string { return string(s) }

// MarshalText returns the strategy's name.
func (s Strategy) MarshalText() ([]byte, error) { return []byte(s), nil }

// UnmarshalText sets s to the strategy named by text, or fails as ParseStrategy does.
func (s *Strategy) UnmarshalText(text []byte) error {
	v, err := ParseStrategy(string(text))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
