package bank

import "testing"

func TestBeforeTheError(t *testing.T) {}

func TestBroken(t *testing.T) {
	if {
}

func TestAfterTheError(t *testing.T) {}
