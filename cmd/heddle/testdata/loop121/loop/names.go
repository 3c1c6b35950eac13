//go:build go1.20
// +build go1.20

package loop

// names is in a file with a // +build line beside its //go:build line, as old modules have
// them: the two must still agree once the instrumented build sets the file's language.
func names() []string { return []string{"disk", "net", "cpu"} }
