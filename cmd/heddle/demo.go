package main

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/heddledbg/heddle/record"
)

// The demo module is stored with .txt names so that the go command does not treat it as
// part of heddle's own module.
//
//go:embed demo
var demoFS embed.FS

// cmdDemo writes the bundled example module to a temporary directory and explores its tests.
func cmdDemo(args []string) int {
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "heddle:", err)
		return exitUsage
	}
	// The example stays on disk, so that the replay commands printed below work.
	dir := filepath.Join(wd, record.ResultDir, "demo", "src")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "heddle:", err)
		return exitUsage
	}
	err = fs.WalkDir(demoFS, "demo", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := demoFS.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, strings.TrimSuffix(filepath.Base(p), ".txt")), data, 0o644)
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "heddle:", err)
		return exitUsage
	}
	src, _ := demoFS.ReadFile("demo/bank.go.txt")
	fmt.Printf("heddle demo: exploring the tests of a small bank package (bank.go):\n\n%s\n", indent(string(src)))
	out := filepath.Join(wd, record.ResultDir, "demo")
	code := cmdTestIn(dir, append([]string{"-v", "-out", out}, args...))
	if code != exitBug {
		return code
	}
	fmt.Printf("\nheddle found the bugs the example hides. Its sources are in %s;\n", dir)
	fmt.Println("each replay command above re-runs a bug's exact interleaving step by step.")
	fmt.Println("heddle demo -serve shows the same exploration in the web view, where each bug opens")
	fmt.Println("in the debugger; heddle dap serves the debugger to an editor.")
	// Bugs were found: exit as heddle test does, so that a script sees them.
	return exitBug
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ") + "\n"
}
