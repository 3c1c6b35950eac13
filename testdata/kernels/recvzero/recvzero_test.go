// Pattern: receive from a closed channel used as a value. Shutdown closes both the quit and the
// updates channels; when the loop is not parked at that moment, its select can pick the closed
// updates channel and dereference the nil zero value.
// Modeled on: Kubernetes kubelet pod workers (managePodLoop) and Docker/Moby event loops that
// read "u := <-ch" without the ", ok" check.
// Fix: loopFixed checks ok and returns when updates is closed.
package recvzero

import "testing"

type podUpdate struct{ pod string }

type podWorker struct {
	updates chan *podUpdate
	synced  chan string
	quit    chan struct{}
	done    chan struct{}
}

func newPodWorker() *podWorker {
	return &podWorker{updates: make(chan *podUpdate, 1), synced: make(chan string), quit: make(chan struct{}), done: make(chan struct{})}
}

func (w *podWorker) loop() {
	defer close(w.done)
	for {
		select {
		case u := <-w.updates:
			w.synced <- u.pod // BUG: u is nil once updates is closed
		case <-w.quit:
			return
		}
	}
}

func (w *podWorker) loopFixed() {
	defer close(w.done)
	for {
		select {
		case u, ok := <-w.updates:
			if !ok {
				return
			}
			w.synced <- u.pod
		case <-w.quit:
			return
		}
	}
}

func (w *podWorker) Shutdown() {
	close(w.quit)
	close(w.updates)
}

func run(loop func(*podWorker)) {
	w := newPodWorker()
	go loop(w)
	w.updates <- &podUpdate{pod: "default/web-0"}
	<-w.synced
	w.Shutdown() // the loop is usually parked in its select again by now
	<-w.done
}

func TestBug(t *testing.T)   { run((*podWorker).loop) }
func TestFixed(t *testing.T) { run((*podWorker).loopFixed) }
