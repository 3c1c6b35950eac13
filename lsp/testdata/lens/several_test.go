package bank

import (
	"testing"
)

// TestDeposit is a test.
func TestDeposit(t *testing.T) {}

func TestWithdraw(t *testing.T) {
	t.Parallel()
}

func Test(t *testing.T) {}

func TestÜber(t *testing.T) {}

func Test_underscore(t *testing.T) {}

// None of these is a test that go test runs.

func Testlower(t *testing.T) {}

func TestMain(m *testing.M) {}

func BenchmarkDeposit(b *testing.B) {}

func FuzzDeposit(f *testing.F) {}

func TestNoArgs() {}

func TestTwo(t *testing.T, n int) {}

func TestResult(t *testing.T) error { return nil }

func TestGeneric[T any](t *testing.T) {}

func TestValue(t testing.T) {}

type suite struct{}

func (suite) TestMethod(t *testing.T) {}
