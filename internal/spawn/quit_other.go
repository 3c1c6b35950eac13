//go:build !unix

package spawn

import "os/exec"

// Quit returns false: Windows has no signal that makes a Go program print its goroutines.
func Quit(cmd *exec.Cmd) bool { return false }
