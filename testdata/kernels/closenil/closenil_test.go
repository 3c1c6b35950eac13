// Pattern: close of a nil channel. The stop channel is created lazily in Run; a Stop that races
// ahead of Run closes a nil channel.
// Modeled on: Kubernetes controllers/informers and Docker components that create their stop
// channel in Run/Start instead of the constructor.
// Fix: create the channel in the constructor (newInformerFixed) so Stop can never see nil.
package closenil

import (
	"sync"
	"testing"
)

type informer struct {
	mu     sync.Mutex
	stopCh chan struct{}
}

func (i *informer) Run() {
	i.mu.Lock()
	if i.stopCh == nil {
		i.stopCh = make(chan struct{}) // BUG: lazily created; Stop may come first
	}
	ch := i.stopCh
	i.mu.Unlock()
	<-ch // list & watch until stopped
}

func (i *informer) Stop() {
	i.mu.Lock()
	defer i.mu.Unlock()
	close(i.stopCh)
}

func run(newInformer func() *informer) {
	i := newInformer()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); i.Stop() }() // controller shutting down
	i.Run()
	wg.Wait()
}

func TestBug(t *testing.T) { run(func() *informer { return &informer{} }) }

func TestFixed(t *testing.T) {
	run(func() *informer { return &informer{stopCh: make(chan struct{})} })
}
