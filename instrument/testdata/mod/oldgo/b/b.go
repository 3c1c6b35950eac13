// Package b is required by example.com/a only.
package b

// Name names the module.
func Name() string { return "b" }
