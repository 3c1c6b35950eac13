// Pattern: the commonest goroutine leak in production Go. A call is made in a goroutine that
// sends its result on an unbuffered channel, and the caller waits in a select with
// time.After: when the work takes longer than the timeout, the caller leaves and the send
// blocks forever. The work here is real (a checksum over the store's 20,000 records, each
// read under its lock), not a sleep: it loses to the 10 ms timeout whenever it is slow.
// Modeled on: timeout wrappers around slow calls (Kubernetes apiserver finishRequest, Docker/
// Moby daemon health checks, gRPC-Go and etcd client helpers); the leak that goleak is most
// often added to find.
// Fix: make(chan int, 1), so that the send completes whether or not anyone receives.
package aftertimeout

import (
	"errors"
	"hash/crc32"
	"sync"
	"testing"
	"time"
)

var errTimeout = errors.New("checksum timed out")

type store struct {
	mu       sync.Mutex
	records  [][]byte
	inflight sync.WaitGroup
}

func newStore(n int) *store {
	s := &store{}
	for i := range n {
		s.records = append(s.records, []byte{byte(i), byte(i >> 8), 'k', 'v'})
	}
	return s
}

// checksum reads every record under the lock, so that writers are not held up for long.
func (s *store) checksum() int {
	var sum uint32
	for i := 0; ; i++ {
		s.mu.Lock()
		if i == len(s.records) {
			s.mu.Unlock()
			return int(sum)
		}
		sum = crc32.Update(sum, crc32.IEEETable, s.records[i])
		s.mu.Unlock()
	}
}

func (s *store) checksumWithin(d time.Duration, buffered int) (int, error) {
	ch := make(chan int, buffered) // BUG when buffered == 0
	s.inflight.Add(1)
	go func() {
		defer s.inflight.Done()
		ch <- s.checksum()
	}()
	select {
	case v := <-ch:
		return v, nil
	case <-time.After(d):
		return 0, errTimeout
	}
}

func run(t *testing.T, buffered int) *store {
	s := newStore(20000)
	if _, err := s.checksumWithin(10*time.Millisecond, buffered); err != nil {
		t.Logf("%v: skipping the consistency report", err)
	}
	return s
}

func TestBug(t *testing.T) { run(t, 0) }

// TestFixed also waits for the checksum goroutine: the buffered send lets it finish, and the
// test does not return before it has.
func TestFixed(t *testing.T) { run(t, 1).inflight.Wait() }
