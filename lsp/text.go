package lsp

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// maxSourceSize bounds the source files read from disk to place diagnostics on a line: a
// trace names only the user's own files, and a file larger than this is not source code.
const maxSourceSize = 16 << 20

// errNotFile is the error of pathOf for a URI that does not name a file.
var errNotFile = errors.New("only file URIs are supported")

// pathOf returns the file system path of a file URI. Unlike uri.URI.Filename it returns an
// error instead of panicking on a URI that is not a file URI, which any client can send.
func pathOf(u protocol.DocumentURI) (string, error) {
	p, err := url.Parse(string(u))
	if err != nil {
		return "", fmt.Errorf("malformed URI %q: %v", u, err)
	}
	if p.Scheme != uri.FileScheme {
		return "", fmt.Errorf("URI %q: %w", u, errNotFile)
	}
	path := p.Path
	if path == "" {
		return "", fmt.Errorf("URI %q has no path", u)
	}
	// file:///C:/x is C:/x on Windows.
	if len(path) >= 3 && path[0] == '/' && path[2] == ':' {
		path = path[1:]
	}
	return filepath.FromSlash(path), nil
}

// uriOf returns the file URI of an absolute path.
func uriOf(path string) protocol.DocumentURI { return uri.File(path) }

// utf16Len returns the length of s in UTF-16 code units, the unit of LSP character offsets.
// An invalid byte counts as one unit, as it does once an editor has decoded it to U+FFFD.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// lineText returns the text of the 1-based line n of src, without its line ending, and
// whether src has that line.
func lineText(src string, n int) (string, bool) {
	if n < 1 {
		return "", false
	}
	for i := 1; i < n; i++ {
		j := strings.IndexByte(src, '\n')
		if j < 0 {
			return "", false
		}
		src = src[j+1:]
	}
	if j := strings.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	return strings.TrimSuffix(src, "\r"), true
}

// lineRange returns the range of the 1-based line n of src from its first to its last
// non-blank character, which is where an editor should underline a statement. Without the
// text (a file that cannot be read), the range is empty, at the start of the line.
func lineRange(src string, haveSrc bool, n int) protocol.Range {
	line := uint32(max(n-1, 0))
	empty := protocol.Range{Start: protocol.Position{Line: line}, End: protocol.Position{Line: line}}
	if !haveSrc {
		return empty
	}
	text, ok := lineText(src, n)
	if !ok {
		return empty
	}
	trimmed := strings.TrimRight(text, " \t")
	indent := len(trimmed) - len(strings.TrimLeft(trimmed, " \t"))
	return protocol.Range{
		Start: protocol.Position{Line: line, Character: uint32(indent)},
		End:   protocol.Position{Line: line, Character: uint32(utf16Len(trimmed))},
	}
}

// offsetOf returns the byte offset in src of an LSP position. A position past the end of
// its line is the end of the line, and one past the last line is the end of src, as the
// protocol requires.
func offsetOf(src string, p protocol.Position) int {
	off := 0
	for i := uint32(0); i < p.Line; i++ {
		j := strings.IndexByte(src[off:], '\n')
		if j < 0 {
			return len(src)
		}
		off += j + 1
	}
	units := int(p.Character)
	for off < len(src) && units > 0 && src[off] != '\n' {
		r, size := utf8.DecodeRuneInString(src[off:])
		if r >= 0x10000 {
			units -= 2
		} else {
			units--
		}
		off += size
	}
	return off
}

// sources reads the source files that diagnostics point into, preferring the text of open
// documents to the file on disk, and remembers them for one refresh.
type sources struct {
	open  map[string]string // path → text of the open documents
	files map[string]*string
}

func newSources(open map[string]string) *sources {
	return &sources{open: open, files: map[string]*string{}}
}

// text returns the contents of the file at path, or false if it cannot be read.
func (s *sources) text(path string) (string, bool) {
	if t, ok := s.open[path]; ok {
		return t, true
	}
	if t, ok := s.files[path]; ok {
		return deref(t)
	}
	var text *string
	if t, err := readSmallFile(path, maxSourceSize); err == nil {
		str := string(t)
		text = &str
	}
	s.files[path] = text
	return deref(text)
}

func deref(t *string) (string, bool) {
	if t == nil {
		return "", false
	}
	return *t, true
}

// lineRange returns the range of the 1-based line n of the file at path.
func (s *sources) lineRange(path string, n int) protocol.Range {
	text, ok := s.text(path)
	return lineRange(text, ok, n)
}

// location returns the LSP location of a line of a file.
func (s *sources) location(path string, line int) protocol.Location {
	return protocol.Location{URI: uriOf(path), Range: s.lineRange(path, line)}
}

// readSmallFile reads a regular file of at most limit bytes.
func readSmallFile(path string, limit int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d read", path, fi.Size(), limit)
	}
	return os.ReadFile(path)
}
