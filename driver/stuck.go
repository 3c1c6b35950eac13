package driver

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/heddledbg/heddle/internal/spawn"
)

// A worker that neither answers nor makes progress is stopped; before that it is asked for
// the traceback of its goroutines (SIGQUIT), so that the error says where it was stuck rather
// than guess: in the test's TestMain or cleanups, or in heddle's own work.

// quitWait is how long a late worker may take to print its goroutines and exit.
const quitWait = 10 * time.Second

// maxDump bounds the standard error kept from a worker once it is asked for its goroutines.
const maxDump = 4 << 20

// maxShown is how many of a stuck worker's goroutines its error lists.
const maxShown = 10

// quit asks p, which is late, for its goroutines, and waits until it exits (exited is
// closed) or quitWait passed.
func (p *process) quit(exited <-chan struct{}) {
	p.stderr.grow(maxDump)
	if !spawn.Quit(p.cmd) {
		return
	}
	t := time.NewTimer(quitWait)
	defer t.Stop()
	select {
	case <-exited:
	case <-t.C:
	}
}

// stuckOutside is what the error says of a worker that printed no traceback.
const stuckOutside = ": the test is stuck outside the runs heddle controls (in TestMain, or in a cleanup)"

// stuckAt describes where a stopped worker was, from the goroutines it printed to stderr:
// a line per goroutine (the first maxShown), and the file that keeps the whole traceback.
func stuckAt(stderr string) string {
	i := strings.LastIndex(stderr, "SIGQUIT: quit")
	if i < 0 {
		return stuckOutside
	}
	dump := stderr[i:]
	gs := goroutinesOf(dump)
	if len(gs) == 0 {
		return stuckOutside
	}
	var b strings.Builder
	b.WriteString("; its goroutines then:")
	for _, g := range gs[:min(len(gs), maxShown)] {
		b.WriteString("\n\t" + g)
	}
	if len(gs) > maxShown {
		fmt.Fprintf(&b, "\n\tand %d more", len(gs)-maxShown)
	}
	if f, err := os.CreateTemp("", "heddle-goroutines-*.txt"); err == nil {
		_, werr := f.WriteString(dump)
		if cerr := f.Close(); werr == nil && cerr == nil {
			fmt.Fprintf(&b, "\n\t(the whole traceback: %s)", f.Name())
		} else {
			os.Remove(f.Name())
		}
	}
	return b.String()
}

// goroutineHeader is the first line of a goroutine in a Go traceback: its number, the
// runtime's fields that some traceback levels add, and its state in brackets.
var goroutineHeader = regexp.MustCompile(`^goroutine (\d+)(?: [^\[]*)?\[([^\]]*)\]:$`)

// goroutinesOf summarizes the goroutines of a Go traceback, one line each: the number, the
// state the runtime gave it, and its innermost frame outside the runtime, then, if that frame
// is the standard library's, the innermost frame of a module's code. The runtime's own
// goroutines are left out.
func goroutinesOf(dump string) []string {
	var gs []string
	lines := strings.Split(dump, "\n")
	goroot := gorootOf(lines)
	for i := 0; i < len(lines); i++ {
		m := goroutineHeader.FindStringSubmatch(lines[i])
		if m == nil || m[1] == "0" {
			continue
		}
		var inner, module string
		for j := i + 1; j+1 < len(lines) && lines[j] != "" && !strings.HasPrefix(lines[j], "created by "); j++ {
			if strings.HasPrefix(lines[j], "...") || strings.HasPrefix(lines[j], "\t") {
				continue // frames elided, or a file line whose function was read already
			}
			fn, file := lines[j], strings.TrimSpace(lines[j+1])
			if k := strings.LastIndex(fn, "("); k > 0 {
				fn = fn[:k]
			}
			if k := strings.Index(file, " "); k > 0 {
				file = file[:k]
			}
			frame := fn + " (" + filepath.Base(file) + ")"
			if inner == "" && !strings.HasPrefix(fn, "runtime.") && !strings.HasPrefix(fn, "internal/") && !strings.HasPrefix(fn, "syscall.") {
				inner = frame
			}
			if !standard(fn, file, goroot) {
				module = frame
				break
			}
		}
		if inner == "" {
			continue // the runtime's own: the collector's, the finalizers'
		}
		where := inner
		if module != "" && module != inner {
			where += ", in " + module
		}
		gs = append(gs, fmt.Sprintf("goroutine %s [%s]: %s", m[1], m[2], where))
	}
	return gs
}

// standard reports whether the frame of function fn, at file, is the standard library's: its
// package's import path has no dot in its first element, and the file is under goroot's src
// (the directory of the traceback's runtime frames), or, when that is unknown, in its
// package's directory under a src directory. Package main, or a module whose path has no dot,
// is not.
func standard(fn, file, goroot string) bool {
	pkg := fn
	slash := strings.LastIndex(pkg, "/")
	if dot := strings.Index(pkg[slash+1:], "."); dot >= 0 {
		pkg = pkg[:slash+1+dot]
	}
	if first, _, _ := strings.Cut(pkg, "/"); strings.Contains(first, ".") {
		return false
	}
	file = filepath.ToSlash(file)
	if goroot != "" {
		return strings.HasPrefix(file, goroot+"/src/")
	}
	return strings.HasSuffix(filepath.ToSlash(filepath.Dir(file)), "/src/"+pkg)
}

// gorootOf finds GOROOT in a traceback: the directory above src/runtime in a runtime frame's
// file, or "" if no frame shows it.
func gorootOf(lines []string) string {
	for i := 0; i+1 < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "runtime.") {
			continue
		}
		if dir, _, ok := strings.Cut(filepath.ToSlash(strings.TrimSpace(lines[i+1])), "/src/runtime/"); ok {
			return dir
		}
	}
	return ""
}
