package p

import (
	"sync"
	"unsafe"
)

type node struct {
	n    int
	u    uint
	arr  [4]int
	next *node
	m    map[string]int
	s    []int
	v    any
	mu   sync.Mutex
	f    func() int
}

type named []int

var (
	global int
	gm     = map[string]int{}
	table  [8]int
)

func (p *node) ptr() int { return p.n }
func (p node) val() int  { return p.n }

func accesses(p *node, ch chan int, k string) int {
	p.n = 1               // write through a pointer
	p.n += p.next.n       // update, and two reads
	p.u <<= 2             // a shift
	p.n++                 // increment
	p.u--                 // decrement of an unsigned field
	p.arr[1] = p.arr[2]   // an element of an array in a pointed-to struct
	p.m[k] = len(p.arr)   // a map write; len of an array stays constant
	delete(p.m, k)        // a map write
	_, ok := gm[k]        // a map read
	p.s[0] = <-ch         // written once the receive is done
	p.v = p.n             // a concrete value stored in an interface
	p.v = nil             // untyped nil
	var ns named = p.s    // a read
	p.s = ns              // a value of another type
	global = table[1]     // package variables
	p.mu.Lock()           // a receiver is not read
	_ = p.ptr() + p.val() // nor is it here
	p.mu.Unlock()
	_ = unsafe.Sizeof(p.n)
	x := 0 // a local, not shared
	x++
	y := 0 // captured
	go func() { y = p.f() }()
	for k, v := range p.m { // a map read
		_, _ = k, v
	}
	q := &x // x's address is taken
	*q = 2
	select {
	case v := <-ch:
		y = v
	case ch <- p.n:
	}
	return x + y + ok2(ok)
}

func ok2(b bool) int {
	if b {
		return 1
	}
	return 0
}

func capturedArray() [2]int {
	var arr [2]int // captured, and written through an element
	done := make(chan bool)
	go func() {
		arr[0] = 1
		done <- true
	}()
	<-done
	return arr
}

// A named result returned as itself is not read where the return stands: the compiler drops
// the assignment, which rewritten would write it while the goroutines read it. Swapped
// results, and a function literal's return of a variable it captures, are reads.
func namedResults() (chans []chan int, a, b int) {
	chans = make([]chan int, 2)
	for i := range chans {
		go func() {
			close(chans[i])
			a, b = b, a
		}()
	}
	f := func() []chan int { return chans }
	_ = f
	if len(chans) > 5 {
		return chans, b, a
	}
	return chans, a, b
}
