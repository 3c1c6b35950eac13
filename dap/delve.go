package dap

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/go-delve/delve/service"
	delvedap "github.com/go-delve/delve/service/dap"
	"github.com/heddledbg/heddle/worker"
)

// Each incarnation's Delve runs in a process of its own. Two Delve instances cannot share a
// process: Delve's Linux backend waits for any child (wait4(-1)), so one would reap the
// other's debuggee's stops. The heddle binary itself is that process, started with
// worker.EnvDelveSocket set; ServeDelve is its entry point.

// ServeDelve makes the process a Delve DAP server for one incarnation, and exits when that
// session ends, if the process was started as one. Binaries that embed the adapter call it
// first thing in main (and test binaries in TestMain).
func ServeDelve() {
	path := os.Getenv(worker.EnvDelveSocket)
	if path == "" {
		return
	}
	os.Unsetenv(worker.EnvDelveSocket)
	ln, err := net.Listen("unix", path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "heddle delve: %v\n", err)
		os.Exit(2)
	}
	disconnected := make(chan struct{})
	srv := delvedap.NewServer(&service.Config{Listener: ln, DisconnectChan: disconnected})
	srv.Run()
	<-disconnected
	srv.Stop()
	os.Exit(0)
}

// startDelve starts a Delve process serving DAP on a Unix socket under dir and connects to it.
func startDelve(dir string, id int) (*exec.Cmd, net.Conn, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	path := fmt.Sprintf("%s/delve-%d.sock", dir, id)
	cmd := exec.Command(self)
	// Delve makes FIFOs for the debuggee's output in TMPDIR and leaves them when it is
	// killed: they go in the session's directory, which is removed at the end.
	cmd.Env = append(os.Environ(), worker.EnvDelveSocket+"="+path, "TMPDIR="+dir)
	// Delve announces its socket on stdout; its errors go to heddle's stderr.
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	// Delve must not outlive heddle.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("starting the debugger: %w", err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.Dial("unix", path)
		if err == nil {
			return cmd, conn, nil
		}
		select {
		case <-exited:
			return nil, nil, fmt.Errorf("the debugger exited at start (%v)", cmd.ProcessState)
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			return nil, nil, fmt.Errorf("the debugger did not start within 30s")
		}
	}
}
