package server

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// guard wraps every handler: it refuses foreign origins and requests
// without the session token, and sets headers that keep the token out of
// referrers and caches.
func (s *Server) guard(next http.Handler) http.Handler {
	csp := fmt.Sprintf("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"connect-src 'self' ws://127.0.0.1:%[1]d ws://localhost:%[1]d; base-uri 'none'; form-action 'none'; "+
		"frame-ancestors 'self' vscode-webview: vscode-file:", s.port)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", csp)
		if !s.originAllowed(r) {
			httpError(w, http.StatusForbidden, "origin %q may not use this server", r.Header.Get("Origin"))
			return
		}
		if !s.authorized(r) {
			httpError(w, http.StatusUnauthorized, "missing or wrong session token")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// originAllowed reports whether a request comes from the web view itself,
// from a VS Code webview, or from something that is not a web page (no
// Origin header).
func (s *Server) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	switch {
	case origin == "":
		return true
	case strings.HasPrefix(origin, "vscode-webview://"):
		return true
	}
	if origin == fmt.Sprintf("http://127.0.0.1:%d", s.port) || origin == fmt.Sprintf("http://localhost:%d", s.port) {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.origins[origin]
}

// AllowOrigin lets pages of another loopback origin use the server: an editor that shows the
// web view through a port proxy of its own (code-server) serves it from that origin. Only
// http(s) origins on loopback hosts are accepted; the token is still required.
func (s *Server) AllowOrigin(origin string) error {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Path != "" || u.RawQuery != "" || u.User != nil {
		return fmt.Errorf("server: %q is not an http origin", origin)
	}
	switch u.Hostname() {
	case "127.0.0.1", "localhost", "::1":
	default:
		return fmt.Errorf("server: origin %q is not on a loopback host", origin)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.origins == nil {
		s.origins = map[string]bool{}
	}
	s.origins[u.Scheme+"://"+u.Host] = true
	return nil
}

// authorized reports whether a request carries the session token, as a
// bearer token or, for what a page loads by URL (itself, its assets and the
// WebSocket), as the token query parameter.
func (s *Server) authorized(r *http.Request) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		got = r.URL.Query().Get("token")
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}
