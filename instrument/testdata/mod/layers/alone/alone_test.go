package alone

import "testing"

func TestRelay(t *testing.T) {
	if got := Relay(7); got != 7 {
		t.Fatalf("got %d, want 7", got)
	}
}
