// Pattern: receive with no partner after a context cancel.
// Modeled on: Docker/Moby attach and containerd stream copying: a pump goroutine ranges over
// the frames channel; the writer gives up when its context is cancelled and returns without
// closing the channel, so the pump waits forever.
// Fix: copyToStreamFixed closes the send side on every path (defer s.CloseSend()).
package ctxrecvleak

import (
	"context"
	"sync"
	"testing"
)

type stream struct {
	frames chan []byte
	wg     sync.WaitGroup
	n      int
}

func newStream() *stream {
	s := &stream{frames: make(chan []byte)}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for f := range s.frames { // the pump
			s.n += len(f)
		}
	}()
	return s
}

func (s *stream) Write(ctx context.Context, f []byte) error {
	select {
	case s.frames <- f:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *stream) CloseSend() { close(s.frames) }

func copyToStream(ctx context.Context, s *stream, frames [][]byte) error {
	for _, f := range frames {
		if err := s.Write(ctx, f); err != nil {
			return err // BUG: the pump is never told that no more frames come
		}
	}
	s.CloseSend()
	return nil
}

func copyToStreamFixed(ctx context.Context, s *stream, frames [][]byte) error {
	defer s.CloseSend()
	for _, f := range frames {
		if err := s.Write(ctx, f); err != nil {
			return err
		}
	}
	return nil
}

func run(cp func(context.Context, *stream, [][]byte) error, waitPump bool) {
	s := newStream()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); cancel() }() // the client detaches concurrently
	cp(ctx, s, [][]byte{[]byte("hello"), []byte("world")})
	wg.Wait()
	if waitPump {
		s.wg.Wait()
	}
}

func TestBug(t *testing.T)   { run(copyToStream, false) }
func TestFixed(t *testing.T) { run(copyToStreamFixed, true) }
