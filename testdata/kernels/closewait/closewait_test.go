// Pattern: a lock-order inversion between a session's receive loop and its Close, safe only
// when Close waits for the loop to end before it takes its locks.
// Modeled on: hashicorp/yamux Session: the receive loop closes a stream holding the stream's
// stateLock and then the session's streamLock (processFlags → closeStream); Session.Close
// takes streamLock and then each stream's stateLock (forceClose). yamux's Close waits on
// recvDoneCh before it takes streamLock, so the two nestings never overlap.
// Fix: closeFixed waits for the receive loop to return before it takes streamLock.
package closewait

import (
	"sync"
	"testing"
)

type stream struct {
	stateLock sync.Mutex
	closed    bool
}

type session struct {
	streamLock sync.Mutex
	streams    map[int]*stream
	open       int      // streams not yet closed by the remote end
	frames     chan int // the connection: each frame closes a stream
	recvDone   chan struct{}
}

func newSession(n int) *session {
	s := &session{streams: map[int]*stream{}, frames: make(chan int), recvDone: make(chan struct{})}
	for id := range n {
		s.streams[id] = &stream{}
	}
	s.open = n
	go s.recvLoop()
	return s
}

func (s *session) recvLoop() {
	defer close(s.recvDone)
	for id := range s.frames {
		s.streamLock.Lock()
		st := s.streams[id]
		s.streamLock.Unlock()
		if st == nil {
			continue
		}
		st.stateLock.Lock()
		if !st.closed {
			st.closed = true
			s.remoteClosed() // stateLock → streamLock
		}
		st.stateLock.Unlock()
	}
}

func (s *session) remoteClosed() {
	s.streamLock.Lock()
	s.open--
	s.streamLock.Unlock()
}

// forceClose closes what is left: streamLock → stateLock.
func (s *session) forceClose() {
	s.streamLock.Lock()
	defer s.streamLock.Unlock()
	for _, st := range s.streams {
		st.stateLock.Lock()
		st.closed = true
		st.stateLock.Unlock()
	}
}

func (s *session) close() {
	close(s.frames)
	s.forceClose() // BUG: the receive loop may still hold a stream's stateLock
	<-s.recvDone
}

func (s *session) closeFixed() {
	close(s.frames)
	<-s.recvDone
	s.forceClose()
}

func TestBug(t *testing.T) {
	s := newSession(2)
	s.frames <- 0
	s.close()
}

func TestFixed(t *testing.T) {
	s := newSession(2)
	s.frames <- 0
	s.closeFixed()
}
