package explorer_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/explorer"
	"github.com/heddledbg/heddle/internal/corpus"
)

// TestExtensionStrategies checks that the VS Code extension offers exactly the strategies the
// explorer accepts (decoding the list fails on a name it does not), with the explorer's
// default as its own.
func TestExtensionStrategies(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "vscode-extension", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Contributes struct {
			Configuration struct {
				Properties map[string]struct {
					Default any                 `json:"default"`
					Enum    []explorer.Strategy `json:"enum"`
				} `json:"properties"`
			} `json:"configuration"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatal(err)
	}
	setting, ok := pkg.Contributes.Configuration.Properties["heddle.strategy"]
	if !ok {
		t.Fatal("package.json has no heddle.strategy setting")
	}
	got, want := slices.Sorted(slices.Values(setting.Enum)), slices.Sorted(slices.Values(explorer.Strategies))
	if !slices.Equal(got, want) {
		t.Errorf("heddle.strategy offers %v; the explorer accepts %v", got, want)
	}
	if setting.Default != any(explorer.Strategies[0].String()) {
		t.Errorf("heddle.strategy defaults to %q; the explorer's default is %q", setting.Default, explorer.Strategies[0])
	}
}

// TestParseStrategy checks the one validation of a strategy's name, which the CLI, the
// debugger's launch configuration and JSON decoding (UnmarshalText) share.
func TestParseStrategy(t *testing.T) {
	for _, tc := range []struct {
		name string
		want explorer.Strategy
		err  string
	}{
		{"", explorer.Portfolio, ""},
		{"portfolio", explorer.Portfolio, ""},
		{"dpor", explorer.DPOR, ""},
		{"exitblock-rw-thesis", explorer.ExitBlockRWThesis, ""},
		{"random", explorer.Random, ""},
		{"DPOR", "", `unknown strategy "DPOR" (want one of portfolio, dpor, `},
		{"pct-d1", "", `unknown strategy "pct-d1"`},
		{"dpor ", "", `unknown strategy "dpor "`},
	} {
		got, err := explorer.ParseStrategy(tc.name)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.HasPrefix(err.Error(), tc.err) {
			t.Errorf("ParseStrategy(%q) = %q, %v; want %q, an error starting %q", tc.name, got, err, tc.want, tc.err)
		}
		var s explorer.Strategy
		err = json.Unmarshal([]byte(strconv.Quote(tc.name)), &s)
		if s != tc.want || (err == nil) != (tc.err == "") {
			t.Errorf("json.Unmarshal(%q) = %q, %v; want %q, an error %v", tc.name, s, err, tc.want, tc.err != "")
		}
	}
	for _, s := range explorer.Strategies {
		text, err := s.MarshalText()
		if err != nil || string(text) != s.String() {
			t.Errorf("%q.MarshalText() = %q, %v", s, text, err)
		}
		if got, err := explorer.ParseStrategy(s.String()); got != s || err != nil {
			t.Errorf("ParseStrategy(%q) = %q, %v: not the strategy it names", s, got, err)
		}
	}
}

// TestUnknownStrategy checks that an exploration with an unknown strategy does not start and
// says why, rather than panicking in the process that runs the program.
func TestUnknownStrategy(t *testing.T) {
	rep := explorer.Explore(func() {}, explorer.Options{Strategy: "nonesuch"})
	if rep.Err == nil || !strings.Contains(rep.Err.Error(), `unknown strategy "nonesuch"`) || rep.Stats.Runs != 0 {
		t.Errorf("Explore with strategy nonesuch: err %v after %d runs, want an unknown strategy and no run", rep.Err, rep.Stats.Runs)
	}
}

// TestBoundedBudget checks that preemption bounding stopped by its budget in a deeper bound
// is not complete, although a shallower bound's search was.
func TestBoundedBudget(t *testing.T) {
	p := corpus.Performance(2, 10)
	rep := explorer.Explore(p.Body, explorer.Options{Strategy: explorer.Bounded, Bound: 1000, MaxRuns: 50})
	if rep.Stats.Complete || rep.Stats.Runs > 50 {
		t.Errorf("bounded, 50 runs of %s's 1,939,938: complete=%v after %d runs, want incomplete", p.Name, rep.Stats.Complete, rep.Stats.Runs)
	}
}
