package explorer_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/heddledbg/heddle/explorer"
)

// TestExtensionStrategies checks that the VS Code extension offers exactly the strategies the
// explorer accepts, with the explorer's default as its own.
func TestExtensionStrategies(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "vscode-extension", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Contributes struct {
			Configuration struct {
				Properties map[string]struct {
					Default any      `json:"default"`
					Enum    []string `json:"enum"`
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
	if setting.Default != any(explorer.Strategies[0]) {
		t.Errorf("heddle.strategy defaults to %q; the explorer's default is %q", setting.Default, explorer.Strategies[0])
	}
}
