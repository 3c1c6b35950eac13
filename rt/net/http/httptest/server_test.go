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
