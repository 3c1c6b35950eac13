// Package spawn starts heddle's child processes (worker processes, the members of a process
// group, Delve) and stops them. On Unix each child runs in a process group of its own, so
// that stopping it stops the processes it started too; on Windows it is stopped alone. A
// child must not outlive heddle: on Linux the kernel kills it when heddle dies, however heddle
// dies; on other systems it is killed when heddle stops it, which heddle does on Ctrl-C and
// SIGTERM, but not when heddle itself is killed.
package spawn

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
)

// Start starts cmd with files as its file descriptors 3, 4… (exec.Cmd's ExtraFiles), in a
// process group of its own. A command without a standard output gets a pipe whose output is
// dropped, as go test gives a test binary a pipe: os/exec would give it /dev/null, a
// character device, which a program that checks whether it writes to a terminal by the file's
// mode (chi's middleware colours its output then) takes for one.
func Start(cmd *exec.Cmd, files ...*os.File) error {
	if len(files) > 0 && !extraFiles {
		// The caller's error names the process.
		return fmt.Errorf("heddle's protocol passes pipes to the process as file descriptors 3 and 4, which os/exec cannot do on %s", runtime.GOOS)
	}
	if cmd.Stdout == nil {
		cmd.Stdout = io.Discard
	}
	cmd.ExtraFiles = files
	setGroup(cmd)
	return cmd.Start()
}

// Kill stops a process started by Start, with the processes it started that stayed in its
// group. A process that has exited already is no error: Kill may be called more than once.
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		killGroup(cmd.Process)
	}
}
