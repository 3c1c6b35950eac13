package web

import (
	"io/fs"
	"strings"
	"testing"
)

// TestBundleCurrent fails when dist was not rebuilt after a change to the
// sources: run npm run build in web/.
func TestBundleCurrent(t *testing.T) {
	want, err := SourceHash(".")
	if err != nil {
		t.Fatal(err)
	}
	got, err := fs.ReadFile(Assets, HashFile)
	if err != nil {
		t.Fatalf("read embedded %s: %v", HashFile, err)
	}
	if strings.TrimSpace(string(got)) != want {
		t.Errorf("web/dist is stale: built from sources with hash %s, sources now hash to %s; run npm run build in web/", strings.TrimSpace(string(got)), want)
	}
}

func TestAssets(t *testing.T) {
	for _, name := range []string{"index.html", "app.js", "app.css"} {
		data, err := fs.ReadFile(Assets, name)
		if err != nil {
			t.Errorf("embedded %s: %v", name, err)
			continue
		}
		if len(data) == 0 {
			t.Errorf("embedded %s is empty", name)
		}
	}
	index, err := fs.ReadFile(Assets, "index.html")
	if err == nil && !strings.Contains(string(index), TokenPlaceholder) {
		t.Errorf("index.html lacks the token placeholder %s", TokenPlaceholder)
	}
}
