package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heddledbg/heddle/internal/golden"
	"github.com/heddledbg/heddle/record"
)

// TestCommitted fails when a committed generated file is not what the Go types generate.
func TestCommitted(t *testing.T) {
	root := filepath.Join("..", "..")
	g, err := generator(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		want, err := generate(g, f)
		if err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.path)))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s is not what the Go types generate; run go run ./internal/tsgen at the repository root (or go generate ./web) to regenerate it.\n%s",
				f.path, diff(string(got), string(want)))
		}
	}
}

// diff lists the lines of the committed file (-) and of the generated one (+) between their
// common beginning and end.
func diff(got, want string) string {
	a, b := strings.Split(got, "\n"), strings.Split(want, "\n")
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var s strings.Builder
	fmt.Fprintf(&s, "@@ line %d @@\n", pre+1)
	for _, l := range a[pre : len(a)-suf] {
		fmt.Fprintf(&s, "-%s\n", l)
	}
	for _, l := range b[pre : len(b)-suf] {
		fmt.Fprintf(&s, "+%s\n", l)
	}
	return s.String()
}

// TestMarshaled checks that what the generator says a type with a MarshalJSON method writes
// is what it writes: the fields of a value with no zero field.
func TestMarshaled(t *testing.T) {
	g, err := generator(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	values := map[reflect.Type]any{
		reflect.TypeFor[record.Stats](): nonZero(reflect.TypeFor[record.Stats]()),
	}
	for typ := range g.Marshaled {
		v, ok := values[typ]
		if !ok {
			t.Errorf("no value of %v to check its MarshalJSON against", typ)
			continue
		}
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		var got []string
		for k := range m {
			got = append(got, k)
		}
		slices.Sort(got)
		if _, err := g.Generate(typ); err != nil {
			t.Fatal(err)
		}
		fields, err := g.fields(typ)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, f := range fields {
			want = append(want, f.name)
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%v marshals to the fields %v, the generator says %v", typ, got, want)
		}
	}
}

// nonZero returns a value of struct type t whose exported fields are not zero.
func nonZero(t reflect.Type) any {
	v := reflect.New(t).Elem()
	for i := range t.NumField() {
		f := v.Field(i)
		if !t.Field(i).IsExported() {
			continue
		}
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int64:
			if f.Type() == reflect.TypeFor[time.Duration]() {
				f.SetInt(int64(time.Second))
			} else {
				f.SetInt(1)
			}
		case reflect.Float64:
			f.SetFloat(1)
		case reflect.String:
			f.SetString("x")
		default:
			panic(fmt.Sprintf("nonZero: field %s of %v", t.Field(i).Name, t))
		}
	}
	return v.Interface()
}

// The types of TestMapping.

type scalars struct {
	B    bool
	I    int     `json:"i"`
	U8   uint8   `json:"u8"`
	F    float64 `json:"f"`
	S    string  `json:"s"`
	N    int64   `json:"n,string"`
	D    time.Duration
	Any  any    `json:"any"`
	Raw  []byte `json:"raw"`
	Tm   time.Time
	Txt  textual `json:"txt"`
	Ign  int     `json:"-"`
	Dash int     `json:"-,"`
	low  int
}

type textual int

func (textual) MarshalText() ([]byte, error) { return []byte("t"), nil }

type omitted struct {
	S   string            `json:"s,omitempty"`
	P   *scalars          `json:"p,omitempty"`
	PZ  *scalars          `json:"pz,omitzero"`
	L   []string          `json:"l,omitempty"`
	M   map[string]int    `json:"m,omitempty"`
	St  leaf              `json:"st,omitempty"` // omitempty keeps a struct
	StZ leaf              `json:"stz,omitzero"`
	A0  [0]int            `json:"a0,omitempty"`
	A2  [2]int            `json:"a2,omitempty"`
	If  any               `json:"if,omitempty"`
	Nil map[textual][]int `json:"nil"`
}

type leaf struct {
	// X is documented.
	X int `json:"x"` // and the line comment is not used then
	Y int `json:"y"` // Y has a line comment.
}

type nullable struct {
	P  *leaf             `json:"p"`
	L  []leaf            `json:"l"`
	LP []*leaf           `json:"lp"`
	LL [][]string        `json:"ll"`
	M  map[string][]leaf `json:"m"`
	MI map[int]string    `json:"mi"`
	A  [2]*leaf          `json:"a"`
	NN [][]string        `json:"nn"`
}

type inner struct {
	A int `json:"a"`
	B int `json:"b"`
	C int
}

type Inner2 struct {
	B int `json:"b"`
	C int
	D int `json:"d"`
}

type embedding struct {
	inner
	*Inner2
	A     string `json:"a"` // hides inner.A
	Named inner  `json:"named"`
}

type clash struct {
	L  leaf       `json:"l"`
	TL record.Pos `json:"tl"`
}

type marshals struct{}

func (marshals) MarshalJSON() ([]byte, error) { return []byte(`"m"`), nil }

type hasMarshals struct {
	M marshals `json:"m"`
}

type anonymous struct {
	S struct{ X int } `json:"s"`
}

type badKey struct {
	M map[leaf]int `json:"m"`
}

type chans struct {
	C chan int `json:"c"`
}

// TestMapping checks the TypeScript the generator writes for Go types, against
// testdata/mapping.golden.ts (go test -update rewrites it).
func TestMapping(t *testing.T) {
	docs, err := readDocs(filepath.Join("..", ".."), module, []string{module + "/internal/tsgen"})
	if err != nil {
		t.Fatal(err)
	}
	// The test's own types are in its _test.go file, which readDocs skips.
	docs[module+"/internal/tsgen.leaf"] = "leaf is a struct that others hold."
	docs[module+"/internal/tsgen.leaf.X"] = "X is documented."
	docs[module+"/internal/tsgen.leaf.Y"] = "Y has a line comment."
	tests := []struct {
		name string
		typ  reflect.Type
	}{
		{"scalars", reflect.TypeFor[scalars]()},
		{"omitempty and omitzero", reflect.TypeFor[omitted]()},
		{"null", reflect.TypeFor[nullable]()},
		{"embedded structs", reflect.TypeFor[embedding]()},
		{"prefixed package", reflect.TypeFor[clash]()},
	}
	var b strings.Builder
	for _, tt := range tests {
		g := &Generator{
			Prefix:  map[string]string{module + "/record": "T"},
			NonNull: map[string]bool{module + "/internal/tsgen.nullable.NN": true},
			Docs:    docs,
		}
		out, err := g.Generate(tt.typ)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		fmt.Fprintf(&b, "// ---- %s\n\n%s\n", tt.name, out)
	}
	golden.Check(t, filepath.Join("testdata", "mapping.golden.ts"), b.String())
}

// TestErrors checks that the generator refuses what it cannot describe.
func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		gen  Generator
		typ  reflect.Type
		want string
	}{
		{"MarshalJSON", Generator{}, reflect.TypeFor[hasMarshals](), "has a MarshalJSON method"},
		{"anonymous struct", Generator{}, reflect.TypeFor[anonymous](), "anonymous struct type"},
		{"map key", Generator{}, reflect.TypeFor[badKey](), "cannot write a map with keys"},
		{"chan", Generator{}, reflect.TypeFor[chans](), "cannot write a value of type chan int"},
		{"name clash", Generator{}, reflect.TypeFor[clashing](), "are both named Pos"},
	}
	for _, tt := range tests {
		_, err := tt.gen.Generate(tt.typ)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got error %v, want one that says %q", tt.name, err, tt.want)
		}
	}
}

type Pos struct{}

type clashing struct {
	A Pos        `json:"a"`
	B record.Pos `json:"b"`
}
