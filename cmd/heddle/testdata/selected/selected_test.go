package selected_test

import (
	"testing"

	"example.com/selected"
	"example.com/selected/helper"
)

func TestSub(t *testing.T) {
	t.Run("passes", func(t *testing.T) {
		var c selected.Counter
		helper.AddTwice(&c)
		if c.N() != 2 {
			t.Errorf("counted %d, want 2", c.N())
		}
	})
	t.Run("fails", func(t *testing.T) {
		t.Error("this subtest always fails")
	})
}
