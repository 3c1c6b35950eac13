// Command positions reports its own positions after rewritten statements.
package main

import (
	"fmt"
	"runtime"
	"sync"
)

func at() {
	_, file, line, _ := runtime.Caller(1)
	fmt.Printf("at %s:%d\n", file, line)
}

func main() {
	ch := make(chan int, 1)
	ch <- 1; at() // line
	x := <-ch
	at() // line
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		at() // line
	}()
	wg.Wait()
	ch <- x
	select {
	case v := <-ch:
		at() // line
		_ = v
	default:
	}
	done := make(chan bool)
	go func(a, b int) {
		at() // line
		done <- true
	}(1, 2)
	<-done
	closed := make(chan int)
	close(closed)
	for range closed {
	}
	for v := range func() chan int { c := make(chan int, 1); c <- 1; close(c); return c }() {
		at() // line
		_ = v
	}
	var m map[string]int
	m[<-func() chan string { c := make(chan string, 1); c <- "k"; return c }()] = 1 // line
}
