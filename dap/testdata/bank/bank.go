package bank

import "sync"

type Account struct {
	mu      sync.Mutex
	balance int
}

// Transfer locks the source account, then the destination: two opposite transfers
// running at once can each hold one lock and wait for the other.
func Transfer(from, to *Account, amount int) {
	from.mu.Lock()
	defer from.mu.Unlock()
	to.mu.Lock()
	defer to.mu.Unlock()
	from.balance -= amount
	to.balance += amount
}

// Deposit reads the balance under the lock, then writes it under the lock again:
// a concurrent deposit between the two is lost.
func Deposit(a *Account, amount int) {
	a.mu.Lock()
	b := a.balance
	a.mu.Unlock()
	a.mu.Lock()
	a.balance = b + amount
	a.mu.Unlock()
}

// Withdraw takes n from a, and panics when the balance does not cover it.
func Withdraw(a *Account, n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.balance < n {
		panic("insufficient funds")
	}
	a.balance -= n
}
