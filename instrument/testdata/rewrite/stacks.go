// Package p tests the rewriting of the functions that read goroutines' stacks.
package p

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

func stacks() string {
	buf := make([]byte, 1024)
	n := runtime.Stack(buf, false)
	debug.PrintStack()
	read := debug.Stack
	return fmt.Sprint(string(buf[:n]), len(read()), debug.SetGCPercent(100))
}
