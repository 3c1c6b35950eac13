package exits

import (
	"log"
	"os"
	"sync"
	"syscall"
	"testing"
)

// TestExit exits from a goroutine of its own: heddle ends the run there and says where.
func TestExit(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); os.Exit(3) }()
	wg.Wait()
}

// TestLogFatal exits inside the standard library, which heddle does not instrument: the
// test's process ends, and heddle reports the exit and what the process printed.
func TestLogFatal(t *testing.T) {
	log.SetFlags(0)
	log.Fatal("giving up")
}

// TestKilled ends on SIGKILL, as a process the kernel kills when memory runs out does: no Go
// traceback tells what happened, and heddle gives no verdict.
func TestKilled(t *testing.T) {
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
}
