package httptest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/rt"
	"github.com/heddledbg/heddle/rt/net/http/httptest"
)

// TestServer: plain and TLS servers on the virtual network, fetched by their own clients, with
// concurrent requests, so that the TLS handshakes and records run under control.
func TestServer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		start  func(http.Handler) *httptest.Server
		scheme string
		tls    bool // the handler and the client see a TLS connection
	}{
		{"plain", httptest.NewServer, "http://", false},
		{"tls", httptest.NewTLSServer, "https://", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			var url string
			res := rt.Run(rt.Config{}, func() {
				s := tc.start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					io.WriteString(w, r.URL.Path+" tls="+boolString(r.TLS != nil && r.TLS.HandshakeComplete))
				}))
				defer s.Close()
				url = s.URL
				done := rt.MakeChan[string](2)
				for _, p := range []string{"/a", "/b"} {
					rt.Go(func() {
						resp, err := s.Client().Get(s.URL + p)
						if err != nil {
							rt.Send(done, err.Error())
							return
						}
						defer resp.Body.Close()
						b, _ := io.ReadAll(resp.Body)
						rt.Send(done, string(b)+" client tls="+boolString(resp.TLS != nil))
					})
				}
				got = append(got, rt.Recv(done), rt.Recv(done))
			})
			if res.Verdict.Kind != rt.VerdictOK {
				t.Fatalf("verdict %s: %s", res.Verdict.Kind, res.Verdict.Message)
			}
			if !strings.HasPrefix(url, tc.scheme) {
				t.Errorf("URL %s, want the scheme %s", url, tc.scheme)
			}
			want := " tls=" + boolString(tc.tls) + " client tls=" + boolString(tc.tls)
			for _, g := range got {
				if (g != "/a"+want && g != "/b"+want) || (len(got) == 2 && got[0] == got[1]) {
					t.Errorf("responses %q, want /a and /b with %q", got, want)
					break
				}
			}
		})
	}
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// TestNegotiatesHTTP2: a server with EnableHTTP2 and its client negotiate the protocol that
// net/http/httptest's negotiate, outside a run (net/http's own) and in one; in a run the
// exchange is HTTP/1.1, and a test that checks for HTTP/2 is unsupported, not a bug.
func TestNegotiatesHTTP2(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		exchange := func() (negotiated, proto string) {
			s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
			s.EnableHTTP2 = h2
			s.StartTLS()
			defer s.Close()
			resp, err := s.Client().Get(s.URL)
			if err != nil {
				t.Error(err)
				return "", ""
			}
			resp.Body.Close()
			return resp.TLS.NegotiatedProtocol, resp.Proto
		}
		goNegotiated, goProto := exchange()
		var negotiated, proto string
		res := rt.Run(rt.Config{}, func() {
			negotiated, proto = exchange()
			if proto != goProto {
				rt.Fail(rt.VerdictFatal, "proto "+proto+", want "+goProto, false)
			}
		})
		if negotiated != goNegotiated {
			t.Errorf("EnableHTTP2=%v: negotiated %q in a run, %q by net/http", h2, negotiated, goNegotiated)
		}
		want, wantProto := rt.VerdictOK, "HTTP/1.1"
		if h2 {
			want, wantProto = rt.VerdictUnsupported, "HTTP/2.0"
		}
		if res.Verdict.Kind != want || proto != "HTTP/1.1" || goProto != wantProto {
			t.Errorf("EnableHTTP2=%v: %s in a run (%s), %s by net/http; want %s and HTTP/1.1 in a run, %s by net/http", h2, proto, res.Verdict.Kind, goProto, want, wantProto)
		}
	}
}
