package main

import (
	"os"
	"syscall"
)

// redirectStderr makes f the process's file descriptor 2, where the Go runtime writes too.
// Dup3: linux/arm64 has no dup2 system call.
func redirectStderr(f *os.File) { syscall.Dup3(int(f.Fd()), 2, 0) }
