package mid

import (
	"testing"

	"example.com/layers/base"
)

func TestAddAll(t *testing.T) {
	var b base.Box
	AddAll(&b, 1, 2, 3)
	if got := b.Get(); got != 6 {
		t.Fatalf("got %d, want 6", got)
	}
}
