package top_test

import (
	"testing"

	"example.com/layers/top"
)

func TestSum(t *testing.T) {
	if got := top.Sum(4, 5); got != 9 {
		t.Fatalf("got %d, want 9", got)
	}
}
