// Pattern: a long-poll handler waits for an event that a second request posts, and the
// client's http.Transport allows one connection to the server (MaxConnsPerHost): when the
// poll takes the connection first, the post queues for it, and the poll holds it until the
// post arrives. Handler, transport and client wait on each other through the connection.
// Modeled on: long polls and watches (Kubernetes' watch, Consul's blocking queries) sent
// through a client whose Transport caps the connections per host, with the request that
// would release the handler queued behind it.
// Fix: the poll goes through a Transport of its own, so the post never waits for the
// poll's connection.
package longpollconn

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

func server() *httptest.Server {
	event := make(chan struct{})
	var once sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("/poll", func(w http.ResponseWriter, r *http.Request) {
		<-event // BUG (with the client below): the event comes on a request that waits for this connection
		io.WriteString(w, "event")
	})
	mux.HandleFunc("/post", func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { close(event) })
		io.WriteString(w, "posted")
	})
	return httptest.NewServer(mux)
}

func get(t *testing.T, c *http.Client, url string) {
	resp, err := c.Get(url)
	if err != nil {
		t.Error(err)
		return
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

func run(t *testing.T, separate bool) {
	srv := server()
	defer srv.Close()
	shared := &http.Transport{MaxConnsPerHost: 1}
	defer shared.CloseIdleConnections()
	poll := shared
	if separate {
		poll = &http.Transport{MaxConnsPerHost: 1}
		defer poll.CloseIdleConnections()
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); get(t, &http.Client{Transport: poll}, srv.URL+"/poll") }()
	go func() { defer wg.Done(); get(t, &http.Client{Transport: shared}, srv.URL+"/post") }()
	wg.Wait()
}

func TestBug(t *testing.T)   { run(t, false) }
func TestFixed(t *testing.T) { run(t, true) }
