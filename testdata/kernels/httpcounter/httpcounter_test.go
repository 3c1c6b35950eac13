// Pattern: two HTTP handlers race on shared state behind one server -- each request to /hit
// reads a visit counter under the counter's lock, and writes it back plus one under the lock
// again; two concurrent requests read the same count, and one visit is lost.
// Modeled on: hit counters and rate-limit buckets kept in a handler's struct (Prometheus'
// and Hugo's development servers; the common "handlers run concurrently" bug of Go web
// services), served here by net/http through an httptest.Server.
// Fix: the handler adds to the counter under one lock (counter.add).
package httpcounter

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
)

// counter is the site's visit count, kept as a store with a get and a set, each under the
// store's lock.
type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) get() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *counter) set(n int) {
	c.mu.Lock()
	c.n = n
	c.mu.Unlock()
}

func (c *counter) add(d int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += d
	return c.n
}

type site struct {
	visits counter
	fixed  bool
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.fixed {
		fmt.Fprint(w, s.visits.add(1))
		return
	}
	n := s.visits.get()
	s.visits.set(n + 1) // BUG: the other request may have counted its visit since the get
	fmt.Fprint(w, n+1)
}

func run(t *testing.T, fixed bool) {
	s := &site{fixed: fixed}
	srv := httptest.NewServer(s)
	defer srv.Close()
	var wg sync.WaitGroup
	for _, user := range []string{"ann", "bob"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := srv.Client().Get(srv.URL + "/hit?user=" + user)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if _, err := strconv.Atoi(string(body)); err != nil || resp.StatusCode != http.StatusOK {
				t.Errorf("GET /hit: %s %q", resp.Status, body)
			}
		}()
	}
	wg.Wait()
	resp, err := http.Get(srv.URL + "/hit?user=carol")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if string(body) != "3" {
		t.Errorf("third visit counted as %s, want 3", body)
	}
}

func TestBug(t *testing.T)   { run(t, false) }
func TestFixed(t *testing.T) { run(t, true) }
