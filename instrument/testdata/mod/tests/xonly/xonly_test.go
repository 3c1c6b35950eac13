package xonly_test

import (
	"testing"

	"example.com/tests/xonly"
)

func TestOnlyExternal(t *testing.T) {
	if v := <-xonly.Double(2); v != 4 {
		t.Fatalf("got %d", v)
	}
}
