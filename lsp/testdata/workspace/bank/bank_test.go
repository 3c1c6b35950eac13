package bank

import (
	"sync"
	"testing"
)

func TestTransfer(t *testing.T) {
	a, b := &Account{balance: 100}, &Account{balance: 100}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { Transfer(a, b, 10); wg.Done() }()
	go func() { Transfer(b, a, 10); wg.Done() }()
	wg.Wait()
}

func TestBalance(t *testing.T) {
	a := &Account{balance: 100}
	Debit(a, 10)
	if a.balance != 100 {
		t.Errorf("balance is %d, want 100", a.balance)
	}
	t.Errorf("the owner changed")
}
