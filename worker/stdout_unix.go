//go:build unix

package worker

import (
	"os"
	"syscall"
)

// redirectStdout makes w the process's file descriptor 1, so that what the test prints by any
// means goes to w, and returns a descriptor of the former standard output.
func redirectStdout(w *os.File) (saved int, err error) {
	if saved, err = syscall.Dup(1); err != nil {
		return -1, err
	}
	if err := dup2(int(w.Fd()), 1); err != nil {
		syscall.Close(saved)
		return -1, err
	}
	return saved, nil
}

func restoreStdout(saved int) { dup2(saved, 1) }
