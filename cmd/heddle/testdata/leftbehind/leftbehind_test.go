// Package leftbehind has a test that leaves state behind in its process, as groupcache's
// tests do: a registry in a package variable that refuses a second registration. go test runs
// it once and passes; go test -count=2 panics. Its twin has a lost update that a later run of
// the search finds, and that a fresh process reproduces.
package leftbehind

import (
	"sync"
	"testing"
)

var (
	mu     sync.Mutex
	groups = map[string]int{}
)

func register(name string) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := groups[name]; dup {
		panic("duplicate registration of group " + name)
	}
	groups[name] = 0
}

func hit(name string) {
	mu.Lock()
	groups[name]++
	mu.Unlock()
}

func TestRegistry(t *testing.T) {
	register("test")
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hit("test")
		}()
	}
	wg.Wait()
}

func TestLostUpdate(t *testing.T) {
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			v := n
			mu.Unlock()
			mu.Lock()
			n = v + 1
			mu.Unlock()
		}()
	}
	wg.Wait()
	if n != 2 {
		t.Fatalf("n = %d, want 2", n)
	}
}
