//go:build unix && !linux

package main

import (
	"os"
	"syscall"
)

// redirectStderr makes f the process's file descriptor 2, where the Go runtime writes too.
func redirectStderr(f *os.File) { syscall.Dup2(int(f.Fd()), 2) }
