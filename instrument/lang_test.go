package instrument

import "testing"

// TestWithLang checks how a file's build constraint gives it its module's language: combined
// with an existing //go:build line in its place, with // +build lines (which go, since the go
// command rejects those that differ from //go:build), or on top of a file without one (a
// rewritten file too), with a //line directive that keeps the file's lines.
func TestWithLang(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"none", "package p\n", "//go:build go1.21\n\n//line /m/a.go:1:1\npackage p\n"},
		{"gobuild", "// Copyright.\n\n//go:build linux || darwin\n\npackage p\n", "// Copyright.\n\n//go:build (linux || darwin) && go1.21\n\npackage p\n"},
		{"plusbuild", "// +build linux\n// +build amd64\n\npackage p\n", "//go:build linux && amd64 && go1.21\n\n//line /m/a.go:1:1\n//\n//\n\npackage p\n"},
		{"both", "//go:build go1.20\n// +build go1.20\n\npackage p\n", "//go:build go1.20 && go1.21\n//\n\npackage p\n"},
		{"rewritten", "//line /m/a.go:1:1\n//go:build !race\n\npackage p\n", "//line /m/a.go:1:1\n//go:build !race && go1.21\n\npackage p\n"},
		{"afterpackage", "package p\n\n//go:build ignore\n", "//go:build go1.21\n\n//line /m/a.go:1:1\npackage p\n\n//go:build ignore\n"},
	} {
		got, err := withLang([]byte(tc.src), "/m/a.go", "go1.21")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}
