//go:build unix

package spawn

import (
	"os/exec"
	"syscall"
)

// Quit asks a process started by Start for the traceback of its goroutines: a Go program
// prints it to its standard error on SIGQUIT and exits. It returns false where no such signal
// exists.
func Quit(cmd *exec.Cmd) bool {
	return cmd.Process != nil && syscall.Kill(cmd.Process.Pid, syscall.SIGQUIT) == nil
}
