package rt

import "testing"

// TestOthersWork reads the process's state from a traceback: whether a goroutine waits for
// something that does not end by itself, and whether another goroutine still works, which is
// what decides that a goroutine waits outside heddle, whatever the machine's load.
func TestOthersWork(t *testing.T) {
	const waiting = "goroutine 7 [chan receive]:\nmain.f()\n\t/x.go:3 +0x1\n"
	tests := []struct {
		name  string
		other string // the traceback of goroutine 9
		works bool
	}{
		{"blocked on a channel", "goroutine 9 [chan receive, 2 minutes]:\nmain.g()\n\t/x.go:9 +0x1\n", false},
		{"blocked on a lock", "goroutine 9 [sync.Mutex.Lock]:\n", false},
		{"in a read system call", "goroutine 9 [syscall]:\n", false},
		{"waiting on the network", "goroutine 9 [IO wait]:\n", false},
		{"running", "goroutine 9 [running]:\n", true},
		{"runnable", "goroutine 9 [runnable]:\n", true},
		{"assisting the GC", "goroutine 9 [GC assist wait]:\n", true},
		{"sleeping", "goroutine 9 [sleep]:\n", true},
		{"preempted", "goroutine 9 [preempted]:\n", true},
	}
	for _, tt := range tests {
		all := "goroutine 1 [running]:\nmain.main()\n\n" + waiting + "\n" + tt.other
		if got := othersWork(all, 7, 1); got != tt.works {
			t.Errorf("%s: othersWork = %v, want %v", tt.name, got, tt.works)
		}
		if state, fns, _ := stackIn(all, 7); state != "chan receive" || len(fns) != 1 || fns[0] != "main.f" {
			t.Errorf("%s: stackIn = %q %q", tt.name, state, fns)
		}
	}
	for state, blocks := range map[string]bool{
		"chan send": true, "select": true, "select (no cases)": true, "semacquire": true,
		"sync.WaitGroup.Wait": true, "chan receive (durable)": true, "IO wait": true,
		"GC assist wait": false, "running": false, "syscall": false, "sleep": false, "": false,
	} {
		if blockingWait(state) != blocks {
			t.Errorf("blockingWait(%q) = %v, want %v", state, !blocks, blocks)
		}
	}
}
