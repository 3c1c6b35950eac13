package tests

import (
	"os"
	"testing"
)

var mainRan bool

func TestMain(m *testing.M) {
	mainRan = true
	os.Exit(m.Run())
}

func TestInternal(t *testing.T) {
	ch := make(chan int, 3)
	if n := Parallel(3, func() { ch <- 1 }); n != 3 {
		t.Fatalf("Parallel = %d", n)
	}
	if len(ch) != 3 {
		t.Fatalf("len = %d", len(ch))
	}
}

func TestTable(t *testing.T) {
	for _, n := range []int{1, 2} {
		t.Run("sub", func(t *testing.T) {
			done := make(chan bool)
			go func() { done <- Parallel(n, func() {}) == n }()
			if !<-done {
				t.Error("wrong count")
			}
		})
	}
}
