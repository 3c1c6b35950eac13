// Pattern: the "if !t.Stop() { <-t.C }" drain on a timer whose tick the loop's own select
// already received. A batching loop flushes when its deadline timer fires and re-arms it only
// when the next sample arrives; re-arming, it stops the timer and drains it. After a flush,
// the timer has fired and its value was received: Stop returns false and the drain blocks
// forever, and the producer with it. The test configures a deadline of 1 ns, and appending a
// sample takes longer, so the timer fires while the loop works. Since Go 1.23 (this module
// says go 1.26), Stop and Reset discard a value not yet received, and Stop returns true for
// it, so the drain hangs exactly when the value was received.
// Modeled on: Prometheus remote-write shards (runShard's batch deadline timer, whose stop
// helper drains with a select-default), and batch loops in the OpenTelemetry collector and
// Kubernetes audit webhooks.
// Fix: call Reset alone (Go 1.23 semantics); a select-default drain also works.
package timerstopfired

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

type shard struct {
	samples  chan string
	quit     chan struct{}
	done     chan struct{}
	deadline time.Duration
	sent     int // samples flushed; read after done
}

func (s *shard) run(fixed bool) {
	defer close(s.done)
	timer := time.NewTimer(s.deadline)
	defer timer.Stop()
	var batch []string
	flush := func() {
		s.sent += len(batch)
		batch = batch[:0]
	}
	for {
		select {
		case <-timer.C: // the batch deadline: send what we have
			flush()
		case sample := <-s.samples:
			batch = append(batch, strings.ToUpper(sample))
			if !fixed && !timer.Stop() {
				<-timer.C // BUG: blocks forever when the case above already received the tick
			}
			timer.Reset(s.deadline)
		case <-s.quit:
			flush()
			return
		}
	}
}

func run(t *testing.T, fixed bool) {
	s := &shard{samples: make(chan string), quit: make(chan struct{}), done: make(chan struct{}), deadline: time.Nanosecond}
	go s.run(fixed)
	for i := range 100 {
		s.samples <- fmt.Sprintf("up{instance=%d} 1", i)
	}
	close(s.quit)
	<-s.done
	if s.sent != 100 {
		t.Errorf("sent %d samples, want 100", s.sent)
	}
}

func TestBug(t *testing.T)   { run(t, false) }
func TestFixed(t *testing.T) { run(t, true) }
