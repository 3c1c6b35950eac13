package instrument

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/heddledbg/heddle"
)

var runtimeOnce = sync.OnceValues(extractRuntime)

// runtimeGo is the go version of the runtime module: the oldest language
// version its source needs (generic type aliases), so that it can be
// required by modules back to that version.
const runtimeGo = "1.23"

// RuntimeSource returns a directory holding the module
// github.com/heddledbg/heddle with the source of heddle's runtime (the root
// package and the rt tree, without tests), extracted from the heddle binary
// into the user's cache directory. Instrumented builds of other modules
// replace the heddle module with this directory, so that they need no
// network access. The directory is named after a hash of its content, so
// that a new heddle never uses an older runtime.
func RuntimeSource() (string, error) { return runtimeOnce() }

func extractRuntime() (string, error) {
	files, err := runtimeFiles()
	if err != nil {
		return "", err
	}
	gomod := "module " + modulePath + "\n\ngo " + runtimeGo + "\n"
	h := sha256.New()
	h.Write([]byte(gomod))
	for _, f := range files {
		data, err := heddle.RuntimeFS.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", f, len(data))
		h.Write(data)
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		if cache, err = os.UserCacheDir(); err != nil {
			return "", fmt.Errorf("extracting heddle's runtime: %w", err)
		}
	}
	dir := filepath.Join(cache, "heddle", "rt-"+hex.EncodeToString(h.Sum(nil))[:16])
	defer trimRuntimes(dir, time.Now())
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		return dir, nil
	}

	// Extract beside the final directory and rename, so that a concurrent
	// or interrupted extraction never leaves a partial runtime behind.
	if err := os.MkdirAll(filepath.Dir(dir), 0o777); err != nil {
		return "", fmt.Errorf("extracting heddle's runtime: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "tmp-rt-")
	if err != nil {
		return "", fmt.Errorf("extracting heddle's runtime: %w", err)
	}
	defer os.RemoveAll(tmp)
	for _, f := range files {
		data, _ := heddle.RuntimeFS.ReadFile(f)
		dst := filepath.Join(tmp, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
			return "", fmt.Errorf("extracting heddle's runtime: %w", err)
		}
		if err := os.WriteFile(dst, data, 0o444); err != nil {
			return "", fmt.Errorf("extracting heddle's runtime: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte(gomod), 0o444); err != nil {
		return "", fmt.Errorf("extracting heddle's runtime: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another extraction may have won the race.
		if _, statErr := os.Stat(filepath.Join(dir, "go.mod")); statErr == nil {
			return dir, nil
		}
		return "", fmt.Errorf("extracting heddle's runtime: %w", err)
	}
	return dir, nil
}

// trimRuntimes marks dir, the runtime in use, as used now, and deletes the runtimes beside it
// that no heddle has used for trimAge (those of heddles since replaced), as the rewrite cache
// trims its entries, and what interrupted extractions left.
func trimRuntimes(dir string, now time.Time) {
	if fi, err := os.Stat(dir); err == nil && now.Sub(fi.ModTime()) > touchInterval {
		os.Chtimes(dir, now, now)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || name == filepath.Base(dir) || !strings.HasPrefix(name, "rt-") && !strings.HasPrefix(name, "tmp-rt-") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if age := now.Sub(fi.ModTime()); strings.HasPrefix(name, "tmp-") && age > touchInterval || age > trimAge {
			os.RemoveAll(filepath.Join(filepath.Dir(dir), name))
		}
	}
}

// runtimeFiles lists the embedded files that belong in the runtime module:
// the sources (Go and assembly) that are not tests and not test data.
func runtimeFiles() ([]string, error) {
	var files []string
	err := fs.WalkDir(heddle.RuntimeFS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return fs.SkipDir
			}
			return nil
		}
		if ext := path.Ext(p); (ext == ".go" || ext == ".s") && !strings.HasSuffix(p, "_test.go") {
			files = append(files, p)
		}
		return nil
	})
	return files, err
}
