// Package phil is the dining philosophers as a distributed system, after the example Stoller
// applied his search to: each philosopher is a process, and each fork belongs to the process
// on its philosopher's left. Philosopher i's own fork is fork i; its right fork, fork i+1, is
// its neighbour's, which it takes and puts back over a connection to the neighbour's fork
// server. A fork is a token that the owner's philosopher and the fork server contend for.
//
// Each philosopher takes its left fork, then its right: on the interleaving where every
// philosopher holds its own fork, each waits for its neighbour's, a deadlock across every
// process. Ordered, the last philosopher takes the lower-numbered fork first, which breaks
// the cycle.
package phil

import (
	"bufio"
	"fmt"
	"log"
	"net"
	"sync"
)

func addr(i int) string { return fmt.Sprintf("127.0.0.1:%d", 7100+i) }

// Run runs philosopher i of n.
func Run(i, n int, ordered bool) {
	fork := make(chan struct{}, 1)
	fork <- struct{}{}
	ln, err := net.Listen("tcp", addr(i))
	if err != nil {
		log.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		serve(ln, fork)
	}()
	go func() {
		defer wg.Done()
		eat(i, n, fork, ordered)
	}()
	wg.Wait()
	ln.Close()
}

// serve lends the fork to the philosopher whose right fork it is.
func serve(ln net.Listener, fork chan struct{}) {
	conn, err := ln.Accept()
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	for {
		req, err := r.ReadString('\n')
		if err != nil {
			return // the neighbour has eaten and hung up
		}
		switch req {
		case "take\n":
			<-fork
			conn.Write([]byte("ok\n"))
		case "put\n":
			fork <- struct{}{}
		}
	}
}

// remote is a fork that another process owns.
type remote struct {
	conn net.Conn
	r    *bufio.Reader
}

func (f *remote) take() {
	f.conn.Write([]byte("take\n"))
	if _, err := f.r.ReadString('\n'); err != nil {
		log.Fatal(err)
	}
}

func (f *remote) put() { f.conn.Write([]byte("put\n")) }

func eat(i, n int, left chan struct{}, ordered bool) {
	conn, err := net.Dial("tcp", addr((i+1)%n))
	if err != nil {
		log.Fatal(err)
	}
	right := &remote{conn: conn, r: bufio.NewReader(conn)}
	if ordered && (i+1)%n < i {
		right.take()
		<-left
	} else {
		<-left
		right.take()
	}
	// Eat.
	right.put()
	left <- struct{}{}
	conn.Close()
}
