package names

import "testing"

func sub(t *testing.T, names ...string) {
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			t.Run("inner", func(t *testing.T) {})
			t.Run("", func(t *testing.T) {})
		})
	}
}

func TestA(t *testing.T)     { sub(t, "x", "y", "x", "with space", "") }
func TestB(t *testing.T)     { sub(t, "x", "z/slash") }
func TestAlone(t *testing.T) {}
