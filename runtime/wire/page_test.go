package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// PageMethods and PageEvents are the whole protocol: every Method and
// Event constant of this package is in them, once, and nothing else is.
// A method declared without a row (or a row without its constant) fails
// here, before the SDK's generated types or Core's dispatch could miss it.
func TestPageTablesHoldEveryConstant(t *testing.T) {
	methods, events := constantValues(t, "Method"), constantValues(t, "Event")
	var rows, evRows []string
	for _, m := range PageMethods {
		rows = append(rows, m.Name)
	}
	for _, e := range PageEvents {
		evRows = append(evRows, e.Name)
	}
	for _, tc := range []struct {
		what        string
		consts, got []string
	}{{"methods", methods, rows}, {"events", events, evRows}} {
		if dup := duplicates(tc.got); len(dup) > 0 {
			t.Errorf("%s listed twice in page.go: %v", tc.what, dup)
		}
		if missing, extra := difference(tc.consts, tc.got), difference(tc.got, tc.consts); len(missing)+len(extra) > 0 {
			t.Errorf("%s: declared without a row in page.go: %v; rows without a constant: %v", tc.what, missing, extra)
		}
	}
}

// Every method takes a JSON object and answers one; every event's data
// is one: the SDK's generated types and Core's decode both assume it.
func TestPageTypesAreObjects(t *testing.T) {
	object := func(t reflect.Type) bool { return t.Kind() == reflect.Struct }
	for _, m := range PageMethods {
		if !object(m.Params) || !object(m.Result) {
			t.Errorf("%s: params %v and result %v must be structs", m.Name, m.Params, m.Result)
		}
	}
	for _, e := range PageEvents {
		if !object(e.Data) {
			t.Errorf("%s: data %v must be a struct", e.Name, e.Data)
		}
	}
	if _, ok := LookupPageMethod(MethodSendText); !ok {
		t.Error("LookupPageMethod does not find send_text")
	}
	if _, ok := LookupPageMethod("no_such_method"); ok {
		t.Error("LookupPageMethod found a method that does not exist")
	}
}

// docs/protocol.md's Methods and Events tables have a row for each one
// and for nothing else.
func TestProtocolDocListsThePageTables(t *testing.T) {
	doc := readRepoFile(t, "docs/protocol.md")
	var methods, events []string
	for _, m := range PageMethods {
		methods = append(methods, m.Name)
	}
	for _, e := range PageEvents {
		events = append(events, e.Name)
	}
	for _, tc := range []struct {
		heading, header string
		want            []string
	}{{"### Methods", "| method |", methods}, {"### Events", "| event |", events}} {
		got := tableNames(t, doc, tc.heading, tc.header)
		if missing, extra := difference(tc.want, got), difference(got, tc.want); len(missing)+len(extra) > 0 || len(duplicates(got)) > 0 {
			t.Errorf("docs/protocol.md %s: no row for %v; rows page.go does not have: %v; twice: %v", tc.heading, missing, extra, duplicates(got))
		}
	}
}

// constantValues are the values of this package's exported string
// constants whose names start with prefix (MethodX, EventX).
func constantValues(t *testing.T, prefix string) []string {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var out []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				v := s.(*ast.ValueSpec)
				for i, name := range v.Names {
					if !strings.HasPrefix(name.Name, prefix) || !name.IsExported() || i >= len(v.Values) {
						continue
					}
					lit, ok := v.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					value, _ := strconv.Unquote(lit.Value)
					out = append(out, value)
				}
			}
		}
	}
	return out
}

// tableNames are the backticked names in the first column of the table
// under heading whose header row starts with header.
func tableNames(t *testing.T, doc, heading, header string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("docs/protocol.md has no %q", heading)
	}
	_, rest, ok = strings.Cut(rest, "\n"+header)
	if !ok {
		t.Fatalf("docs/protocol.md %s has no table starting %q", heading, header)
	}
	var out []string
	for _, line := range strings.Split(rest, "\n")[2:] {
		if !strings.HasPrefix(line, "| `") {
			break
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(line, "| `"), "`")
		out = append(out, name)
	}
	return out
}

func duplicates(names []string) []string {
	seen := map[string]bool{}
	var dup []string
	for _, n := range names {
		if seen[n] {
			dup = append(dup, n)
		}
		seen[n] = true
	}
	return dup
}

// difference is what a has and b does not.
func difference(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}
