package wire

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/schema"
)

// docs/errors.md documents every code, and documents no code that does not exist.
func TestErrorsDocMatchesCodes(t *testing.T) {
	data, err := os.ReadFile("../../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([A-Z_]+)` \\|").FindAllStringSubmatch(string(data), -1) {
		documented[m[1]] = true
	}
	known := map[string]bool{}
	for _, c := range Codes {
		if known[c] {
			t.Errorf("code %s listed twice in Codes", c)
		}
		known[c] = true
		if !documented[c] {
			t.Errorf("code %s is missing from docs/errors.md", c)
		}
		if c != strings.ToUpper(c) || strings.ContainsAny(c, " -") {
			t.Errorf("code %s is not upper snake case", c)
		}
	}
	for c := range documented {
		if !known[c] {
			t.Errorf("docs/errors.md documents %s, which is not in wire.Codes", c)
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
	for _, code := range []string{schema.CodeInvalidInput, schema.CodeToolArgsInvalid} {
		if !slices.Contains(Codes, code) {
			t.Errorf("schema's code %s is not in wire.Codes", code)
		}
	}
	we := AsError(fmt.Errorf("create session: %w", schema.InvalidInput([]schema.Problem{{Path: "skills", Message: "missing"}})))
	if we.Code != CodeInvalidInput || we.Message != "1 problem in the tool definitions: skills: missing" || we.Details == nil {
		t.Errorf("AsError(schema error) = %+v", we)
	}
}
