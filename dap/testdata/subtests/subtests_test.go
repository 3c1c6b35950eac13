package subtests

import "testing"

func TestTwo(t *testing.T) {
	t.Run("first", func(t *testing.T) {
		t.Log("first")
	})
	t.Run("second", func(t *testing.T) {
		t.Log("second")
	})
}
