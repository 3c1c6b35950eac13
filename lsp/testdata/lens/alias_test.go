package bank_test

import tst "testing"

func TestAliased(t *tst.T) {}

func TestUnqualified(t *T) {}
