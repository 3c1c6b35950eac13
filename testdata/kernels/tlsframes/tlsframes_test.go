// Pattern: two goroutines send frames over one TLS connection, each frame a header (its
// length) and a body written by two calls of Write; the writes of the two senders interleave,
// and the receiver takes a header for a body and reads garbage.
// Modeled on: stream multiplexers over TLS (hashicorp/yamux's and xtaci/smux's send paths,
// which serialize a frame's writes in one send loop or under a lock), and the frame writers of
// RPC clients over a shared tls.Conn. crypto/tls makes each Write atomic, not a sequence of
// them.
// Fix: the sender holds a lock across the frame's two writes (sender.send).
package tlsframes

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"io"
	"math/big"
	"sync"
	"testing"
	"time"
)

// sender writes frames to a connection.
type sender struct {
	mu    sync.Mutex
	conn  io.Writer
	fixed bool
}

func (s *sender) send(body string) {
	if s.fixed {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	s.conn.Write([]byte{byte(len(body))}) // BUG: another frame may be written between these
	s.conn.Write([]byte(body))
}

func config(t *testing.T) *tls.Config {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
}

func run(t *testing.T, fixed bool) {
	l, err := tls.Listen("tcp", "127.0.0.1:0", config(t))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := make(chan []string, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer c.Close()
		var frames []string
		for range 2 {
			n := make([]byte, 1)
			if _, err := io.ReadFull(c, n); err != nil {
				break
			}
			body := make([]byte, n[0])
			if _, err := io.ReadFull(c, body); err != nil {
				break
			}
			frames = append(frames, string(body))
		}
		got <- frames
	}()
	c, err := tls.Dial("tcp", l.Addr().String(), &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := &sender{conn: c, fixed: fixed}
	var wg sync.WaitGroup
	for _, body := range []string{"ann", "bobby"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.send(body)
		}()
	}
	wg.Wait()
	c.CloseWrite() // the receiver's reads end, whatever length it took a byte for
	frames := <-got
	if len(frames) != 2 || frames[0] == frames[1] || frames[0] != "ann" && frames[0] != "bobby" ||
		frames[1] != "ann" && frames[1] != "bobby" {
		t.Fatalf("received frames %q, want ann and bobby", frames)
	}
}

func TestBug(t *testing.T)   { run(t, false) }
func TestFixed(t *testing.T) { run(t, true) }
