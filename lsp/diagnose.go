package lsp

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/heddledbg/heddle/locktree"
)

// Source is the source of every diagnostic the server publishes.
const Source = "heddle"

// A fileDiagnostic is a diagnostic in one source file.
type fileDiagnostic struct {
	path string
	diag protocol.Diagnostic
}

// diagnose returns the diagnostics of the bugs by source file, sorted by position. A bug
// that names no source position is reported to note.
func diagnose(results []*result, src *sources, note func(string)) map[string][]protocol.Diagnostic {
	out := map[string][]protocol.Diagnostic{}
	// A function that a test found definitely not atomic is not also possibly not atomic.
	type function struct{ test, decl string }
	definite := map[function]bool{}
	for _, r := range results {
		if a := r.atomicity; a != nil && a.Definite && r.path != "" {
			definite[function{r.test, a.Decl.String()}] = true
		}
	}
	for _, r := range results {
		if a := r.atomicity; a != nil && r.path == "" && definite[function{r.test, a.Decl.String()}] {
			continue
		}
		ds := r.diagnostics(src)
		if len(ds) == 0 {
			if r.path == "" {
				note(fmt.Sprintf("heddle: %s: the %s warning of %s on %s names no source position", r.exploration, r.kind, r.test, r.atomicity.Func))
			} else {
				note(fmt.Sprintf("heddle: %s: the %s bug of %s names no source position", r.path, r.kind, r.test))
			}
			continue
		}
		for _, d := range ds {
			out[d.path] = append(out[d.path], d.diag)
		}
	}
	for _, ds := range out {
		slices.SortStableFunc(ds, func(a, b protocol.Diagnostic) int {
			return cmp.Or(cmp.Compare(a.Range.Start.Line, b.Range.Start.Line),
				cmp.Compare(a.Range.Start.Character, b.Range.Start.Character),
				strings.Compare(a.Message, b.Message))
		})
	}
	return out
}

// diagnostics returns the diagnostics of one bug, each at a source line it concerns.
func (r *result) diagnostics(src *sources) []fileDiagnostic {
	if r.atomicity != nil {
		if ds := r.notAtomic(src); len(ds) > 0 || r.trace == nil {
			return ds
		}
	}
	switch r.kind {
	case "lockorder":
		return r.lockOrder(src)
	case "lockcycle":
		return r.lockCycle(src)
	}
	if ds := r.goroutines(src); len(ds) > 0 {
		return ds
	}
	// A failed test (t.Error, t.Fatal) has no goroutine to show; its message says where.
	return r.messagePositions(src)
}

// diagnostic returns a diagnostic of the bug at a line of a file. Its data names the trace,
// so that the code action to replay the bug needs no state of the server.
func (r *result) diagnostic(src *sources, path string, line int, msg string, related []protocol.DiagnosticRelatedInformation) fileDiagnostic {
	return fileDiagnostic{path: path, diag: protocol.Diagnostic{
		Range:              src.lineRange(path, line),
		Severity:           protocol.DiagnosticSeverityWarning,
		Code:               r.kind,
		Source:             Source,
		Message:            fmt.Sprintf("%s in %s: %s (heddle)", r.kind, r.test, msg),
		RelatedInformation: related,
		Data:               ReplayArgs{Trace: r.path},
	}}
}

func related(src *sources, path string, line int, msg string) protocol.DiagnosticRelatedInformation {
	return protocol.DiagnosticRelatedInformation{Location: src.location(path, line), Message: msg}
}

// goroutines places a diagnostic at each goroutine of the verdict: where it blocked in a
// deadlock or leak, where it failed in a panic, misuse or assertion. The other goroutines of
// a deadlock are related information; so is the stack of a failure.
func (r *result) goroutines(src *sources) []fileDiagnostic {
	type located struct {
		id, state string
		blocked   bool
		path      string
		line      int
		stack     []callSite
	}
	var gs []located
	for _, g := range r.trace.Verdict.Goroutines {
		if g.Pos == nil || g.Pos.Line < 1 {
			continue
		}
		path := r.resolve(g.Pos.File)
		if path == "" {
			continue
		}
		l := located{id: g.ID, state: g.State, blocked: g.State == "blocked", path: path, line: g.Pos.Line}
		if l.blocked {
			l.state = "blocked on " + opName(g.Op)
		}
		for i, f := range g.Stack {
			// The first frame is the goroutine's position; the others are its callers.
			if p := r.resolve(f.File); i > 0 && p != "" && f.Line > 0 {
				l.stack = append(l.stack, callSite{p, f.Line, g.ID + " in " + shortFunc(f.Func)})
			}
		}
		gs = append(gs, l)
	}
	var out []fileDiagnostic
	for i, g := range gs {
		var rel []protocol.DiagnosticRelatedInformation
		var msg string
		if g.blocked {
			msg = fmt.Sprintf("%s %s at %s", g.id, g.state, short(g.path, g.line))
		} else {
			msg = g.id + ": " + cmp.Or(r.message, g.state)
			for _, f := range g.stack {
				rel = append(rel, related(src, f.path, f.line, f.msg))
			}
		}
		for j, o := range gs {
			if j != i {
				rel = append(rel, related(src, o.path, o.line, fmt.Sprintf("%s %s", o.id, o.state)))
			}
		}
		out = append(out, r.diagnostic(src, g.path, g.line, msg, rel))
	}
	return out
}

// callSite is a frame of a stack, shown as related information.
type callSite struct {
	path string
	line int
	msg  string
}

// testPos finds the positions in the message of a failed test: the harness joins the test's
// output lines, "file_test.go:65: text", with "; ".
var testPos = regexp.MustCompile(`([^\s:;]+\.go):(\d+): `)

// messagePositions places a diagnostic at each position the bug's message names.
func (r *result) messagePositions(src *sources) []fileDiagnostic {
	msg := r.message
	ms := testPos.FindAllStringSubmatchIndex(msg, -1)
	var out []fileDiagnostic
	for i, m := range ms {
		end := len(msg)
		if i+1 < len(ms) {
			end = ms[i+1][0]
		}
		line, err := strconv.Atoi(msg[m[4]:m[5]])
		path := r.resolve(msg[m[2]:m[3]])
		if err != nil || line < 1 || path == "" {
			continue
		}
		text := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(msg[m[1]:end]), ";"))
		out = append(out, r.diagnostic(src, path, line, text, nil))
	}
	return out
}

// lockOrder places a diagnostic at the inner acquisition of each side of a lock-order
// inversion, with the outer acquisitions and the other side as related information. The
// positions come from the exploration's lock trees, which were built from the bug's trace.
func (r *result) lockOrder(src *sources) []fileDiagnostic {
	w := r.warning()
	if w == nil {
		return nil
	}
	type side struct {
		g            string
		outer, inner *locktree.Node
	}
	var sides [2]side
	for i, s := range [2]locktree.Side{w.First, w.Second} {
		nodes := lockPath(r.locks, s)
		if len(nodes) == 0 {
			return nil
		}
		inner := nodes[len(nodes)-1]
		outer := nodes[0]
		for _, n := range nodes {
			if n.Lock != inner.Lock && (n.Lock == w.Locks[0] || n.Lock == w.Locks[1]) {
				outer = n
			}
		}
		sides[i] = side{s.G, outer, inner}
	}
	nests := func(s side) string {
		return fmt.Sprintf("%s %s %s while holding %s", s.g, lockVerb(s.inner), r.locks.Label(s.inner.Lock), r.locks.Label(s.outer.Lock))
	}
	var out []fileDiagnostic
	for i, s := range sides {
		o := sides[1-i]
		path := r.resolve(s.inner.Pos.File)
		if path == "" || s.inner.Pos.Line < 1 {
			continue
		}
		var rel []protocol.DiagnosticRelatedInformation
		add := func(p locktree.Pos, msg string) {
			if path := r.resolve(p.File); path != "" && p.Line > 0 {
				rel = append(rel, related(src, path, p.Line, msg))
			}
		}
		add(s.outer.Pos, fmt.Sprintf("%s %s %s", s.g, lockVerb(s.outer), r.locks.Label(s.outer.Lock)))
		add(o.inner.Pos, nests(o))
		add(o.outer.Pos, fmt.Sprintf("%s %s %s", o.g, lockVerb(o.outer), r.locks.Label(o.outer.Lock)))
		msg := fmt.Sprintf("%s, and %s takes them in the opposite order", nests(s), o.g)
		out = append(out, r.diagnostic(src, path, s.inner.Pos.Line, msg, rel))
	}
	return out
}

// warning returns the lock-order warning of the exploration that the bug reports. The
// explorer names the two locks at the start of the bug's message.
func (r *result) warning() *locktree.Warning {
	if r.locks == nil {
		return nil
	}
	ws := r.locks.Warnings
	for i := range ws {
		if strings.HasPrefix(r.message, fmt.Sprintf("lock-order inversion between %s and %s:", r.locks.Label(ws[i].Locks[0]), r.locks.Label(ws[i].Locks[1]))) {
			return &ws[i]
		}
	}
	if len(ws) == 1 {
		return &ws[0]
	}
	return nil
}

// lockPath returns the nodes of the lock tree of s.G along s.Path, or nil if the tree does
// not have that path.
func lockPath(rep *locktree.Report, s locktree.Side) []*locktree.Node {
	for i := range rep.Trees {
		t := &rep.Trees[i]
		if t.G != s.G {
			continue
		}
		var nodes []*locktree.Node
		cur := &t.Root
	path:
		for _, l := range s.Path {
			for j := range cur.Children {
				if c := &cur.Children[j]; c.Lock == l {
					nodes = append(nodes, c)
					cur = c
					continue path
				}
			}
			return nil
		}
		return nodes
	}
	return nil
}

func lockVerb(n *locktree.Node) string {
	if n.Read {
		return "read-locks"
	}
	return "locks"
}

// cycleLink finds the links of a predicted lock cycle in its message, which is all the
// explorer records of it: its trace is the run it was predicted from, which ended well.
var cycleLink = regexp.MustCompile(`(G[0-9.]+) holds (\S+) \(locked(?: at ([^\s)]+))?\) and waits for (\S+) \(Lock(?: at ([^\s)]+))?\)`)

// lockCycle places a diagnostic at the acquisition each goroutine of a predicted lock
// cycle waits in, with where it took the lock it holds and the other goroutines' waits as
// related information.
func (r *result) lockCycle(src *sources) []fileDiagnostic {
	type link struct {
		g, holds, wants string
		heldPath        string
		heldLine        int
		waitPath        string
		waitLine        int
	}
	var links []link
	for _, m := range cycleLink.FindAllStringSubmatch(r.message, -1) {
		l := link{g: m[1], holds: m[2], wants: m[4]}
		l.heldPath, l.heldLine = r.resolvePos(m[3])
		l.waitPath, l.waitLine = r.resolvePos(m[5])
		links = append(links, l)
	}
	desc := func(l link) string { return fmt.Sprintf("%s holds %s and waits for %s", l.g, l.holds, l.wants) }
	var out []fileDiagnostic
	for i, l := range links {
		if l.waitPath == "" {
			continue
		}
		var rel []protocol.DiagnosticRelatedInformation
		if l.heldPath != "" {
			rel = append(rel, related(src, l.heldPath, l.heldLine, fmt.Sprintf("%s locks %s", l.g, l.holds)))
		}
		for j, o := range links {
			if j != i && o.waitPath != "" {
				rel = append(rel, related(src, o.waitPath, o.waitLine, desc(o)))
			}
		}
		msg := desc(l) + "; a deadlock predicted from the lock order, not executed"
		out = append(out, r.diagnostic(src, l.waitPath, l.waitLine, msg, rel))
	}
	return out
}

// resolvePos resolves a "file.go:17" position of a message.
func (r *result) resolvePos(s string) (path string, line int) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return "", 0
	}
	line, err := strconv.Atoi(s[i+1:])
	if err != nil || line < 1 {
		return "", 0
	}
	if path = r.resolve(s[:i]); path == "" {
		return "", 0
	}
	return path, line
}

// resolve returns the absolute path of a file a trace names. Positions are absolute, but
// messages (Go's test output, heddle's predictions) name files by their base name: such a
// name is looked up among the files the trace visited, preferring the test's directory.
func (r *result) resolve(name string) string {
	if name == "" {
		return ""
	}
	if filepath.IsAbs(name) {
		return filepath.Clean(name)
	}
	name = filepath.Clean(filepath.FromSlash(name))
	dir := r.dir
	var found []string
	for _, f := range r.files {
		if strings.HasSuffix(f, string(filepath.Separator)+name) {
			if dir != "" && filepath.Dir(f) == filepath.Clean(dir) {
				return f
			}
			found = append(found, f)
		}
	}
	if len(found) == 1 {
		return found[0]
	}
	if dir != "" && filepath.IsAbs(dir) {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p
		}
	}
	return ""
}

func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// opNames are the operations of docs/formats.md as a Go programmer calls them.
var opNames = map[string]string{
	"lock":      "Lock",
	"rlock":     "RLock",
	"trylock":   "TryLock",
	"wg.wait":   "WaitGroup.Wait",
	"cond.wait": "Cond.Wait",
	"once":      "Once.Do",
	"send":      "channel send",
	"recv":      "channel receive",
	"select":    "select",
	"sleep":     "Sleep",
	"timer":     "timer",
}

func opName(op string) string {
	if n, ok := opNames[op]; ok {
		return n
	}
	if op == "" {
		return "an operation"
	}
	return op
}

func short(path string, line int) string { return filepath.Base(path) + ":" + strconv.Itoa(line) }

// shortFunc drops the import path of a function name: example.com/bank.(*Account).Withdraw
// is bank.(*Account).Withdraw.
func shortFunc(f string) string {
	if i := strings.LastIndexByte(f, '/'); i >= 0 {
		return f[i+1:]
	}
	return f
}
