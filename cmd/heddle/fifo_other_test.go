//go:build !unix

package main

import "errors"

// nonblock opens a named pipe without waiting for the other end: no named pipes here.
const nonblock = 0

// mkfifo makes a named pipe at path: not on this system.
func mkfifo(path string) error { return errors.New("no named pipes on this system") }
