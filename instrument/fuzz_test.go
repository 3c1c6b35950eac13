package instrument

import (
	"fmt"
	"strings"
	"testing"
)

// A program generator draws statements from a small grammar of channel,
// goroutine, select and sync operations, driven by the fuzzer's bytes.
type program struct {
	data  []byte
	b     strings.Builder
	label int
}

func (p *program) next(n int) int {
	if len(p.data) == 0 {
		return 0
	}
	v := int(p.data[0]) % n
	p.data = p.data[1:]
	return v
}

const programHeader = `package p

import (
	"runtime"
	"sync"
	"time"
)

type C chan int

type P struct{ a, b int }

func g() int             { return 1 }
func h(int, ...int)      {}
func pick(c C) chan int  { return c }

func f(a chan int, b C, s chan<- int, r <-chan int, cc chan chan int, pc chan P, mu *sync.Mutex, wg *sync.WaitGroup) (x int) {
	var ok bool
	_ = ok
`

const programFooter = `	return x
}

var _ = runtime.GOOS
var _ = time.Second
`

var simpleStmts = []string{
	"a <- x",
	"b <- g()",
	"x = <-a + <-b",
	"x, ok = <-r",
	"if v, ok := <-a; ok { x += v }",
	"go h(x, <-a)",
	"go h(g(), x, <-b)",
	"go func() { s <- 1 }()",
	"go func(v int) { a <- v }(x)",
	"go mu.Unlock()",
	"go close(a)",
	"close(s)",
	"x += len(a) + cap(b) + len(r)",
	"mu.Lock(); mu.Unlock()",
	"wg.Add(1); go wg.Done(); wg.Wait()",
	"runtime.Gosched()",
	"time.Sleep(time.Duration(x))",
	"(<-cc) <- x",
	"x = <-<-cc",
	"{ d := make(chan int, x); d <- 1; x = <-d }",
	"{ e := make(C); _ = e }",
	"h(<-a, <-b, <-r)",
	"wg.Go(func() { a <- <-b })",
	"for v := range b { x += v; break }",
	"for range r { continue }",
	"select {}",
}

// stmt writes one statement, nesting up to depth.
func (p *program) stmt(depth int) {
	if depth > 0 {
		switch p.next(6) {
		case 0:
			p.label++
			l := fmt.Sprintf("L%d", p.label)
			fmt.Fprintf(&p.b, "%s:\nfor {\n", l)
			p.stmts(depth - 1)
			fmt.Fprintf(&p.b, "break %s\n}\n", l)
			return
		case 1:
			p.selectStmt(depth - 1)
			return
		case 2:
			p.b.WriteString("if <-a > 0 {\n")
			p.stmts(depth - 1)
			p.b.WriteString("}\n")
			return
		}
	}
	s := simpleStmts[p.next(len(simpleStmts))]
	if s == "select {}" {
		// Only as the last statement would it make the rest unreachable,
		// which is fine for the type checker.
		s = "if x < 0 { select {} }"
	}
	p.b.WriteString(s + "\n")
}

func (p *program) stmts(depth int) {
	for n := p.next(3) + 1; n > 0; n-- {
		p.stmt(depth)
	}
}

var commClauses = []string{
	"case x = <-a:",
	"case v := <-b: x += v",
	"case v, ok := <-r: _ = ok; x = v",
	"case x, ok = <-pick(b):",
	"case s <- g():",
	"case pick(b) <- x + 1:",
	"case <-time.After(time.Second):",
	"case (<-cc) <- 1:",
	"case <-a: break",
	"case pc <- P{x, g()}:",
	"case []chan P{pc}[0] <- P{a: 1}:",
	"case v := <-[]chan P{pc}[x&0]: x = v.b",
}

func (p *program) selectStmt(depth int) {
	p.label++
	l := fmt.Sprintf("S%d", p.label)
	fmt.Fprintf(&p.b, "%s:\nselect {\n", l)
	for n := p.next(4); n >= 0; n-- {
		p.b.WriteString(commClauses[p.next(len(commClauses))] + "\n")
		if p.next(3) == 0 {
			p.stmts(depth)
		}
		fmt.Fprintf(&p.b, "break %s\n", l)
	}
	if p.next(2) == 0 {
		p.b.WriteString("default:\n")
	}
	p.b.WriteString("}\n")
}

func generate(data []byte) string {
	p := &program{data: data}
	p.b.WriteString(programHeader)
	for len(p.data) > 0 {
		p.stmt(2)
	}
	p.b.WriteString(programFooter)
	return p.b.String()
}

// FuzzRewrite instruments generated programs and checks that the result
// type-checks against heddle's runtime and keeps every identifier's
// position.
func FuzzRewrite(f *testing.F) {
	for _, seed := range []string{"", "\x00", "\x01\x02\x03", "abcdefghijklmnopqrstuvwxyz", "\x01\x01\x01\x05\x07\x09",
		"\x00\x01\x02\x01\x04\x05\x01\x01\x03\x02", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64 {
			data = data[:64]
		}
		src := []byte(generate(data))
		if _, _, _, _, err := check.load("fuzz.go", src); err != nil {
			t.Fatalf("generated program does not type-check: %v\n%s", err, src)
		}
		out, _, err := rewriteSource("fuzz.go", src)
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		if _, _, _, _, err := check.load("fuzz.go", out); err != nil {
			t.Fatalf("rewritten program does not type-check: %v\n--- original:\n%s\n--- rewritten:\n%s", err, src, out)
		}
		checkLines(t, src, out)
	})
}
