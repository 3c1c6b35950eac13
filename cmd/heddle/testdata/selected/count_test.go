package selected

import "testing"

// A test file of the package itself makes the go command compile the package again for its
// tests, and with it helper, which imports it: helper is then in the build only as
// "helper [example.com/selected.test]".
func TestCounter(t *testing.T) {
	var c Counter
	c.Add()
	if c.N() != 1 {
		t.Errorf("counted %d, want 1", c.N())
	}
}
