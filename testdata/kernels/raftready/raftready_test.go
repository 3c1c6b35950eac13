// Pattern: channel-only cycle. The raft node goroutine does a blocking send of a Ready outside
// its select, while the application goroutine is blocked proposing to the node: each waits for
// the other. It only happens when an election timeout produces a Ready just before a proposal.
// Modeled on: etcd raft node / etcdserver raftNode (Ready vs. Propose channel deadlocks,
// GoKer etcd kernels).
// Fix: the node keeps pending Readys and offers them in the same select as proposals,
// enabling the send case (non-nil channel) only when something is pending.
package raftready

import (
	"testing"
	"time"
)

type node struct {
	propc  chan string
	readyc chan string
	stopc  chan struct{}
	done   chan struct{}
}

func newNode() *node {
	return &node{propc: make(chan string), readyc: make(chan string), stopc: make(chan struct{}), done: make(chan struct{})}
}

func (n *node) run() {
	defer close(n.done)
	election := time.NewTimer(time.Second)
	defer election.Stop()
	for {
		select {
		case p := <-n.propc:
			n.readyc <- "entry: " + p // BUG: blocking send outside the select
		case <-election.C:
			n.readyc <- "campaign" // BUG: the application may be blocked on propc
		case <-n.stopc:
			return
		}
	}
}

func (n *node) runFixed() {
	defer close(n.done)
	election := time.NewTimer(time.Second)
	defer election.Stop()
	var pending []string
	for {
		var readyc chan string
		var rd string
		if len(pending) > 0 {
			readyc, rd = n.readyc, pending[0]
		}
		select {
		case p := <-n.propc:
			pending = append(pending, "entry: "+p)
		case <-election.C:
			pending = append(pending, "campaign")
		case readyc <- rd:
			pending = pending[1:]
		case <-n.stopc:
			return
		}
	}
}

func run(fixed bool) {
	n := newNode()
	if fixed {
		go n.runFixed()
	} else {
		go n.run()
	}
	// Stands for the network and the request handling: the client's write reaches the
	// application only after the election timeout.
	time.Sleep(1200 * time.Millisecond)
	n.propc <- "put /registry/pods/web" // the application proposes
	for rd := range n.readyc {          // and applies Readys until its entry is committed
		if rd == "entry: put /registry/pods/web" {
			break
		}
	}
	close(n.stopc)
	<-n.done
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
