//go:build !unix

package spawn

import (
	"os"
	"os/exec"
)

// extraFiles is false: os/exec passes no descriptors beyond the standard three on Windows
// (ExtraFiles is not supported there), and the worker protocol needs two more.
const extraFiles = false

// setGroup does nothing: the child is stopped alone, without what it started.
func setGroup(cmd *exec.Cmd) {}

func killGroup(p *os.Process) { p.Kill() }
