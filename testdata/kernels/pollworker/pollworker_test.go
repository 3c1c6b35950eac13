// Pattern: a worker polls its job queue with a select-default and runtime.Gosched, looping
// until it is told to quit; it sends each result on an unbuffered channel, and the dispatcher
// stops collecting when its context is cancelled, then waits for the worker, which is stuck
// in the send.
// Modeled on: polling worker loops in CockroachDB (queue processors) and Kubernetes
// (kubelet pod workers, volume reconcilers) whose result hand-off ignores shutdown.
// Fix: the worker's send also selects on quit.
package pollworker

import (
	"context"
	"runtime"
	"sync"
	"testing"
)

type pool struct {
	jobs    chan int
	results chan int
	quit    chan struct{}
	wg      sync.WaitGroup
}

// work polls for jobs until quit is closed.
func (p *pool) work(fixed bool) {
	defer p.wg.Done()
	for {
		select {
		case <-p.quit:
			return
		case j := <-p.jobs:
			if !fixed {
				p.results <- j * j // BUG: blocks forever once the dispatcher stopped collecting
				continue
			}
			select {
			case p.results <- j * j:
			case <-p.quit:
				return
			}
		default:
			runtime.Gosched()
		}
	}
}

func run(fixed bool) int {
	p := &pool{jobs: make(chan int, 2), results: make(chan int), quit: make(chan struct{})}
	p.wg.Add(1)
	go p.work(fixed)
	ctx, cancel := context.WithCancel(context.Background())
	go cancel() // a shutdown racing with the collection
	p.jobs <- 1
	p.jobs <- 2
	sum := 0
collect:
	for i := 0; i < 2; i++ {
		select {
		case r := <-p.results:
			sum += r
		case <-ctx.Done():
			break collect
		}
	}
	close(p.quit)
	p.wg.Wait()
	return sum
}

func TestBug(t *testing.T) { run(false) }

func TestFixed(t *testing.T) { run(true) }
