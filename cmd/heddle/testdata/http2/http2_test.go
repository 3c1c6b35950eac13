// Package http2 serves HTTP/2, which heddle's network carries as HTTP/1.1: a test whose checks
// depend on the protocol cannot be explored, and the others keep their verdicts.
package http2

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

func newServer(h http.HandlerFunc) *httptest.Server {
	ts := httptest.NewUnstartedServer(h)
	ts.EnableHTTP2 = true
	ts.StartTLS()
	return ts
}

// TestProto checks that the exchange is HTTP/2, as it is under go test.
func TestProto(t *testing.T) {
	ts := newServer(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.Proto) })
	defer ts.Close()
	resp, err := ts.Client().Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.ProtoMajor != 2 || string(b) != "HTTP/2.0" {
		t.Fatalf("response %s, the handler saw %s; want HTTP/2.0", resp.Proto, b)
	}
}

// count serves two requests at once and returns how many the handler counted.
func count(t *testing.T, locked bool) {
	var mu sync.Mutex
	n := 0
	ts := newServer(func(w http.ResponseWriter, r *http.Request) {
		if locked {
			mu.Lock()
			defer mu.Unlock()
		}
		n++
	})
	defer ts.Close()
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := ts.Client().Get(ts.URL)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		}()
	}
	wg.Wait()
}

// TestCounter counts under a lock: clean.
func TestCounter(t *testing.T) { count(t, true) }

// TestRace counts without one: the handlers race, whatever the protocol.
func TestRace(t *testing.T) { count(t, false) }
