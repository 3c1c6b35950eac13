package bank

import (
	"sync"
	"testing"
)

func TestTransfer(t *testing.T) {
	a, b := &Account{balance: 100}, &Account{balance: 100}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); Transfer(a, b, 10) }()
	go func() { defer wg.Done(); Transfer(b, a, 20) }()
	wg.Wait()
}

func TestDeposit(t *testing.T) {
	a := &Account{}
	done := make(chan bool)
	for i := 0; i < 2; i++ {
		go func() { Deposit(a, 50); done <- true }()
	}
	<-done
	<-done
	if a.balance != 100 {
		t.Errorf("balance = %d, want 100", a.balance)
	}
}

func TestOverdraw(t *testing.T) {
	a := &Account{balance: 10}
	done := make(chan bool)
	go func() {
		Withdraw(a, 20)
		done <- true
	}()
	<-done
}

// TestBusy makes several hundred scheduling decisions: four goroutines take one lock in turn.
func TestBusy(t *testing.T) {
	var mu sync.Mutex
	total := 0
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				mu.Lock()
				total++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if total != 400 {
		t.Errorf("total = %d, want 400", total)
	}
}

// TestForever says it spins, then spins without synchronizing: only a pause stops it.
func TestForever(t *testing.T) {
	n := spinning()
	for i := 0; i >= 0; i++ {
		n = i % 7
	}
	_ = n
}

// TestLoop runs a loop without scheduling points inside one stretch between checkpoints.
func TestLoop(t *testing.T) {
	var mu sync.Mutex
	sum := 0
	mu.Lock()
	for i := 0; i < 5; i++ {
		sum += i
	}
	mu.Unlock()
	if sum != 10 {
		t.Errorf("sum = %d, want 10", sum)
	}
}

// spinning tells the debugger's tests that TestForever is about to spin (kept out of its body,
// whose lines the tests name).
func spinning() int {
	println("spinning")
	return 0
}
