//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package rt

import (
	"syscall"
	"time"
)

// sleepOS blocks the calling goroutine's thread for about d without a Go timer.
//
//go:norace
func sleepOS(d time.Duration) {
	tv := syscall.NsecToTimeval(d.Nanoseconds())
	syscall.Select(0, nil, nil, nil, &tv)
}
