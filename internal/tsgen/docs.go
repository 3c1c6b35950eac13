package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// readDocs returns the doc comments of the struct types and their fields in the packages
// pkgs of the module at root, whose path is module, keyed as Generator.Docs wants.
func readDocs(root, module string, pkgs []string) (map[string]string, error) {
	docs := map[string]string{}
	for _, pkg := range pkgs {
		rel, ok := strings.CutPrefix(pkg, module)
		if !ok {
			continue
		}
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(rel, "/")))
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("tsgen: read docs of %s: %w", pkg, err)
		}
		fset := token.NewFileSet()
		for _, e := range entries {
			name := e.Name()
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				return nil, fmt.Errorf("tsgen: read docs of %s: %w", pkg, err)
			}
			for _, d := range f.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.TYPE {
					continue
				}
				for _, s := range gd.Specs {
					ts := s.(*ast.TypeSpec)
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					doc := ts.Doc
					if doc == nil && len(gd.Specs) == 1 {
						doc = gd.Doc
					}
					key := pkg + "." + ts.Name.Name
					docs[key] = doc.Text()
					for _, fl := range st.Fields.List {
						text := fl.Doc.Text()
						if text == "" {
							text = fl.Comment.Text()
						}
						for _, n := range fl.Names {
							docs[key+"."+n.Name] = text
						}
					}
				}
			}
		}
	}
	return docs, nil
}
