package http

import (
	"context"
	"net"
	"testing"
	"time"
)

// TestNetDialer: the method values of a *net.Dialer give that dialer's settings, on the Go
// that runs the test (netDialer reads the receiver from the closure); other funcs give nil.
func TestNetDialer(t *testing.T) {
	d := &net.Dialer{Timeout: 3 * time.Second, KeepAlive: 7 * time.Second, FallbackDelay: time.Millisecond}
	mine := func(context.Context, string, string) (net.Conn, error) { return nil, nil }
	for _, tc := range []struct {
		name string
		dial any
		want bool
	}{
		{"DialContext", d.DialContext, true},
		{"Dial", d.Dial, true},
		{"a func of the program's", mine, false},
		{"nil", (func(string, string) (net.Conn, error))(nil), false},
		{"another method value", (&net.Resolver{}).LookupHost, false},
	} {
		got := netDialer(tc.dial)
		if (got != nil) != tc.want {
			t.Errorf("%s: got %v, want a dialer %v", tc.name, got, tc.want)
			continue
		}
		if got != nil && (got.Timeout != d.Timeout || got.KeepAlive != d.KeepAlive || got.FallbackDelay != d.FallbackDelay) {
			t.Errorf("%s: got %+v, want the settings of %+v", tc.name, got, d)
		}
	}
}
