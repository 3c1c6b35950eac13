//go:build unix && !linux

package spawn

import (
	"os"
	"os/exec"
	"syscall"
)

const extraFiles = true

// setGroup puts the child in a group of its own. These systems have no parent-death signal:
// the child outlives a heddle that is killed, until its own limits (budget, hang) end it.
func setGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func killGroup(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGKILL) }
