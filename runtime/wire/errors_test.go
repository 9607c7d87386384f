package wire

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/schema"
)

// Codes is the one list: every Code constant is in it once, with a
// meaning, and spelled upper snake. (docs/errors.md and the SDK's union are
// generated from it; runtime/wire/internal/gencodes tests that they are fresh.)
func TestCodesListEveryConstantOnce(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "codes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[Code]bool{}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" {
				t.Errorf("constant %s is not typed Code", vs.Names[0].Name)
				continue
			}
			lit := vs.Values[0].(*ast.BasicLit)
			code, _ := strconv.Unquote(lit.Value)
			declared[Code(code)] = true
		}
	}
	listed := map[Code]bool{}
	for _, info := range Codes {
		c := info.Code
		if listed[c] {
			t.Errorf("code %s listed twice in Codes", c)
		}
		listed[c] = true
		if !declared[c] {
			t.Errorf("code %s is in Codes but is not a constant", c)
		}
		if !regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`).MatchString(string(c)) {
			t.Errorf("code %s is not upper snake case", c)
		}
		if info.RaisedBy == "" || info.When == "" || strings.Contains(info.When+info.RaisedBy+info.Details, "|") || strings.Contains(info.When, "\n") {
			t.Errorf("code %s: RaisedBy and When must be set, on one line, without a |", c)
		}
	}
	for c := range declared {
		if !listed[c] {
			t.Errorf("constant %s is not in Codes, so it is documented nowhere", c)
		}
	}
}

func TestAsErrorKeepsCodes(t *testing.T) {
	we := Errorf(CodeToolTimeout, "late")
	if got := AsError(we); got != we {
		t.Fatal("an *Error must pass through unchanged")
	}
	if got := AsError(os.ErrNotExist); got.Code != CodeInternal || got.Message != os.ErrNotExist.Error() {
		t.Fatalf("plain error = %+v", got)
	}
	if AsError(nil) != nil {
		t.Fatal("nil must stay nil")
	}
}

func TestErrorfWrapsItsCause(t *testing.T) {
	we := Errorf(CodeInternal, "create work directory: %w", os.ErrPermission)
	if !errors.Is(we, os.ErrPermission) || we.Message != "create work directory: "+os.ErrPermission.Error() {
		t.Fatalf("Errorf with %%w = %+v", we)
	}
	// Wrapped further along, the code is still found at the edge.
	outer := fmt.Errorf("session s_1: %w", we)
	if got := AsError(outer); got != we {
		t.Fatalf("AsError(wrapped) = %+v", got)
	}
}

// schema sits below wire and spells its two codes itself; they must be
// wire's, and its errors must reach the wire shape unchanged.
func TestSchemaErrorsAreWireErrors(t *testing.T) {
	known := map[Code]bool{}
	for _, info := range Codes {
		known[info.Code] = true
	}
	for _, code := range []string{schema.CodeInvalidInput, schema.CodeToolArgsInvalid, schema.CodeToolResultInvalid} {
		if !known[Code(code)] {
			t.Errorf("schema's code %s is not in wire.Codes", code)
		}
	}
	we := AsError(fmt.Errorf("create session: %w", schema.InvalidInput([]schema.Problem{{Path: "skills", Message: "missing"}})))
	if we.Code != CodeInvalidInput || we.Message != "1 problem in the tool definitions: skills: missing" || we.Details == nil {
		t.Errorf("AsError(schema error) = %+v", we)
	}
}
