package schema

import (
	goparser "go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// schema is the bottom layer: the manifest rules, shared by Core, the CLI
// and validate-tools. It imports nothing of Pedelec's (errors carry their
// wire code themselves; see errors.go).
func TestSchemaImportsNoOtherPedelecPackage(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		parsed, err := goparser.ParseFile(token.NewFileSet(), f, nil, goparser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range parsed.Imports {
			if strings.HasPrefix(strings.Trim(imp.Path.Value, `"`), "github.com/kaoruisaac/pedelec/") {
				t.Errorf("%s imports %s", f, imp.Path.Value)
			}
		}
	}
}
