package directive

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

func TestDirective(t *testing.T) {
	src := `package p

//heddle:atomic
func Plain() {}

// Len says how long.
//
//heddle:atomic keeps the count and the items together
func (b *Buffer[T]) Len() int { return 0 }

//heddle:atomically
func (Buffer[T]) NotAtomic() {}

// Neither.
func (b Buffer) Put() {}
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name   string
		atomic bool
	}{
		{"Plain", true},
		{"(*Buffer).Len", true},
		{"Buffer.NotAtomic", false},
		{"Buffer.Put", false},
	}
	for i, d := range f.Decls {
		fd := d.(*ast.FuncDecl)
		if got := FuncName(fd); got != want[i].name {
			t.Errorf("FuncName of declaration %d = %q, want %q", i, got, want[i].name)
		}
		if got := IsAtomic(fd.Doc); got != want[i].atomic {
			t.Errorf("IsAtomic(%s) = %v, want %v", want[i].name, got, want[i].atomic)
		}
	}
}
