package bank

import . "testing"

func TestDot(t *T) {}
