package lsp

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heddledbg/heddle/record"
)

// TestLoaderCache checks that the loader reads a result file again only when it changed,
// and reads no trace that the exploration does not list; an exploration compressed or plain.
func TestLoaderCache(t *testing.T) {
	src := filepath.Join("testdata", "workspace", "dot-heddle", "example.com", "bank")
	root := t.TempDir()
	for _, f := range []string{"TestTransfer/exploration.json", "TestTransfer/deadlock-1.trace.json", "TestTransfer/deadlock-3.trace.json",
		"TestTransfer/lockorder-2.trace.json", "TestNotify/leak-1.trace.json"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l := newLoader()
	noWarning := func(msg string) { t.Errorf("warning: %s", msg) }
	steps := []struct {
		name      string
		change    func()
		reads     int // files read by the step
		results   int
		cacheSize int
	}{
		// The exploration, the two traces it lists and the leak; not the stale deadlock-3.
		{"first", func() {}, 4, 3, 4},
		{"unchanged", func() {}, 0, 3, 4},
		{"one trace rewritten", func() {
			path := filepath.Join(root, "TestNotify", "leak-1.trace.json")
			data, _ := os.ReadFile(path)
			os.WriteFile(path, []byte(strings.Replace(string(data), `"line": 25`, `"line": 24`, 1)), 0o644)
			os.Chtimes(path, time.Now(), time.Now().Add(time.Second))
		}, 1, 3, 4},
		{"one trace removed", func() { os.Remove(filepath.Join(root, "TestNotify", "leak-1.trace.json")) }, 0, 2, 3},
		// heddle test now writes the exploration compressed, and removes the plain one.
		{"exploration compressed", func() {
			plain := filepath.Join(root, "TestTransfer", record.PlainExplorationFile)
			data, _ := os.ReadFile(plain)
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			zw.Write(data)
			zw.Close()
			os.WriteFile(filepath.Join(root, "TestTransfer", record.ExplorationFile), buf.Bytes(), 0o644)
			os.Remove(plain)
		}, 1, 2, 3},
		// A plain exploration beside the compressed one is an earlier version's, not read.
		{"stale plain exploration", func() {
			os.WriteFile(filepath.Join(root, "TestTransfer", record.PlainExplorationFile), []byte("{"), 0o644)
		}, 0, 2, 3},
	}
	for _, st := range steps {
		st.change()
		before := l.reads
		rs := l.results([]string{root}, noWarning)
		if got := l.reads - before; got != st.reads {
			t.Errorf("%s: %d files read, want %d", st.name, got, st.reads)
		}
		if len(rs) != st.results || len(l.cache) != st.cacheSize {
			t.Errorf("%s: %d results, %d cached files; want %d and %d", st.name, len(rs), len(l.cache), st.results, st.cacheSize)
		}
	}
}
