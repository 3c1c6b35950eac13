package main

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// A Generator turns Go types into TypeScript interfaces.
type Generator struct {
	// Prefix maps a package path to the prefix of its types' names.
	Prefix map[string]string
	// Marshaled describes the types whose MarshalJSON method writes something other than
	// their fields: what they write is their own fields, as if they had no such method, and
	// the fields of the struct type Extra.
	Marshaled map[reflect.Type]reflect.Type
	// NonNull lists the fields, as "pkgpath.Type.Field", whose pointers, slices and maps,
	// and those within them, are never nil where Go writes them, so never null.
	NonNull map[string]bool
	// Docs gives doc comments, keyed by "pkgpath.Type" and "pkgpath.Type.Field"; it may be nil.
	Docs map[string]string

	names map[reflect.Type]string
	byTS  map[string]reflect.Type
	order []reflect.Type
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// Generate returns the interfaces of roots and of every named struct type they reach, in
// the order it first reaches them.
func (g *Generator) Generate(roots ...reflect.Type) (string, error) {
	g.names = map[reflect.Type]string{}
	g.byTS = map[string]reflect.Type{}
	g.order = nil
	for _, t := range roots {
		if _, err := g.ref(t, false); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	for i := 0; i < len(g.order); i++ { // g.order grows as fields reach new types
		t := g.order[i]
		fields, err := g.fields(t)
		if err != nil {
			return "", err
		}
		if i > 0 {
			b.WriteString("\n")
		}
		writeDoc(&b, "", g.Docs[t.PkgPath()+"."+t.Name()])
		fmt.Fprintf(&b, "export interface %s {\n", g.names[t])
		for _, f := range fields {
			writeDoc(&b, "  ", f.doc)
			opt := ""
			if f.optional {
				opt = "?"
			}
			fmt.Fprintf(&b, "  %s%s: %s;\n", tsKey(f.name), opt, f.ts)
		}
		b.WriteString("}\n")
	}
	return b.String(), nil
}

func writeDoc(b *strings.Builder, indent, doc string) {
	doc = strings.TrimSpace(doc)
	if doc == "" {
		return
	}
	for line := range strings.SplitSeq(doc, "\n") {
		fmt.Fprintf(b, "%s// %s\n", indent, strings.TrimRight(line, " \t"))
	}
}

// tsKey quotes a property name that is not a plain identifier.
func tsKey(name string) string {
	for i, r := range name {
		if !(r == '_' || r == '$' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			return fmt.Sprintf("%q", name)
		}
	}
	if name == "" {
		return `""`
	}
	return name
}

type field struct {
	name     string
	optional bool
	ts       string
	doc      string
	depth    int
	tagged   bool
}

// ref returns the TypeScript type of a value of type t, as encoding/json writes it; nonNull
// says that the pointers, slices and maps of t are not nil.
func (g *Generator) ref(t reflect.Type, nonNull bool) (string, error) {
	null := " | null"
	if nonNull {
		null = ""
	}
	if t.Kind() == reflect.Pointer {
		// A pointer writes null or what its element writes, through the element's
		// marshaller if it has one.
		e, err := g.ref(t.Elem(), nonNull)
		return e + null, err
	}
	if t == timeType {
		return "string", nil // RFC 3339
	}
	if g.Marshaled[t] == nil {
		if t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) {
			return "", fmt.Errorf("tsgen: %v has a MarshalJSON method: describe what it writes in Generator.Marshaled", t)
		}
		if t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler) {
			return "string", nil
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean", nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return "number", nil
	case reflect.String:
		return "string", nil
	case reflect.Interface:
		return "unknown", nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !t.Elem().Implements(jsonMarshaler) && !t.Elem().Implements(textMarshaler) {
			return "string" + null, nil // base64, as encoding/json writes a []byte
		}
		e, err := g.ref(t.Elem(), nonNull)
		return elem(e) + "[]" + null, err
	case reflect.Array:
		e, err := g.ref(t.Elem(), nonNull)
		parts := make([]string, t.Len())
		for i := range parts {
			parts[i] = e
		}
		return "[" + strings.Join(parts, ", ") + "]", err
	case reflect.Map:
		k := t.Key()
		switch {
		case k.Kind() == reflect.String, k.Implements(textMarshaler):
		case k.Kind() >= reflect.Int && k.Kind() <= reflect.Uintptr:
		default:
			return "", fmt.Errorf("tsgen: encoding/json cannot write a map with keys of type %v", k)
		}
		e, err := g.ref(t.Elem(), nonNull)
		return "Record<string, " + e + ">" + null, err
	case reflect.Struct:
		if t.Name() == "" {
			return "", fmt.Errorf("tsgen: anonymous struct type %v: give it a name", t)
		}
		return g.name(t)
	}
	return "", fmt.Errorf("tsgen: encoding/json cannot write a value of type %v", t)
}

// elem parenthesizes a union that becomes an array's element type.
func elem(ts string) string {
	if strings.Contains(ts, " | ") {
		return "(" + ts + ")"
	}
	return ts
}

func (g *Generator) name(t reflect.Type) (string, error) {
	if n, ok := g.names[t]; ok {
		return n, nil
	}
	n := g.Prefix[t.PkgPath()] + t.Name()
	if other, ok := g.byTS[n]; ok {
		return "", fmt.Errorf("tsgen: %v and %v are both named %s: give one package a prefix", other, t, n)
	}
	g.names[t] = n
	g.byTS[n] = t
	g.order = append(g.order, t)
	return n, nil
}

// fields returns the fields of struct type t that encoding/json writes, in its order.
func (g *Generator) fields(t reflect.Type) ([]field, error) {
	all, err := g.collect(t, 0, nil)
	if err != nil {
		return nil, err
	}
	if extra := g.Marshaled[t]; extra != nil {
		more, err := g.collect(extra, 0, nil)
		if err != nil {
			return nil, err
		}
		all = append(all, more...)
	}
	// encoding/json's dominance rule: of the fields of one name, the shallowest wins, a
	// tagged one over untagged ones; a tie drops them all.
	byName := map[string][]int{}
	for i, f := range all {
		byName[f.name] = append(byName[f.name], i)
	}
	var keep []field
	for i, f := range all {
		if dominates(all, byName[f.name], i) {
			keep = append(keep, f)
		}
	}
	return keep, nil
}

// dominates reports whether all[i] is the one field of its name that encoding/json writes.
func dominates(all []field, idx []int, i int) bool {
	depth := all[i].depth
	for _, j := range idx {
		depth = min(depth, all[j].depth)
	}
	if all[i].depth != depth {
		return false
	}
	var top []int
	for _, j := range idx {
		if all[j].depth == depth {
			top = append(top, j)
		}
	}
	if len(top) == 1 {
		return true
	}
	var tagged []int
	for _, j := range top {
		if all[j].tagged {
			tagged = append(tagged, j)
		}
	}
	return len(tagged) == 1 && tagged[0] == i
}

func (g *Generator) collect(t reflect.Type, depth int, seen []reflect.Type) ([]field, error) {
	for _, s := range seen {
		if s == t {
			return nil, nil
		}
	}
	seen = append(seen, t)
	var out []field
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := sf.Type
		if sf.Anonymous && name == "" {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				if g.Marshaled[et] == nil && (et.Implements(jsonMarshaler) || reflect.PointerTo(et).Implements(jsonMarshaler)) {
					return nil, fmt.Errorf("tsgen: %v embeds %v, which has a MarshalJSON method", t, et)
				}
				inner, err := g.collect(et, depth+1, seen)
				if err != nil {
					return nil, err
				}
				out = append(out, inner...)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		key := t.PkgPath() + "." + t.Name() + "." + sf.Name
		f := field{name: sf.Name, depth: depth, tagged: name != "", doc: g.Docs[key]}
		if name != "" {
			f.name = name
		}
		omitempty, omitzero, asString := false, false, false
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "omitempty":
				omitempty = true
			case "omitzero":
				omitzero = true
			case "string":
				asString = true
			}
		}
		ts, err := g.ref(ft, g.NonNull[key])
		if err != nil {
			return nil, fmt.Errorf("%w (field %s of %v)", err, sf.Name, t)
		}
		switch ft.Kind() {
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
			reflect.Float32, reflect.Float64, reflect.String:
			if asString && ts != "string" {
				ts = "string"
			}
		}
		if omitzero || omitempty && emptyOmitted(ft) {
			f.optional = true
			// An omitted nil is never written, so what is written is not null; a nil
			// pointer field with omitzero is omitted too.
			if ft.Kind() != reflect.Interface {
				ts = strings.TrimSuffix(ts, " | null")
			}
		}
		f.ts = ts
		out = append(out, f)
	}
	return out, nil
}

// emptyOmitted reports whether omitempty drops the empty values of type t.
func emptyOmitted(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return t.Len() == 0
	case reflect.Struct:
		return false
	}
	return true
}
