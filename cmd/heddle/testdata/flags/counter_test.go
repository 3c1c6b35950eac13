package flags

import (
	"sync"
	"testing"
)

func twice(add func()) {
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			add()
		}()
	}
	wg.Wait()
}

func TestBug(t *testing.T) {
	var c Counter
	twice(c.AddSplit)
	if v := c.Value(); v != 2 {
		t.Errorf("value = %d, want 2", v)
	}
}

func TestClean(t *testing.T) {
	var c Counter
	twice(c.Add)
	if v := c.Value(); v != 2 {
		t.Errorf("value = %d, want 2", v)
	}
}
