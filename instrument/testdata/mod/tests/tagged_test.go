//go:build heddletag

package tests

import "testing"

func TestTagged(t *testing.T) {
	c := make(chan int, 1)
	c <- 1
	if <-c != 1 {
		t.Fatal("lost value")
	}
}
