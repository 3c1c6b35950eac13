package buffer

import (
	"sync"
	"testing"
)

func TestAppend(t *testing.T) {
	a, b := &Buffer{data: []byte("ab")}, &Buffer{}
	var wg sync.WaitGroup
	wg.Go(func() { b.Append(a) })
	wg.Go(func() { a.Reset() })
	wg.Wait()
}

func TestReset(t *testing.T) {
	var b Buffer
	b.Reset()
	if Count(&b) != 0 {
		t.Fatal("not empty")
	}
}
