package xonly_test

import (
	"testing"

	"example.com/tests/testonly"
	"example.com/tests/xonly"
)

func TestOnlyExternal(t *testing.T) {
	var v int
	<-testonly.Go(func() { v = <-xonly.Double(2) })
	if v != 4 {
		t.Fatalf("got %d", v)
	}
}
