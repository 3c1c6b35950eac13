package heddle_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var (
	// mdLink matches a Markdown link or image: its target, without a title.
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	// codePath matches a code span that names a file of the repository by its path from the
	// root, such as rt/carrier.go or docs/time.md.
	codePath = regexp.MustCompile("`((?:[a-z][a-z0-9_-]*/)+[A-Za-z0-9_.-]+\\.(?:go|md|ts|sh|json))`")
)

// TestDocLinks checks the repository's Markdown files: every link is either to a public URL or
// to a file of the repository, and a link to a heading of a Markdown file names a heading it
// has; every code span that spells a source or doc file's path from the root (`rt/carrier.go`)
// names a file that exists. A doc that cites a moved, renamed or never committed file fails.
func TestDocLinks(t *testing.T) {
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || d.Name() == "vendor") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			docs = append(docs, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("no Markdown files found")
	}
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, m := range mdLink.FindAllStringSubmatch(withoutFences(text), -1) {
			if msg := checkLink(root, doc, m[1]); msg != "" {
				t.Errorf("%s: link %s: %s", doc, m[1], msg)
			}
		}
		if !strings.HasPrefix(filepath.ToSlash(doc), "docs/") && doc != "README.md" {
			continue
		}
		for _, m := range codePath.FindAllStringSubmatch(text, -1) {
			if _, err := os.Stat(filepath.FromSlash(m[1])); err != nil {
				t.Errorf("%s: names %s, which is not a file of the repository", doc, m[1])
			}
		}
	}
}

// checkLink returns what is wrong with the link target from the Markdown file doc, or "".
func checkLink(root, doc, target string) string {
	if strings.HasPrefix(target, "https://") || strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	if strings.Contains(target, "://") {
		return "not a public URL"
	}
	file, anchor, _ := strings.Cut(target, "#")
	path := doc
	if file != "" {
		if filepath.IsAbs(file) {
			return "an absolute path, outside the repository"
		}
		path = filepath.Join(filepath.Dir(doc), filepath.FromSlash(file))
		if rel, err := filepath.Rel(root, filepath.Join(root, path)); err != nil || strings.HasPrefix(rel, "..") {
			return "outside the repository"
		}
		if _, err := os.Stat(path); err != nil {
			return "no such file in the repository"
		}
	}
	if anchor == "" || !strings.HasSuffix(path, ".md") {
		return ""
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	for _, l := range strings.Split(withoutFences(string(b)), "\n") {
		if h, ok := strings.CutPrefix(strings.TrimLeft(l, "#"), " "); ok && strings.HasPrefix(l, "#") && slug(h) == anchor {
			return ""
		}
	}
	return "no heading #" + anchor + " in " + filepath.ToSlash(path)
}

// slug is the anchor GitHub gives a heading: lower case, spaces to hyphens, punctuation other
// than hyphens and underscores dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// withoutFences returns text with its fenced code blocks blanked out, lines kept.
func withoutFences(text string) string {
	lines := strings.Split(text, "\n")
	in := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			lines[i] = ""
			continue
		}
		if in {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ heading, want string }{
		{"`heddle test`'s output", "heddle-tests-output"},
		{"The results directory and its bounds", "the-results-directory-and-its-bounds"},
		{"Stoller's MLD′ during a stoller search", "stollers-mld-during-a-stoller-search"},
		{"One `heddle test`", "one-heddle-test"},
	} {
		if got := slug(tc.heading); got != tc.want {
			t.Errorf("slug(%q) = %q, want %q", tc.heading, got, tc.want)
		}
	}
}
