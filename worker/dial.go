package worker

import (
	"os"
	"syscall"
)

// dialAdapter connects to the debug adapter's Unix socket. It does not use package net, whose
// resolver links the C library into every test binary that imports this package: a worker
// process that is statically linked starts faster, and heddle -isolate starts one per run.
func dialAdapter(addr string) (*os.File, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	syscall.CloseOnExec(fd)
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: addr}); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "dial", Path: addr, Err: err}
	}
	// Non-blocking, the socket is served by the runtime's poller, as a net.Conn is.
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, os.NewSyscallError("setnonblock", err)
	}
	return os.NewFile(uintptr(fd), addr), nil
}
