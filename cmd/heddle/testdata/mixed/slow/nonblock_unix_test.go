//go:build unix

package slow

import "syscall"

const nonblock = syscall.O_NONBLOCK
