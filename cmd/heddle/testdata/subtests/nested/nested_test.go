// Package nested has subtests that pass, skip themselves and fail in every run, two levels
// deep: go test and heddle test must give them the same result lines.
package nested

import (
	"sync"
	"testing"
)

func TestNested(t *testing.T) {
	t.Run("logs", func(t *testing.T) { t.Log("a line of log") })
	t.Run("skips", func(t *testing.T) { t.Skip("not here") })
	t.Run("outer", func(t *testing.T) {
		t.Run("inner", func(t *testing.T) {
			var mu sync.Mutex
			mu.Lock()
			n := 1
			mu.Unlock()
			if n != 2 {
				t.Errorf("n = %d, want 2", n)
			}
		})
		t.Run("fine", func(t *testing.T) {})
	})
	t.Run("last", func(t *testing.T) {})
}
