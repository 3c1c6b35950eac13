// Package bank is a small program with the bugs of the fixtures: the trace files under
// dot-heddle point at its lines.
package bank

import "sync"

// Account is a bank account.
type Account struct {
	mu      sync.Mutex
	balance int
}

// Transfer moves n from a to b, locking a then b: two opposite transfers deadlock.
func Transfer(a, b *Account, n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	a.balance -= n
	b.balance += n
}

// Notify sends a note that nobody may receive: the sender leaks.
func Notify(ch chan string) {
	go func() { ch <- "💸 transfer done" }()
}

// Debit panics on an overdraft.
func Debit(a *Account, n int) {
	if a.balance < n {
		panic("overdraft")
	}
	a.balance -= n
}
