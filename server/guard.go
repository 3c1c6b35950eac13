package server

import (
	"crypto/subtle"
	"fmt"
	"net/http"
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
	return origin == fmt.Sprintf("http://127.0.0.1:%d", s.port) ||
		origin == fmt.Sprintf("http://localhost:%d", s.port)
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
