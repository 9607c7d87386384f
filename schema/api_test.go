package schema

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

const seedSkills = `{"guidance": "Use the declared tools for page operations.", "tools": [
  {"name": "get_current_page", "description": "Read the page.", "argsSchema": {"type": "object", "properties": {}, "required": []}},
  {"name": "update_counter", "description": "Change the counter.", "timeoutMs": 10000,
   "argsSchema": {"type": "object", "properties": {"delta": {"type": "integer", "minimum": -100, "maximum": 100}}, "required": ["delta"]}}
]}`

func seedRegistry(t testing.TB) *Registry {
	t.Helper()
	s, problems := ValidateSkills([]byte(seedSkills))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	r, err := NewRegistry(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRegistry(t *testing.T) {
	r := seedRegistry(t)
	if got := strings.Join(r.Names(), ","); got != "get_current_page,update_counter" {
		t.Errorf("Names() = %s, want declaration order", got)
	}
	if tools := r.Tools(); len(tools) != 2 || tools[1].Name != "update_counter" || *tools[1].TimeoutMs != 10000 {
		t.Errorf("Tools() = %+v", tools)
	}
	if _, ok := r.Tool("nope"); ok {
		t.Error("Tool(nope) found a tool")
	}
	page, _ := r.Tool("get_current_page")
	counter, _ := r.Tool("update_counter")
	if d := page.Timeout(time.Minute); d != time.Minute {
		t.Errorf("Timeout without timeoutMs = %v, want the default", d)
	}
	if d := counter.Timeout(time.Minute); d != 10*time.Second {
		t.Errorf("Timeout = %v, want 10s", d)
	}
	if counter.Def().Name != "update_counter" || !json.Valid(counter.Def().ArgsSchema) {
		t.Errorf("Def() = %+v", counter.Def())
	}
	if v := counter.ValidateArgs([]byte(`{"delta": 3}`)); len(v) != 0 {
		t.Errorf("valid args: %v", v)
	}
	// The page gets the bytes checked here: a byte that is not UTF-8 would
	// be read as U+FFFD here and not be taken by the page's socket at all.
	if v := counter.ValidateArgs([]byte("{\"delta\": 3, \"note\": \"caf\xe9\"}")); len(v) != 1 || v[0].Path != RootPath || v[0].Got != "bytes that are not UTF-8" {
		t.Errorf("args that are not UTF-8: %+v", v)
	}
	// A key named twice: which value counts is up to the reader, so the
	// call is refused before anyone is asked about it.
	if v := counter.ValidateArgs([]byte(`{"delta": 1, "delta": 3}`)); len(v) != 1 || v[0].Path != "delta" || v[0].Expected != "each key once" {
		t.Errorf("a repeated key: %+v", v)
	}
}

func TestTimeoutClamps(t *testing.T) {
	ms := int64(maxSafeInteger)
	c := &CompiledTool{def: &Tool{TimeoutMs: &ms}}
	if d := c.Timeout(time.Second); d <= 0 {
		t.Errorf("Timeout(%d ms) = %v, overflowed", ms, d)
	}
}

func TestNewRegistryRefusesDuplicates(t *testing.T) {
	tool := Tool{Name: "a", Description: "d", ArgsSchema: json.RawMessage(`{"type":"object"}`)}
	if _, err := NewRegistry(Skills{Tools: []Tool{tool, tool}}); err == nil {
		t.Error("NewRegistry accepted a duplicate name")
	}
}

func TestValidateArgsConcurrently(t *testing.T) {
	counter, _ := seedRegistry(t).Tool("update_counter")
	done := make(chan bool)
	for range 8 {
		go func() {
			for range 100 {
				if v := counter.ValidateArgs([]byte(`{"delta": 2.5}`)); len(v) != 1 {
					t.Errorf("got %v", v)
				}
			}
			done <- true
		}()
	}
	for range 8 {
		<-done
	}
}

func TestInvalidInput(t *testing.T) {
	_, problems := ValidateSkills([]byte(`{"guidance": "", "tools": [{"name": "a b", "description": "", "argsSchema": {"type": "object"}}]}`))
	e := wire.AsError(InvalidInput(problems))
	if e.Code != wire.CodeInvalidInput {
		t.Errorf("code = %s", e.Code)
	}
	want := `2 problems in the tool definitions: tools[0].name: name "a b" contains " "`
	if !strings.HasPrefix(e.Message, want) || !strings.Contains(e.Message, "; tools[0].description: description is empty") {
		t.Errorf("message = %s", e.Message)
	}
	b, _ := json.Marshal(e)
	if !bytes.Contains(b, []byte(`"details":{"problems":[{"path":"tools[0].name","message":`)) {
		t.Errorf("wire form = %s", b)
	}
}

func TestArgsInvalid(t *testing.T) {
	counter, _ := seedRegistry(t).Tool("update_counter")
	e := wire.AsError(ArgsInvalid("update_counter", counter.ValidateArgs([]byte(`{"delta": "5"}`))))
	if e.Code != wire.CodeToolArgsInvalid {
		t.Errorf("code = %s", e.Code)
	}
	for _, want := range []string{"update_counter", `delta: must be an integer from -100 to 100; got "5" (a string)`, "pedelec tool-spec update_counter"} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("message %q lacks %q", e.Message, want)
		}
	}
	b, _ := json.Marshal(e)
	if !bytes.Contains(b, []byte(`"details":{"tool":"update_counter","violations":[{"path":"delta","expected":`)) {
		t.Errorf("wire form = %s", b)
	}
}

// TestManifestJSONSchema checks the generated schema with an independent
// validator: every valid definition case passes it, and a sample of
// invalid ones, that a JSON Schema can catch, fail it.
func TestManifestJSONSchema(t *testing.T) {
	b, err := ManifestJSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("manifest.json", doc); err != nil {
		t.Fatal(err)
	}
	meta, err := c.Compile("manifest.json")
	if err != nil {
		t.Fatalf("generated schema does not compile: %v\n%s", err, b)
	}
	check := func(file string, wantValid bool) {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if err := meta.Validate(inst); (err == nil) != wantValid {
			t.Errorf("%s: valid=%v against the manifest schema, want %v: %v", file, err == nil, wantValid, err)
		}
	}
	valid, _ := filepath.Glob("testdata/definitions/valid_*.json")
	n := 0
	for _, f := range valid {
		if !strings.HasSuffix(f, ".golden.json") {
			check(f, true)
			n++
		}
	}
	if n < 10 {
		t.Errorf("only %d valid cases found", n)
	}
	check("testdata/manifest/bare_array.json", true)
	for _, name := range []string{"unsupported_format", "unsupported_additionalProperties", "wrong_type_minLength_on_integer",
		"value_minimum_string", "legacy_input", "timeout_zero", "type_unknown", "oneOf_empty", "items_tuple", "handler_present"} {
		check("testdata/definitions/"+name+".json", false)
	}
}

// A name required twice passes the rules (it is harmless) and must still
// compile: the library's meta-schema would refuse it as written.
func TestRequiredTwiceCompiles(t *testing.T) {
	tool := mustCompile(t, json.RawMessage(`{"type":"object","properties":{"x":{"type":"object","properties":{"y":{"type":"string"}},"required":["y","y"]}},"required":["x","x"]}`))
	if v := tool.ValidateArgs([]byte(`{"x":{}}`)); len(v) != 1 || v[0].Path != "x.y" {
		t.Errorf("got %v", v)
	}
}
