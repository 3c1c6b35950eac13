//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly)

package rt

import "time"

// sleepOS sleeps for d. Where the operating system's sleep is not at hand, it is a Go timer,
// which costs the scheduler a clock read at every goroutine switch.
//
//go:norace
func sleepOS(d time.Duration) { time.Sleep(d) }
