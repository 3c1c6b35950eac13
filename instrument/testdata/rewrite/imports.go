// Package p tests the swapping of imports.
package p // a comment on the package line

import (
	"context"
	"math/rand"
	randv2 "math/rand/v2"
	rtm "runtime"
	"sync"
	"sync/atomic"
	"time"
)

var (
	mu      sync.Mutex
	counter atomic.Int64
)

func imports(ctx context.Context) int {
	mu.Lock()
	defer mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	rtm.Gosched()
	f := rtm.Goexit
	_ = f
	time.Sleep(time.Millisecond)
	counter.Add(int64(rand.Intn(2) + randv2.N(3)))
	return rtm.NumGoroutine()
}
