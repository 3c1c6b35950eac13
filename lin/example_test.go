package lin_test

import (
	"fmt"
	"sync"

	"github.com/heddledbg/heddle/lin"
)

// A counter whose Add returns the new value.
type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) Add(d int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += d
	return c.n
}

// model is the counter's sequential specification: the state is the value, an operation's
// input the amount added and its output the new value.
var model = lin.Model[int, int, int]{
	Init: func() int { return 0 },
	Step: func(n, d, out int) (bool, int) { return out == n+d, n + d },
	Describe: func(d, out int) (string, string) {
		return fmt.Sprintf("add(%d)", d), fmt.Sprint(out)
	},
}

// printer stands for the test's *testing.T.
type printer struct{}

func (printer) Helper()                           {}
func (printer) Fatalf(format string, args ...any) { fmt.Printf(format+"\n", args...) }

func Example() {
	var c counter
	h := lin.New(model)
	var wg sync.WaitGroup
	for i := 1; i <= 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.Do(i, func() int { return c.Add(i) })
		}()
	}
	wg.Wait()
	h.Check(printer{}) // in a test: h.Check(t)
	fmt.Println("checked")
	// Output: checked
}

// A history that no sequential order explains: the second operation started after the first
// returned, so it must see its effect.
func Example_notLinearizable() {
	h := lin.New(model)
	h.Do(1, func() int { return 1 })
	h.Do(2, func() int { return 2 }) // a lost update: 1+2 is 3
	h.Check(printer{})
	// Output:
	// example_test.go:62: not linearizable: no sequential order of the 2 operations that respects their real-time order gives them their outputs
	// goroutine 1  |add(1) -> 1| |add(2) -> 2|
}
