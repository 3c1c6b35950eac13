package tests

import "testing"

func TestMainRan(t *testing.T) {
	if !mainRan {
		t.Fatal("TestMain did not run")
	}
}
