// A test file of another package in the same directory, which go test would reject: its
// tests are not the package's.
package other

import "testing"

func TestOther(t *testing.T) { Reset(nil) }
