// Pattern: lock order taken from the arguments: transfer(a, b) locks a then b, so a concurrent
// transfer(b, a) locks in the opposite order. The bug is in the second case of a table-driven
// test, inside a subtest that marks itself parallel and starts goroutines of its own.
// Modeled on: the table-driven tests of Kubernetes and etcd, whose cases run as t.Run subtests
// against a fixture, with a two-object operation (move, swap, transfer) that locks its operands
// in argument order.
// Fix: transferFixed locks the two accounts in a global order, by id.
package subtesttransfer

import (
	"sync"
	"testing"
)

type account struct {
	id      int
	mu      sync.Mutex
	balance int
}

func transfer(from, to *account, n int) {
	from.mu.Lock()
	defer from.mu.Unlock()
	to.mu.Lock() // BUG: a concurrent transfer(to, from) holds to.mu and waits for from.mu
	defer to.mu.Unlock()
	from.balance -= n
	to.balance += n
}

func transferFixed(from, to *account, n int) {
	first, second := from, to
	if second.id < first.id {
		first, second = second, first
	}
	first.mu.Lock()
	defer first.mu.Unlock()
	second.mu.Lock()
	defer second.mu.Unlock()
	from.balance -= n
	to.balance += n
}

type move struct{ from, to, n int }

var cases = []struct {
	name  string
	moves []move
	want  [2]int
}{
	{"one way", []move{{0, 1, 10}}, [2]int{90, 110}},
	{"both ways", []move{{0, 1, 10}, {1, 0, 20}}, [2]int{110, 90}},
}

func runCases(t *testing.T, do func(from, to *account, n int)) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			accts := [2]*account{{id: 0, balance: 100}, {id: 1, balance: 100}}
			var wg sync.WaitGroup
			for _, m := range tc.moves {
				wg.Add(1)
				go func() {
					defer wg.Done()
					do(accts[m.from], accts[m.to], m.n)
				}()
			}
			wg.Wait()
			if got := [2]int{accts[0].balance, accts[1].balance}; got != tc.want {
				t.Errorf("balances %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBug(t *testing.T) { runCases(t, transfer) }

func TestFixed(t *testing.T) { runCases(t, transferFixed) }
