package dap

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	ServeDelve()
	os.Exit(m.Run())
}
