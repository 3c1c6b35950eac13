package web

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// HashFile is the file in dist that records the hash of the sources.
const HashFile = "source.sha256"

// buildInputs are the files outside src/ that change what the bundle
// contains. build.mjs lists the same files.
var buildInputs = []string{"build.mjs", "package.json", "package-lock.json", "tsconfig.json"}

// SourceHash computes the hash that build.mjs records in dist/source.sha256,
// over the build inputs found in dir (the web directory). It is the SHA-256
// of one line "path sha256(contents)" per input, paths slash-separated and
// sorted bytewise.
func SourceHash(dir string) (string, error) {
	paths := slices.Clone(buildInputs)
	err := filepath.WalkDir(filepath.Join(dir, "src"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		paths = append(paths, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hash web sources: %w", err)
	}
	slices.Sort(paths)
	var b strings.Builder
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			return "", fmt.Errorf("hash web sources: %w", err)
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s %s\n", p, hex.EncodeToString(sum[:]))
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:]), nil
}
