// Package cancel cancels sibling contexts of one parent from several goroutines: the contexts
// are safe for concurrent use, so there is no race.
package cancel

import (
	"context"
	"sync"
	"testing"
)

func TestSiblingCancel(t *testing.T) {
	parent, cancelParent := context.WithCancel(context.Background())
	defer cancelParent()
	var cancels []context.CancelCauseFunc
	for i := 0; i < 4; i++ {
		_, cancel := context.WithCancelCause(parent)
		cancels = append(cancels, cancel)
	}
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func(cancel context.CancelCauseFunc) { defer wg.Done(); cancel(nil) }(cancels[i])
	}
	wg.Wait()
}
