// Package gotest holds go test's rules that heddle must apply the same way wherever it finds
// tests: the instrumenter, which registers the tests of a package, and the language server,
// which puts a lens over each. The VS Code extension applies the same rule (its
// isTestName), checked against the same cases (testdata/names.json).
package gotest

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsTestName reports whether a function named name is a test by its name, as go test decides:
// Test, or TestXxx where Xxx does not start with a lower-case letter (TestMain is one by its
// name; go test treats it apart). Whether go test runs it depends on its signature too:
// func(*testing.T), no type parameters, no receiver.
func IsTestName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Test")
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !unicode.IsLower(r)
}
