// Pattern: livelock: a TryLock retry loop that keeps its own lock while it waits for another.
// Two transfers in opposite directions each lock their source account, then take the
// destination with a TryLock retry loop that yields with runtime.Gosched. Once each holds the
// lock the other retries on, both spin forever: the AB-BA deadlock, turned into a livelock.
// Modeled on: lock-order "fixes" that replace the second Lock of an AB-BA pair with a TryLock
// retry loop (sync.Mutex.TryLock's documentation: correct uses of TryLock are rare).
// Fix: transferFixed backs off: it releases its own lock before it retries, so in every round
// one of the two transfers takes both locks. Its spin-wait is correct, and ends under a fair
// scheduler whatever the interleaving.
package trylockspin

import (
	"runtime"
	"sync"
	"testing"
)

type account struct {
	mu      sync.Mutex
	balance int
}

func transfer(from, to *account, n int) {
	from.mu.Lock()
	for !to.mu.TryLock() {
		runtime.Gosched() // BUG: still holding from.mu, which the other transfer retries on
	}
	from.balance -= n
	to.balance += n
	to.mu.Unlock()
	from.mu.Unlock()
}

func transferFixed(from, to *account, n int) {
	for {
		from.mu.Lock()
		if to.mu.TryLock() {
			break
		}
		from.mu.Unlock()
		runtime.Gosched()
	}
	from.balance -= n
	to.balance += n
	to.mu.Unlock()
	from.mu.Unlock()
}

func run(t *testing.T, xfer func(from, to *account, n int)) {
	a, b := &account{balance: 100}, &account{balance: 100}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); xfer(a, b, 10) }()
	go func() { defer wg.Done(); xfer(b, a, 20) }()
	wg.Wait()
	if a.balance != 110 || b.balance != 90 {
		t.Fatalf("balances %d and %d, want 110 and 90", a.balance, b.balance)
	}
}

func TestBug(t *testing.T)   { run(t, transfer) }
func TestFixed(t *testing.T) { run(t, transferFixed) }
