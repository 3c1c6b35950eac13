// Command pipeline passes numbers through two stages and prints their sum.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

func main() {
	in := make(chan int)
	out := make(chan int)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for v := range in {
			out <- v * 2
		}
		close(out)
	}()
	go func() {
		for i := 1; i <= 3; i++ {
			in <- i
		}
		close(in)
	}()
	sum := 0
	for v := range out {
		sum += v
	}
	wg.Wait()
	fmt.Println("sum", sum)
	wd, _ := os.Getwd()
	fmt.Println("args", os.Args[1:], "greeting", os.Getenv("GREETING"), "dir", filepath.Base(wd), "mode", mode)
}
