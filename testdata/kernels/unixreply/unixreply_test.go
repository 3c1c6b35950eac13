// Pattern: a client multiplexes calls over one connection to a daemon's Unix control socket
// and pairs each reply with the oldest call still waiting, but a caller queues its call for
// the reply reader only after it has written the request, outside the write lock; two
// callers write in one order and queue in the other, and each gets the other's reply.
// Modeled on: IPC clients over a daemon's Unix socket that pair replies with a FIFO of
// pending calls (net/rpc queues the call before writing it for this reason; containerd's
// ttrpc and Docker's plugin clients carry call ids instead), served here over net.Listen
// ("unix", path) on heddle's virtual network.
// Fix: the call is queued under the write lock, before its request is written, so that the
// queue's order is the socket's (client.call, fixed).
package unixreply

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"sync"
	"testing"
)

// serve answers each request line of each connection with "re:" and the line, in order.
func serve(l net.Listener, wg *sync.WaitGroup) {
	defer wg.Done()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			sc := bufio.NewScanner(c)
			for sc.Scan() {
				if _, err := fmt.Fprintf(c, "re:%s\n", sc.Text()); err != nil {
					return
				}
			}
		}()
	}
}

type client struct {
	conn  net.Conn
	wmu   sync.Mutex       // one request on the socket at a time
	calls chan chan string // the calls waiting for their replies, oldest first
	done  chan struct{}    // closed when the reply reader has ended
	fixed bool
}

func dial(path string, fixed bool) (*client, error) {
	conn, err := net.Dial("unix", path)
	if err != nil {
		return nil, err
	}
	c := &client{conn: conn, calls: make(chan chan string, 8), done: make(chan struct{}), fixed: fixed}
	go c.readReplies()
	return c, nil
}

// readReplies gives each reply to the oldest waiting call.
func (c *client) readReplies() {
	defer close(c.done)
	sc := bufio.NewScanner(c.conn)
	for sc.Scan() {
		call := <-c.calls
		call <- sc.Text()
	}
}

func (c *client) call(req string) string {
	reply := make(chan string, 1)
	c.wmu.Lock()
	if c.fixed {
		c.calls <- reply
	}
	_, err := io.WriteString(c.conn, req+"\n")
	c.wmu.Unlock()
	if err != nil {
		return err.Error()
	}
	if !c.fixed {
		c.calls <- reply // BUG: another caller may have written and queued since this one wrote
	}
	return <-reply
}

func (c *client) close() {
	c.conn.Close()
	<-c.done
}

func run(t *testing.T, fixed bool) {
	path := filepath.Join(t.TempDir(), "ctl.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	var srv sync.WaitGroup
	srv.Add(1)
	go serve(l, &srv)
	c, err := dial(path, fixed)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for _, req := range []string{"status", "stop"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := c.call(req); got != "re:"+req {
				t.Errorf("call %q got reply %q", req, got)
			}
		}()
	}
	wg.Wait()
	c.close()
	l.Close()
	srv.Wait()
}

func TestBug(t *testing.T)   { run(t, false) }
func TestFixed(t *testing.T) { run(t, true) }
