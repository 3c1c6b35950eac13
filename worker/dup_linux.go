package worker

import "syscall"

// dup2 is dup3 without flags: linux/arm64 and linux/riscv64 have no dup2 system call.
func dup2(oldfd, newfd int) error { return syscall.Dup3(oldfd, newfd, 0) }
