// Pattern: send with no receiver after the receiver returned on a timeout.
// Modeled on: Kubernetes apiserver finishRequest (kubernetes#5316, Figure 1 of Tu et al.,
// ASPLOS 2019): the handler goroutine sends its result on an unbuffered channel, but the caller
// already returned through the time.After case, so the handler blocks forever. The timeout
// wins when the handler waits on etcd: the apiserver's watch cache serves reads from memory
// once its reflector has synced, and sends them to etcd before that.
// Fix: make the result channels buffered (capacity 1) so the send always completes.
package timeoutleak

import (
	"errors"
	"sync"
	"testing"
	"time"
)

var errTimeout = errors.New("request timed out")

type apiServer struct{ inflight sync.WaitGroup }

func (s *apiServer) finishRequest(timeout time.Duration, fn func() (string, error), buffered int) (string, error) {
	ch := make(chan string, buffered) // BUG when buffered == 0
	errCh := make(chan error, buffered)
	s.inflight.Add(1)
	go func() {
		defer s.inflight.Done()
		if res, err := fn(); err != nil {
			errCh <- err
		} else {
			ch <- res
		}
	}()
	select {
	case res := <-ch:
		return res, nil
	case err := <-errCh:
		return "", err
	case <-time.After(timeout):
		return "", errTimeout
	}
}

// podCache stands for the apiserver's watch cache (Kubernetes
// staging/src/k8s.io/apiserver/pkg/storage/cacher), which delegates reads to etcd until it
// is ready.
type podCache struct {
	mu     sync.Mutex
	synced bool
}

// sync is the reflector's initial list arriving.
func (c *podCache) sync() {
	c.mu.Lock()
	c.synced = true
	c.mu.Unlock()
}

func (c *podCache) getPod() (string, error) {
	c.mu.Lock()
	synced := c.synced
	c.mu.Unlock()
	if !synced {
		time.Sleep(150 * time.Millisecond) // stands for the read from etcd, slower than the request timeout under load
	}
	return "pod/web", nil
}

// serve handles one request while the watch cache syncs: whether the read goes to etcd
// depends on which comes first.
func serve(s *apiServer, buffered int) {
	c := &podCache{}
	var reflector sync.WaitGroup
	reflector.Add(1)
	go func() {
		defer reflector.Done()
		c.sync()
	}()
	s.finishRequest(100*time.Millisecond, c.getPod, buffered)
	reflector.Wait()
}

func TestBug(t *testing.T) {
	s := &apiServer{}
	serve(s, 0)
	// Returns; the handler goroutine leaks if the timeout fired first.
}

func TestFixed(t *testing.T) {
	s := &apiServer{}
	serve(s, 1)
	s.inflight.Wait()
}
