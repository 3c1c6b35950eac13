//go:build !unix

package worker

import (
	"errors"
	"os"
	"runtime"
)

// redirectStdout fails: without dup2 the standard output of code that writes to the process's
// handle cannot be taken; a failed run's messages are reported as not captured.
func redirectStdout(w *os.File) (int, error) {
	return -1, errors.New("standard output cannot be redirected on " + runtime.GOOS)
}

func restoreStdout(int) {}
