package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// wireDocs are the doc comments of runtime/wire's declarations, so the
// SDK's generated types say what the Go ones say: each type's by name,
// each struct field's by "Type.Field", each method's and event's by its
// name (the value of its MethodX or EventX constant).
type wireDocs struct {
	types, fields, consts map[string]string
}

func readWireDocs(root string) (wireDocs, error) {
	d := wireDocs{types: map[string]string{}, fields: map[string]string{}, consts: map[string]string{}}
	dir := filepath.Join(root, "runtime", "wire")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return d, err
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments)
		if err != nil {
			return d, err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range g.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					d.types[s.Name.Name] = commentText(s.Doc, s.Comment, soleDoc(g))
					if st, ok := s.Type.(*ast.StructType); ok {
						for _, field := range st.Fields.List {
							for _, name := range field.Names {
								d.fields[s.Name.Name+"."+name.Name] = commentText(field.Doc, field.Comment, nil)
							}
						}
					}
				case *ast.ValueSpec:
					if g.Tok != token.CONST {
						continue
					}
					for i, v := range s.Values {
						lit, ok := v.(*ast.BasicLit)
						if !ok || lit.Kind != token.STRING || i >= len(s.Names) || !pageName(s.Names[i].Name) {
							continue
						}
						value, _ := strconv.Unquote(lit.Value)
						if text := commentText(s.Doc, s.Comment, soleDoc(g)); text != "" {
							d.consts[value] = text
						}
					}
				}
			}
		}
	}
	return d, nil
}

// pageName says whether a constant names a method or an event (an end
// reason may have a method's value: end_session).
func pageName(constant string) bool {
	return strings.HasPrefix(constant, "Method") || strings.HasPrefix(constant, "Event")
}

// soleDoc is a declaration's doc when it declares one thing without
// parentheses (`type X struct`), where the comment belongs to the spec.
func soleDoc(g *ast.GenDecl) *ast.CommentGroup {
	if g.Lparen.IsValid() {
		return nil
	}
	return g.Doc
}

func commentText(groups ...*ast.CommentGroup) string {
	for _, c := range groups {
		if text := strings.TrimSpace(c.Text()); text != "" {
			return text
		}
	}
	return ""
}

// jsDoc is text as a /** */ comment at indent, or nothing.
func jsDoc(text, indent string) string {
	if text == "" {
		return ""
	}
	text = strings.ReplaceAll(text, "*/", "*\u200b/")
	lines := strings.Split(text, "\n")
	if len(lines) == 1 {
		return indent + "/** " + lines[0] + " */\n"
	}
	var b strings.Builder
	b.WriteString(indent + "/**\n")
	for _, l := range lines {
		b.WriteString(strings.TrimRight(indent+" * "+l, " ") + "\n")
	}
	b.WriteString(indent + " */\n")
	return b.String()
}
