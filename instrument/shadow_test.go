package instrument

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/heddledbg/heddle/internal/golden"
	"golang.org/x/tools/go/packages"
)

// A shadowSpec describes one shadow package: which names of the standard
// package forward to rt (and under which name there), the rest being
// re-exported unchanged.
type shadowSpec struct {
	std        string
	controlled map[string]string // std name → rt name; nil means all
	// stdFiles are files of the standard package that the shadow package compiles as
	// heddle's rewriter instruments them, generated beside api.go under the same name: the
	// controlled names they declare are Go's own code, run under control.
	stdFiles []string
}

// localShadows are the shadow packages whose controlled names are declared in the shadow
// package itself (the virtual network's by hand, io's Pipe by std's own code), not forwarded to
// rt.
var localShadows = map[string]bool{"net": true, "net/http/httptest": true, "io": true, "crypto/tls": true,
	"net/rpc": true, "net/rpc/jsonrpc": true}

var shadowSpecs = []shadowSpec{
	{std: "sync", controlled: names("Mutex", "RWMutex", "WaitGroup", "Cond", "Once", "Map", "Pool",
		"NewCond", "OnceFunc", "OnceValue", "OnceValues")},
	{std: "sync/atomic"},
	{std: "time", controlled: names("Now", "Since", "Until", "Sleep", "After", "Tick", "NewTimer", "NewTicker",
		"AfterFunc", "Timer", "Ticker")},
	{std: "context", controlled: merge(names("WithCancel", "WithCancelCause", "WithTimeout", "WithTimeoutCause",
		"WithDeadline", "WithDeadlineCause", "Cause", "WithoutCancel", "WithValue"), map[string]string{"AfterFunc": "ContextAfterFunc"})},
	{std: "math/rand", controlled: merge(methodsOf("RandV1()", "ExpFloat64", "Float32", "Float64", "Int", "Int31", "Int31n", "Int63", "Int63n",
		"Intn", "NormFloat64", "Perm", "Seed", "Shuffle", "Uint32", "Uint64"), map[string]string{"Read": "RandRead"})},
	{std: "math/rand/v2", controlled: merge(methodsOf("RandV2()", "ExpFloat64", "Float32", "Float64", "Int", "Int32", "Int32N", "Int64",
		"Int64N", "IntN", "NormFloat64", "Perm", "Shuffle", "Uint", "Uint32", "Uint32N", "Uint64", "Uint64N", "UintN"),
		map[string]string{"N": "RandN"})},
	{std: "io", controlled: names("Pipe", "PipeReader", "PipeWriter"), stdFiles: []string{"pipe.go"}},
	{std: "net", controlled: names("Listen", "Dial", "DialTimeout", "Dialer", "Pipe",
		"ListenTCP", "DialTCP", "TCPListener", "TCPConn",
		"ListenUDP", "DialUDP", "ListenPacket", "ListenMulticastUDP", "UDPConn",
		"ListenUnix", "DialUnix", "ListenUnixgram", "UnixListener", "UnixConn", "ListenConfig",
		"FileConn", "FileListener", "FilePacketConn"),
		stdFiles: []string{"pipe.go"}},
	{std: "net/http/httptest", controlled: names("Server", "NewServer", "NewUnstartedServer", "NewTLSServer")},
	{std: "crypto/tls", controlled: names("Conn", "Client", "Server", "Dial", "DialWithDialer", "Dialer",
		"Listen", "NewListener")},
	// The whole of net/rpc and its JSON codec, std's own code: the client's reader and the
	// server's connections are goroutines of the run.
	{std: "net/rpc", stdFiles: []string{"client.go", "server.go", "debug.go"}},
	{std: "net/rpc/jsonrpc", stdFiles: []string{"client.go", "server.go"}},
}

// methodsOf maps each name to the method of that name of the value that rt's expression recv
// returns.
func methodsOf(recv string, list ...string) map[string]string {
	m := make(map[string]string)
	for _, n := range list {
		m[n] = recv + "." + n
	}
	return m
}

func names(list ...string) map[string]string {
	m := make(map[string]string)
	for _, n := range list {
		m[n] = n
	}
	return m
}

func merge(a, b map[string]string) map[string]string {
	for k, v := range b {
		a[k] = v
	}
	return a
}

func (s shadowSpec) dir() string { return filepath.Join("..", "rt", filepath.FromSlash(s.std)) }

// rtName returns the rt name that a controlled std name forwards to.
func (s shadowSpec) rtName(name string) (string, bool) {
	if s.controlled == nil {
		return name, true
	}
	n, ok := s.controlled[name]
	return n, ok
}

// generate returns the source of the shadow package's api.go.
func (s shadowSpec) generate(std *types.Package) ([]byte, error) {
	var b bytes.Buffer
	imports := map[string]bool{s.std: false}
	qual := func(p *types.Package) string {
		if p == std {
			return "" // The shadow package declares every name of std.
		}
		imports[p.Path()] = true
		return p.Name()
	}
	usesStd, usesRT := false, false
	scope := std.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		rtName, controlled := s.rtName(name)
		if controlled && localShadows[s.std] {
			continue
		}
		from := std.Name()
		if !controlled {
			rtName = name
		}
		if controlled {
			from = "rt"
			usesRT = true
		} else {
			usesStd = true
		}
		switch obj := obj.(type) {
		case *types.Const:
			fmt.Fprintf(&b, "const %s = %s.%s\n\n", name, from, name)
		case *types.Var:
			fmt.Fprintf(&b, "var %s = %s.%s\n\n", name, from, name)
		case *types.TypeName:
			tparams, targs := typeParams(obj.Type().(interface{ TypeParams() *types.TypeParamList }).TypeParams(), qual)
			fmt.Fprintf(&b, "type %s%s = %s.%s%s\n\n", name, tparams, from, rtName, targs)
		case *types.Func:
			sig := obj.Type().(*types.Signature)
			tparams, targs := typeParams(sig.TypeParams(), qual)
			var params, args []string
			for i := range sig.Params().Len() {
				p := sig.Params().At(i)
				pname := p.Name()
				if pname == "" || pname == "_" {
					pname = fmt.Sprintf("p%d", i)
				}
				t, arg := types.TypeString(p.Type(), qual), pname
				if sig.Variadic() && i == sig.Params().Len()-1 {
					t = "..." + strings.TrimPrefix(t, "[]")
					arg += "..."
				}
				params = append(params, pname+" "+t)
				args = append(args, arg)
			}
			results := types.TypeString(sig.Results(), qual)
			if sig.Results().Len() == 1 && sig.Results().At(0).Name() == "" {
				results = types.TypeString(sig.Results().At(0).Type(), qual)
			}
			ret := ""
			if sig.Results().Len() > 0 {
				ret = "return "
			}
			fmt.Fprintf(&b, "func %s%s(%s) %s { %s%s.%s%s(%s) }\n\n", name, tparams,
				strings.Join(params, ", "), results, ret, from, rtName, targs, strings.Join(args, ", "))
		}
	}

	var head bytes.Buffer
	fmt.Fprintf(&head, "// Code generated by TestShadowAPI -update; DO NOT EDIT.\n\npackage %s\n\nimport (\n", std.Name())
	imports[s.std] = usesStd
	paths := make([]string, 0, len(imports))
	for p, used := range imports {
		if used {
			paths = append(paths, p)
		}
	}
	if usesRT {
		paths = append(paths, rtPath)
	}
	slices.Sort(paths)
	for _, p := range paths {
		fmt.Fprintf(&head, "\t%q\n", p)
	}
	head.WriteString(")\n\n")
	head.Write(b.Bytes())
	out, err := format.Source(head.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%v\n%s", err, head.Bytes())
	}
	// One pass is not always gofmt's fixed point: a one-line function whose type parameter's
	// constraint the first pass breaks onto lines gets its body broken too by the second
	// (rt/math/rand/v2's N). The files must be gofmt-clean.
	for range 3 {
		again, err := format.Source(out)
		if err != nil || bytes.Equal(again, out) {
			break
		}
		out = again
	}
	return out, nil
}

// stdHeader starts a file of a standard package that the rewriter instrumented. It names the Go
// release it came from: a file generated by another release passes the check as long as the
// rest is the same, std's code being unchanged.
const stdHeader = "// Code generated by TestShadowAPI -update from %s of %s, instrumented; DO NOT EDIT.\n\n"

// checkStdFiles checks (or, under -update, writes) the instrumented copies of s's files of its
// standard package, compiled with the shadow package's api.go (apiSrc).
func checkStdFiles(t *testing.T, s shadowSpec, apiSrc []byte) {
	t.Helper()
	srcs, err := generateStdFiles(s, apiSrc)
	if err != nil {
		t.Fatalf("%s: %v", s.std, err)
	}
	for _, name := range s.stdFiles {
		stdPath := path.Join(s.std, name)
		file := filepath.Join(s.dir(), name)
		if golden.Updating() {
			if err := os.WriteFile(file, srcs[name], 0o666); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(file)
		_, oldBody, _ := bytes.Cut(old, []byte("\n"))
		_, body, _ := bytes.Cut(srcs[name], []byte("\n"))
		if err != nil || !bytes.Equal(oldBody, body) {
			t.Errorf("%s is out of date with %s of %s; run go test ./instrument -run TestShadowAPI -update", file, stdPath, runtime.Version())
		}
	}
}

// generateStdFiles returns s's files of its standard package as heddle's rewriter instruments
// them, each with stdHeader on top, by name. The files are type-checked together beside the
// shadow package's api.go, which declares the rest of the package's names as aliases of std's.
// The header is added before rewriting, so that the lines that the rewriter's line directives
// give are the generated file's own.
func generateStdFiles(s shadowSpec, apiSrc []byte) (map[string][]byte, error) {
	srcs := make(map[string][]byte)
	for _, name := range s.stdFiles {
		stdPath := path.Join(s.std, name)
		orig, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", filepath.FromSlash(stdPath)))
		if err != nil {
			return nil, err
		}
		srcs[name] = append([]byte(fmt.Sprintf(stdHeader, stdPath, runtime.Version())), orig...)
	}
	fset, files, pkg, info, err := loadStdFiles(s, srcs, apiSrc)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte)
	for _, name := range s.stdFiles {
		o, _, err := rewriteFile(fset, files[name], srcs[name], name, pkg, info)
		if err != nil {
			return nil, err
		}
		// The file's lines are its own (rewriting keeps every line): the directive that names
		// the first line is not needed.
		// Not gofmt'ed: gofmt would move lines that the line directives name.
		out[name] = bytes.TrimPrefix(o, []byte(fmt.Sprintf("//line %s:1:1\n", name)))
	}
	return out, nil
}

// loadStdFiles type-checks s's std files, whose texts are srcs by name, together beside
// api.go. The variables and constants that the files declare for api.go to re-export
// (io.ErrClosedPipe: errors must stay std's, which code outside compares with) are first
// removed from the texts, and then the imports that only they used, each replaced by a comment
// on as many lines; srcs is updated to the texts it type-checked.
func loadStdFiles(s shadowSpec, srcs map[string][]byte, apiSrc []byte) (*token.FileSet, map[string]*ast.File, *types.Package, *types.Info, error) {
	for {
		fset := token.NewFileSet()
		files := make(map[string]*ast.File)
		all := []*ast.File{}
		for _, name := range s.stdFiles {
			f, err := parser.ParseFile(fset, name, srcs[name], parser.ParseComments)
			if err != nil {
				return nil, nil, nil, nil, err
			}
			files[name] = f
			all = append(all, f)
		}
		api, err := parser.ParseFile(fset, "api.go", apiSrc, 0)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		drop := make(map[string][]ast.Node)
		for name, f := range files {
			for _, d := range f.Decls {
				if d, ok := d.(*ast.GenDecl); ok && (d.Tok == token.VAR || d.Tok == token.CONST) && reexported(s, d) {
					drop[name] = append(drop[name], d)
				}
			}
		}
		if len(drop) == 0 {
			info := &types.Info{
				Types:      make(map[ast.Expr]types.TypeAndValue),
				Defs:       make(map[*ast.Ident]types.Object),
				Uses:       make(map[*ast.Ident]types.Object),
				Implicits:  make(map[ast.Node]types.Object),
				Selections: make(map[*ast.SelectorExpr]*types.Selection),
			}
			conf := types.Config{Importer: importer.Default(), Error: func(err error) {
				te, ok := err.(types.Error)
				if !ok || !strings.Contains(te.Msg, "not used") {
					return
				}
				for name, f := range files {
					for _, imp := range f.Imports {
						if imp.Pos() <= te.Pos && te.Pos < imp.End() {
							drop[name] = append(drop[name], imp)
						}
					}
				}
			}}
			pkg, err := conf.Check(shadows[s.std], fset, append([]*ast.File{api}, all...), info)
			if len(drop) == 0 {
				return fset, files, pkg, info, err
			}
		}
		for name, nodes := range drop {
			src, tf := srcs[name], fset.File(files[name].Pos())
			for i := len(nodes) - 1; i >= 0; i-- {
				start, end := tf.Offset(nodes[i].Pos()), tf.Offset(nodes[i].End())
				if g, ok := nodes[i].(*ast.GenDecl); ok && g.Doc != nil {
					start = tf.Offset(g.Doc.Pos())
				}
				lines := bytes.Count(src[start:end], []byte("\n"))
				repl := "// " + strings.TrimSpace(strings.SplitN(string(src[tf.Offset(nodes[i].Pos()):end]), "\n", 2)[0]) +
					": removed, api.go re-exports std's" + strings.Repeat("\n//", lines)
				src = append(append(append([]byte(nil), src[:start]...), repl...), src[end:]...)
			}
			srcs[name] = src
		}
	}
}

// reexported reports whether every name that d declares is one that api.go re-exports from
// the standard package.
func reexported(s shadowSpec, d *ast.GenDecl) bool {
	for _, spec := range d.Specs {
		for _, n := range spec.(*ast.ValueSpec).Names {
			if _, controlled := s.rtName(n.Name); !n.IsExported() || controlled {
				return false
			}
		}
	}
	return true
}

func typeParams(list *types.TypeParamList, qual types.Qualifier) (decl, args string) {
	if list.Len() == 0 {
		return "", ""
	}
	var d, a []string
	for i := range list.Len() {
		tp := list.At(i)
		c := tp.Constraint()
		if n, ok := c.(*types.Named); ok && !n.Obj().Exported() {
			c = c.Underlying() // a constraint the shadow package cannot name (math/rand/v2.N's)
		}
		d = append(d, tp.Obj().Name()+" "+types.TypeString(c, qual))
		a = append(a, tp.Obj().Name())
	}
	return "[" + strings.Join(d, ", ") + "]", "[" + strings.Join(a, ", ") + "]"
}

// TestShadowAPI checks that each shadow package's generated api.go is up to
// date (rewriting it with -update), and that the shadow package, compiled
// against rt, has every exported name of its standard counterpart with the
// same kind, type or signature, and method set.
func TestShadowAPI(t *testing.T) {
	imp := importer.Default()
	stds := make(map[string]*types.Package)
	for _, s := range shadowSpecs {
		std, err := imp.Import(s.std)
		if err != nil {
			t.Fatal(err)
		}
		stds[s.std] = std
		src, err := s.generate(std)
		if err != nil {
			t.Fatalf("%s: %v", s.std, err)
		}
		if len(s.stdFiles) > 0 {
			checkStdFiles(t, s, src)
		}
		file := filepath.Join(s.dir(), "api.go")
		if golden.Updating() {
			if err := os.WriteFile(file, src, 0o666); err != nil {
				t.Fatal(err)
			}
			continue
		}
		old, err := os.ReadFile(file)
		if err != nil || !bytes.Equal(old, src) {
			t.Errorf("%s is out of date; run go test ./instrument -run TestShadowAPI -update", file)
		}
	}

	var patterns []string
	for _, s := range shadowSpecs {
		patterns = append(patterns, shadows[s.std])
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedTypes}, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	if n := packages.PrintErrors(pkgs); n > 0 {
		t.Fatalf("shadow packages do not compile against rt")
	}
	for _, p := range pkgs {
		for _, s := range shadowSpecs {
			if shadows[s.std] == p.PkgPath {
				compareAPI(t, stds[s.std], p.Types)
			}
		}
	}
}

// compareAPI reports every exported name of std that shadow lacks or
// declares differently. Types are compared by their unqualified spelling, so
// that rt's types compare equal to the std types they stand for.
func compareAPI(t *testing.T, std, shadow *types.Package) {
	str := func(x types.Type) string { return types.TypeString(x, func(*types.Package) string { return "" }) }
	for _, name := range std.Scope().Names() {
		want := std.Scope().Lookup(name)
		if !want.Exported() {
			continue
		}
		where := std.Path() + "." + name
		got := shadow.Scope().Lookup(name)
		if got == nil {
			t.Errorf("%s: missing from %s", where, shadow.Path())
			continue
		}
		if fmt.Sprintf("%T", got) != fmt.Sprintf("%T", want) {
			t.Errorf("%s: is a %T in %s, want %T", where, got, shadow.Path(), want)
			continue
		}
		switch want := want.(type) {
		case *types.Const:
			if g := got.(*types.Const); g.Val().ExactString() != want.Val().ExactString() || str(g.Type()) != str(want.Type()) {
				t.Errorf("%s = %s %s in %s, want %s %s", where, g.Val(), str(g.Type()), shadow.Path(), want.Val(), str(want.Type()))
			}
		case *types.TypeName:
			wantMS, gotMS := methods(want.Type()), methods(got.Type())
			for m, sig := range wantMS {
				if gotMS[m] != sig {
					t.Errorf("%s.%s: has signature %q in %s, want %q", where, m, gotMS[m], shadow.Path(), sig)
				}
			}
			for m := range gotMS {
				if _, ok := wantMS[m]; !ok {
					t.Errorf("%s.%s: extra exported method in %s", where, m, shadow.Path())
				}
			}
			if st, ok := want.Type().Underlying().(*types.Struct); ok {
				for i := range st.NumFields() {
					if f := st.Field(i); f.Exported() {
						obj, _, _ := types.LookupFieldOrMethod(got.Type(), true, shadow, f.Name())
						if v, ok := obj.(*types.Var); !ok || str(v.Type()) != str(f.Type()) {
							t.Errorf("%s.%s: missing or different field in %s", where, f.Name(), shadow.Path())
						}
					}
				}
			}
		default:
			if g, w := funcString(got.Type()), funcString(want.Type()); g != w {
				t.Errorf("%s: has type %s in %s, want %s", where, g, shadow.Path(), w)
			}
		}
	}
}

// methods returns the exported methods of *T by name, with their signatures.
func methods(t types.Type) map[string]string {
	m := make(map[string]string)
	ms := types.NewMethodSet(types.NewPointer(t))
	for i := range ms.Len() {
		if f := ms.At(i).Obj(); f.Exported() {
			m[f.Name()] = types.TypeString(f.Type(), func(*types.Package) string { return "" })
		}
	}
	return m
}

// funcString spells a type without package names, and the constraints of a generic function
// that the standard package cannot export (math/rand/v2.N's) as the interfaces they stand for.
func funcString(t types.Type) string {
	noPkg := func(*types.Package) string { return "" }
	sig, ok := t.(*types.Signature)
	if !ok || sig.TypeParams().Len() == 0 {
		return types.TypeString(t, noPkg)
	}
	tparams, _ := typeParams(sig.TypeParams(), noPkg)
	plain := types.NewSignatureType(nil, nil, nil, sig.Params(), sig.Results(), sig.Variadic())
	return "func" + tparams + strings.TrimPrefix(types.TypeString(plain, noPkg), "func")
}
