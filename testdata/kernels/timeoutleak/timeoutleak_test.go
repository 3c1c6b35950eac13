// Pattern: send with no receiver after the receiver returned on a timeout.
// Modeled on: Kubernetes apiserver finishRequest (kubernetes#5316, Figure 1 of Tu et al.,
// ASPLOS 2019): the handler goroutine sends its result on an unbuffered channel, but the caller
// already returned through the time.After case, so the handler blocks forever.
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

func getPod() (string, error) { return "pod/web", nil }

func TestBug(t *testing.T) {
	s := &apiServer{}
	s.finishRequest(100*time.Millisecond, getPod, 0)
	// Returns; the handler goroutine leaks if the timeout fired first.
}

func TestFixed(t *testing.T) {
	s := &apiServer{}
	s.finishRequest(100*time.Millisecond, getPod, 1)
	s.inflight.Wait()
}
