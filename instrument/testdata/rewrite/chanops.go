package p

type C chan int

type pair struct{ a, b int }

func consume(int, ...int) {}

func chanOps[E any](c C, ro <-chan string, so chan<- string, cc chan chan int, e E) int {
	a := make(chan int)
	b := make(chan string, 10)
	var n64 int64 = 3
	d := make(C, n64)
	s := make(chan<- pair)
	g := make(chan E, 1)
	ch := <-cc
	a <- 1
	ch <- <-a
	so <- <-ro
	g <- e
	var any1 chan any = make(chan any, 1)
	any1 <- 1
	any1 <- e
	x := <-a + <-c
	consume(<-a, <-d, <-c)
	if <-a > 0 && len(a) == cap(b) {
		return <-a
	}
	v, ok := <-ro
	v, ok = <-b
	var w, ok2 = <-ro
	_, _, _ = v, w, ok2
	p := pair{a: <-a, b: <-c}
	_ = []int{<-a, <-c}
	_ = p
	_ = s
	_ = ok
	close(a)
	close(so)
	n := len(ro) + cap(c) + len("str")
	switch <-a {
	case <-c:
	}
	for i := 0; i < <-a; a <- i {
		i++
	}
	return x + n + <-(<-cc)
}

func rangeChans(c C, ro <-chan string, m map[string]int) {
	for x := range c {
		x := x + 1
		_ = x
	}
outer:
	for s := range ro {
		for range c {
			if s == "" {
				continue outer
			}
			break outer
		}
	}
	var k string
	for k = range ro {
		m[k]++
	}
	var arr [2]string
	for arr[m[k]] = range ro {
	}
	for _ = range ro {
	}
}

func generic[CH ~chan int](ch CH) int {
	for v := range ch {
		return v
	}
	ch <- 1
	close(ch)
	return <-ch + len(ch)
}
