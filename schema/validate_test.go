package schema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestValidatorAgreesWithJSONSchema checks Pedelec's subset validator
// against an independent, general JSON Schema validator (draft 2020-12):
// for every schema and arguments here, both accept or both refuse. The
// golden tests hold the wording; this holds the verdicts, on the cases the
// goldens do not reach (number equality, long arrays, objects as items).
func TestValidatorAgreesWithJSONSchema(t *testing.T) {
	long := func(extra string) string {
		items := make([]string, 25)
		for i := range items {
			items[i] = fmt.Sprintf(`{"k":%d,"v":[%d,"x"]}`, i, i)
		}
		if extra != "" {
			items = append(items, extra)
		}
		return `{"list":[` + strings.Join(items, ",") + `]}`
	}
	cases := []struct{ schema, args string }{
		{`{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":2.0}`},
		{`{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":2.5}`},
		{`{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":1e2}`},
		{`{"type":"object","properties":{"n":{"type":"number","enum":[1,2.5]}}}`, `{"n":1.0}`},
		{`{"type":"object","properties":{"n":{"type":"number","enum":[1,2.5]}}}`, `{"n":25e-1}`},
		{`{"type":"object","properties":{"n":{"type":"number","enum":[1,2.5]}}}`, `{"n":3}`},
		{`{"type":"object","properties":{"n":{"type":"number","minimum":0.1,"maximum":0.3}}}`, `{"n":0.1}`},
		{`{"type":"object","properties":{"n":{"type":"number","minimum":0.1,"maximum":0.3}}}`, `{"n":0.30000000000000004}`},
		{`{"type":"object","properties":{"n":{"type":"number","minimum":-5}}}`, `{"n":-5.000001}`},
		{`{"type":"object","properties":{"s":{"type":"string","minLength":2,"maxLength":3}}}`, `{"s":"é"}`},
		{`{"type":"object","properties":{"s":{"type":"string","minLength":2,"maxLength":3}}}`, `{"s":"日本語"}`},
		{`{"type":"object","properties":{"s":{"type":"string","pattern":"^a+$"}}}`, `{"s":"aab"}`},
		{`{"type":"object","properties":{"s":{"type":"string","pattern":"b"}}}`, `{"s":"aab"}`},
		{`{"type":"object","properties":{"list":{"type":"array","uniqueItems":true,"items":{"type":"object","properties":{"k":{"type":"integer"}}}}}}`, long("")},
		{`{"type":"object","properties":{"list":{"type":"array","uniqueItems":true,"items":{"type":"object","properties":{"k":{"type":"integer"}}}}}}`, long(`{"v":[24,"x"],"k":24}`)},
		{`{"type":"object","properties":{"list":{"type":"array","uniqueItems":true,"items":{"type":"object","properties":{"k":{"type":"integer"}}}}}}`, long(`{"k":24.0,"v":[24,"x"]}`)},
		{`{"type":"object","properties":{"list":{"type":"array","uniqueItems":true}}}`, `{"list":[1,"1",true,null,[1],{"a":1},1.0]}`},
		{`{"type":"object","properties":{"list":{"type":"array","uniqueItems":true}}}`, `{"list":[[1,2],[2,1],{"a":1,"b":2},{"b":2,"a":1}]}`},
		// -0 equals 0, in long arrays (bucketed by value) as in short ones.
		{`{"type":"object","properties":{"list":{"type":"array","uniqueItems":true}}}`, `{"list":[0,1,-0]}`},
		{`{"type":"object","properties":{"list":{"type":"array","uniqueItems":true}}}`, `{"list":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,-0]}`},
		{`{"type":"object","properties":{"list":{"type":"array","uniqueItems":true}}}`, `{"list":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,[0.0],[-0e5]]}`},
		{`{"type":"object","properties":{"list":{"type":"array","minItems":2,"maxItems":2,"items":{"type":"boolean"}}}}`, `{"list":[true]}`},
		{`{"type":"object","properties":{"v":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`, `{"v":3}`},
		{`{"type":"object","properties":{"v":{"oneOf":[{"type":"number"},{"type":"integer"}]}}}`, `{"v":3}`},
		{`{"type":"object","properties":{"v":{"oneOf":[{"type":"number"},{"type":"integer"}]}}}`, `{"v":3.5}`},
		{`{"type":"object","properties":{"v":{"oneOf":[{"type":"string"},{"type":"boolean"}]}}}`, `{"v":null}`},
		{`{"type":"object","properties":{"o":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a","b"]}},"required":["o"]}`, `{"o":{"b":1}}`},
		{`{"type":"object","properties":{"o":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a","b"]}},"required":["o"]}`, `{"o":{"a":"x","b":null}}`},
		{`{"type":"object","properties":{},"required":[]}`, `{"anything":[1,2,3]}`},
		{`{"type":"object","properties":{},"required":[]}`, `[]`},
		{`{"type":"object","properties":{"b":{"type":"boolean","enum":[true]}}}`, `{"b":false}`},
	}
	for _, tc := range cases {
		tool := mustCompile(t, json.RawMessage(tc.schema))
		mine := tool.ValidateArgs([]byte(tc.args))
		theirs := libraryVerdict(t, tc.schema, tc.args)
		if (len(mine) == 0) != (theirs == nil) {
			t.Errorf("schema %s, args %s: Pedelec says %v, the library says %v", tc.schema, tc.args, mine, theirs)
		}
	}
}

func libraryVerdict(t *testing.T, schema, args string) error {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("urn:test", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("urn:test")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
	if err != nil {
		t.Fatal(err)
	}
	return sch.Validate(inst)
}

// A uniqueItems failure names the first repeated item, in short and long
// arrays alike (long ones are bucketed).
func TestFirstDuplicate(t *testing.T) {
	for _, tc := range []struct {
		arr  string
		i, j int
		dup  bool
	}{
		{`[1,2,3]`, 0, 0, false},
		{`[1,2,1,2]`, 0, 2, true},
		{`[3,1,2,2,1]`, 2, 3, true},
		{`[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,"x",3,{"a":[1]},{"a":[1.0]}]`, 3, 24, true},
		{`[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,{"a":[1]},23,{"a":[1.0]}]`, 23, 25, true},
		{`[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,"22"]`, 0, 0, false},
	} {
		v, err := parseJSON([]byte(tc.arr))
		if err != nil {
			t.Fatal(err)
		}
		i, j, dup := firstDuplicate(v.arr)
		if dup != tc.dup || (dup && (i != tc.i || j != tc.j)) {
			t.Errorf("%s: got %d, %d, %v; want %d, %d, %v", tc.arr, i, j, dup, tc.i, tc.j, tc.dup)
		}
	}
}

// TestIsOfType holds the one type test, used by the subset's enum check
// and by the validator, to the oracle's, for every type JSON Schema names
// (null included, though the subset refuses it) and every kind of value.
func TestIsOfType(t *testing.T) {
	values := []string{`null`, `true`, `1`, `1.0`, `1e2`, `-0`, `1.5`, `"s"`, `[]`, `{}`}
	for _, typ := range []string{"string", "number", "integer", "boolean", "array", "object", "null"} {
		for _, text := range values {
			v, err := parseJSON([]byte(text))
			if err != nil {
				t.Fatal(err)
			}
			want := libraryVerdict(t, `{"type":"`+typ+`"}`, text) == nil
			if got := isOfType(v, typ); got != want {
				t.Errorf("isOfType(%s, %s) = %v, the library says %v", text, typ, got, want)
			}
		}
	}
	if v, _ := parseJSON([]byte(`1`)); isOfType(v, "float") {
		t.Error("a type JSON Schema does not name matched a value")
	}
}
