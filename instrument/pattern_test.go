package instrument

import "testing"

func TestMatchPattern(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"example.com/a", "example.com/a", true},
		{"example.com/a", "example.com/ab", false},
		{"example.com/a/...", "example.com/a", true},
		{"example.com/a/...", "example.com/a/b/c", true},
		{"example.com/a/...", "example.com/ab", false},
		{"example.com/.../internal", "example.com/x/y/internal", true},
		{"...", "anything/at/all", true},
		{"example.com/a.b", "example.com/aXb", false},
	} {
		if got := matchPattern(c.pattern, c.path); got != c.want {
			t.Errorf("matchPattern(%q, %q) = %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
}
