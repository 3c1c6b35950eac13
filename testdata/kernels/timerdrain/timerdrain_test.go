// Pattern: timer Reset race. The loop resets its timer with the "if !t.Stop() { <-t.C }" drain
// idiom, but when the timer has fired and its own select already consumed t.C, Stop returns
// false and the drain blocks forever. (Under Go >= 1.23 timer semantics this is the form the
// classic "Reset on a fired timer whose channel wasn't drained" bug takes: Reset itself no
// longer delivers stale values, so the drain is both unnecessary and dangerous.)
// The loop is busy applying a snapshot while the timer fires and the leader's next heartbeat
// waits; its select then finds both ready and may take the tick first.
// Modeled on: election/backoff loops in etcd and Kubernetes client-go.
// Fix: just call t.Reset(d).
package timerdrain

import (
	"sync/atomic"
	"testing"
	"time"
)

type electionLoop struct {
	snapc     chan string
	resetc    chan time.Duration
	quit      chan struct{}
	done      chan struct{}
	campaigns atomic.Int32
}

func (e *electionLoop) run(fixed bool) {
	defer close(e.done)
	t := time.NewTimer(time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			e.campaigns.Add(1) // election timeout: campaign
		case <-e.snapc: // a snapshot from the leader
			time.Sleep(1500 * time.Millisecond) // stands for writing the snapshot to disk, longer than the election timeout
		case d := <-e.resetc: // heartbeat from the leader
			if !fixed && !t.Stop() {
				<-t.C // BUG: blocks forever if the select above already received the tick
			}
			t.Reset(d)
		case <-e.quit:
			return
		}
	}
}

func run(fixed bool) {
	e := &electionLoop{snapc: make(chan string), resetc: make(chan time.Duration), quit: make(chan struct{}), done: make(chan struct{})}
	go e.run(fixed)
	e.snapc <- "snapshot 1"
	e.resetc <- 500 * time.Millisecond
	close(e.quit)
	<-e.done
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
