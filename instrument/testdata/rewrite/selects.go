package p

import (
	"time"
)

type S struct{ f int }

func pick() chan int { return nil }

func selects(a, b chan int, out chan<- int, s *S, done <-chan struct{}) int {
	select {}
}

func selects2(a, b chan int, out chan<- int, s *S, done <-chan struct{}) (n int) {
	select {
	case v := <-a:
		n += v
	case v, ok := <-b:
		if !ok {
			break
		}
		n += v
	case s.f = <-a:
	case <-done:
		return -1
	case out <- 1:
	default:
	}

	var ok bool
loop:
	for {
		select {
		case n, ok = <-pick():
			if !ok {
				break loop
			}
			continue loop
		case pick() <- n + 1:
		case <-time.After(time.Second):
			break
		}
	}

	select {
	case v := <-a:
		return v
	case <-b:
		panic("b")
	}
}

func selectNoCase() {
	select {
	default:
	}
}

func labeled(a chan int) {
L:
	select {
	case <-a:
		break L
	}
}

type result struct {
	path string
	sum  [2]byte
}

// sendLiteral sends composite literals, which in a switch header need
// parentheses.
func sendLiteral(c chan result, cs []chan result, done <-chan struct{}, path string) error {
	select {
	case c <- result{path, [2]byte{1, 2}}:
	case cs[0] <- result{path: path}:
	case <-done:
		return nil
	}
	return nil
}
