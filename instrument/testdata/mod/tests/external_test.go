package tests_test

import (
	"testing"

	"example.com/tests"
)

func TestExternal(t *testing.T) {
	if tests.Parallel(2, func() {}) != 2 {
		t.Fatal("wrong count")
	}
}
