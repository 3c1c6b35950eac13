// Pattern: a goroutine checks a call with an assertion helper that takes the test as an
// assertion library's TestingT interface, as testify's assert.NoError does. The test returns
// without waiting for it, and its cleanup closes the server: a check made after that fails,
// and go test panics with "Log in goroutine after TestBug has completed".
// Modeled on: tests that assert inside a client goroutine with testify (assert.NoError(t, err))
// while t.Cleanup shuts the server down.
// Fix: the test waits for the goroutine before it returns.
package lateassert

import (
	"errors"
	"sync"
	"testing"
)

// TestingT is the interface of an assertion library's helpers: testify's assert.TestingT.
type TestingT interface {
	Errorf(format string, args ...any)
}

type helper interface{ Helper() }

// noError is an assertion helper: testify's assert.NoError.
func noError(t TestingT, err error) bool {
	if h, ok := t.(helper); ok {
		h.Helper()
	}
	if err != nil {
		t.Errorf("unexpected error: %v", err) // BUG: may run after the test returned
		return false
	}
	return true
}

var errClosed = errors.New("server closed")

type server struct {
	mu     sync.Mutex
	closed bool
}

func (s *server) Ping() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	return nil
}

func (s *server) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

func run(t *testing.T, wait bool) {
	s := &server{}
	t.Cleanup(s.Close)
	done := make(chan struct{})
	go func() {
		defer close(done)
		noError(t, s.Ping())
	}()
	if wait {
		<-done
	}
}

func TestBug(t *testing.T)   { run(t, false) }
func TestFixed(t *testing.T) { run(t, true) }
