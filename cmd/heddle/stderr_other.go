//go:build !unix

package main

import "os"

// redirectStderr sends what heddle writes to os.Stderr to f; what the Go runtime writes to the
// process's own standard error (a crash, a goroutine dump) still goes there.
func redirectStderr(f *os.File) { os.Stderr = f }
