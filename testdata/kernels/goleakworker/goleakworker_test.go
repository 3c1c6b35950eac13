// Pattern: a worker left waiting for jobs, in a test guarded by goleak.VerifyNone.
// Modeled on: the test suites (etcd, gRPC-Go, Kubernetes client code) that defer
// goleak.VerifyNone(t): a batch submitter gives up when the queue is shut down meanwhile, and
// returns without telling its worker that no more jobs come, so the worker waits forever.
// goleak catches it only in the rare runs where the shutdown comes first; under heddle, goleak's
// own check would see heddle's goroutines, so its options go to heddle's leak check, which
// reports the worker.
// Fix: submitFixed closes the jobs channel on every path (defer close(jobs)).
package goleakworker

import (
	"errors"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

type queue struct {
	mu     sync.Mutex
	closed bool
	done   int
}

func (q *queue) isClosed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

func (q *queue) shutdown() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
}

func (q *queue) worker(jobs <-chan int) {
	for range jobs {
		q.mu.Lock()
		q.done++
		q.mu.Unlock()
	}
}

var errClosed = errors.New("queue closed")

func submit(q *queue, items []int) error {
	jobs := make(chan int)
	go q.worker(jobs)
	for _, it := range items {
		if q.isClosed() {
			return errClosed // BUG: the worker is never told that no more jobs come
		}
		jobs <- it
	}
	close(jobs)
	return nil
}

func submitFixed(q *queue, items []int) error {
	jobs := make(chan int)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); q.worker(jobs) }()
	defer wg.Wait()
	defer close(jobs)
	for _, it := range items {
		if q.isClosed() {
			return errClosed
		}
		jobs <- it
	}
	return nil
}

func run(t *testing.T, submit func(*queue, []int) error) {
	defer goleak.VerifyNone(t)
	var q queue
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); q.shutdown() }()
	submit(&q, []int{1, 2})
	wg.Wait()
}

func TestBug(t *testing.T)   { run(t, submit) }
func TestFixed(t *testing.T) { run(t, submitFixed) }
