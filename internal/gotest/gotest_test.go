package gotest

import (
	"encoding/json"
	"os"
	"testing"
)

// nameCase is a case of testdata/names.json, which the VS Code extension's tests check its own
// predicate against too.
type nameCase struct {
	Name string `json:"name"`
	Test bool   `json:"test"`
	Why  string `json:"why"`
}

func TestIsTestName(t *testing.T) {
	data, err := os.ReadFile("testdata/names.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []nameCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("testdata/names.json has no cases")
	}
	for _, c := range cases {
		if got := IsTestName(c.Name); got != c.Test {
			t.Errorf("IsTestName(%q) = %v, want %v (%s)", c.Name, got, c.Test, c.Why)
		}
	}
}
