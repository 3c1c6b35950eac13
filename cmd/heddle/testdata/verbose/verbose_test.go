// Package verbose has a test that fails when testing.Verbose says true: go test fails it with
// -v only, and heddle test must too.
package verbose

import "testing"

func TestVerbose(t *testing.T) {
	if testing.Verbose() {
		t.Fatal("testing.Verbose() is true")
	}
}
