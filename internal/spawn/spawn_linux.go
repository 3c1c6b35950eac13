package spawn

import (
	"os"
	"os/exec"
	"syscall"
)

const extraFiles = true

func setGroup(cmd *exec.Cmd) {
	// Pdeathsig: the child must not outlive heddle, even when heddle is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func killGroup(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGKILL) }
