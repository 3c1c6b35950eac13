// Pattern: nil channels in a select. A fan-in loop disables drained inputs by setting them to
// nil, but one branch forgets the "both drained" exit check, so the loop ends up selecting on
// two nil channels and blocks forever.
// Modeled on: merge/fan-in loops in Prometheus (rule and notifier pipelines) and Hugo.
// Fix: mergeFixed loops only while at least one input is non-nil.
package nilselect

import "testing"

func gen(vals ...int) <-chan int {
	ch := make(chan int)
	go func() {
		for _, v := range vals {
			ch <- v
		}
		close(ch)
	}()
	return ch
}

func merge(a, b <-chan int, out chan<- int) {
	defer close(out)
	for {
		select {
		case v, ok := <-a:
			if !ok {
				a = nil
				if b == nil {
					return
				}
				continue
			}
			out <- v
		case v, ok := <-b:
			if !ok {
				b = nil // BUG: no exit check; if a is already nil, the next select blocks forever
				continue
			}
			out <- v
		}
	}
}

func mergeFixed(a, b <-chan int, out chan<- int) {
	defer close(out)
	for a != nil || b != nil {
		select {
		case v, ok := <-a:
			if !ok {
				a = nil
				continue
			}
			out <- v
		case v, ok := <-b:
			if !ok {
				b = nil
				continue
			}
			out <- v
		}
	}
}

func run(t *testing.T, m func(a, b <-chan int, out chan<- int)) {
	out := make(chan int)
	go m(gen(1, 2, 3), gen(), out) // the second source is usually drained first
	sum := 0
	for v := range out {
		sum += v
	}
	if sum != 6 {
		t.Errorf("sum = %d, want 6", sum)
	}
}

func TestBug(t *testing.T)   { run(t, merge) }
func TestFixed(t *testing.T) { run(t, mergeFixed) }
