// Package a requires example.com/b.
package a

import "example.com/b"

// Hello says hello through b.
func Hello() string { return "hello from " + b.Name() }
