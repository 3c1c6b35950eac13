package p

import (
	"fmt"
	"runtime"
	"sync"
)

type T struct{ n int }

func (t T) Val(x int)   { fmt.Println(t.n, x) }
func (t *T) Ptr(x int)  { t.n = x }
func f(a, b int)        {}
func g() (int, int)     { return 1, 2 }
func vf(s string, xs ...int) {}
func gen[E any](e E)     {}
func h() int            { return 0 }

func goStatements(ch chan int, fn func(int), t T, p *T, xs []int, mu *sync.Mutex) {
	go f(1, 2)
	go f(h(), len(xs))
	go f(g())
	go fn(<-ch)
	go t.Val(3)
	go p.Ptr(h())
	go vf("a", xs...)
	go vf("b", 1, h())
	go gen(h())
	go gen[int](4)
	go func() {
		fmt.Println("closure")
	}()
	go func(x int, y string) {
		fmt.Println(x, y)
	}(h(), "y")
	go mu.Unlock()
	go close(ch)
	go println("builtin", h())
	go runtime.Gosched()
	go h()
	var wg sync.WaitGroup
	wg.Go(func() {})
	defer close(ch)
}
