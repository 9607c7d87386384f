package schema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// standardTool registers one tool whose inputSchema is schema, failing on
// any definition problem.
func standardTool(t testing.TB, schema string) *CompiledTool {
	t.Helper()
	skills, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{"name": "t", "description": "A tool.", "inputSchema": json.RawMessage(schema)}}})
	s, problems := ValidateSkills(skills)
	if len(problems) > 0 {
		t.Fatalf("schema %s refused: %v", schema, problems)
	}
	r, err := NewRegistry(s)
	if err != nil {
		t.Fatal(err)
	}
	tool, _ := r.Tool("t")
	return tool
}

// zodLike is what z.toJSONSchema writes for an object with an e-mail, a
// positive number, a nullable string and a $ref to a definition.
const zodLike = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
"properties":{"email":{"type":"string","format":"email","pattern":"^(?!\\.)(?!.*\\.\\.)([A-Za-z0-9_'+\\-\\.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$"},
"n":{"type":"number","exclusiveMinimum":0},"v":{"anyOf":[{"type":"string"},{"type":"null"}]},
"kind":{"const":"card"},"node":{"$ref":"#/$defs/Node"}},
"required":["email","n"],"additionalProperties":false,
"$defs":{"Node":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"],"additionalProperties":false}}}`

func TestStandardArgsEveryKeyword(t *testing.T) {
	tool := standardTool(t, zodLike)
	if v := tool.ValidateArgs([]byte(`{"email":"ok@example.com","n":0.5,"v":null,"kind":"card","node":{"id":2}}`)); len(v) != 0 {
		t.Fatalf("valid arguments refused: %+v", v)
	}
	got := tool.ValidateArgs([]byte(`{"email":"a..b@x.com","n":0,"extra":1,"v":3,"kind":"x","node":{"id":"x","z":1}}`))
	want := map[string]string{ // path → what Expected says
		"email":   "a string in the format email",
		"extra":   `no property "extra"`,
		"n":       "greater than 0",
		"v":       "at least one of: (1) a string; (2) null",
		"kind":    `exactly "card"`,
		"node.id": "an integer",
		"node.z":  `no property "z" (allowed: "id")`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d violations, want %d: %+v", len(got), len(want), got)
	}
	for _, v := range got {
		if w, ok := want[v.Path]; !ok || !strings.Contains(v.Expected, w) || v.Got == "" || !strings.Contains(v.Message, v.Got) && v.Path != "v" {
			t.Errorf("violation %+v: want expected %q", v, w)
		}
	}
	// The pattern, run on the backtracking engine for its lookaheads.
	if v := tool.ValidateArgs([]byte(`{"email":"x@y","n":1}`)); len(v) != 1 || v[0].Path != "email" {
		t.Errorf("a pattern-breaking e-mail: %+v", v)
	}
	if v := tool.ValidateArgs([]byte(`{"n":1}`)); len(v) != 1 || v[0].Path != "email" || v[0].Got != "nothing (the property is missing)" {
		t.Errorf("a missing required property: %+v", v)
	}
	if v := tool.ValidateArgs([]byte(`"{\"n\":1}"`)); len(v) != 1 || !strings.Contains(v[0].Message, "pass the object itself") {
		t.Errorf("a quoted object: %+v", v)
	}
	if v := tool.ValidateArgs([]byte(`{"n":1e999}`)); len(v) != 1 || v[0].Expected != "a number that fits a double" {
		t.Errorf("a number beyond a double: %+v", v)
	}
}

func TestStandardDraft07AndEmbeddedIDs(t *testing.T) {
	// zod-to-json-schema's draft-07 output, and TypeBox's recursive $id.
	d7 := standardTool(t, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"tags":{"type":"array","items":[{"type":"string"}],"additionalItems":false},"p":{"$ref":"#/definitions/P"}},"definitions":{"P":{"type":"integer","exclusiveMaximum":10}}}`)
	if v := d7.ValidateArgs([]byte(`{"tags":["a",2],"p":10}`)); len(v) != 2 || v[0].Path != "p" || v[1].Path != "tags" {
		t.Errorf("draft-07: %+v", v)
	}
	rec := standardTool(t, `{"$id":"T0","type":"object","properties":{"kids":{"type":"array","items":{"$ref":"T0"}}}}`)
	if v := rec.ValidateArgs([]byte(`{"kids":[{"kids":3}]}`)); len(v) != 1 || v[0].Path != "kids[0].kids" {
		t.Errorf("recursive $id: %+v", v)
	}
}

func TestStandardDefinitionRefusals(t *testing.T) {
	for _, tc := range []struct{ schema, path, message string }{
		{`{"type":"object","x-note":1}`, "tools[0].inputSchema[\"x-note\"]", "is not a keyword of JSON Schema draft 2020-12"},
		{`{"type":"object","properties":{"x":{"$ref":"https://example.com/s.json"}}}`, "tools[0].inputSchema.properties.x.$ref", "Core never fetches schemas"},
		{`{"type":"object","properties":{"x":{"$ref":"other.json#/a"}}}`, "tools[0].inputSchema.properties.x.$ref", "refers outside this schema"},
		{`{"type":"object","properties":{"x":{"$ref":"#/$defs/missing"}}}`, "tools[0].inputSchema.properties.x.$ref", "not found"},
		{`{"type":"object","properties":{"x":{"type":"string","format":"cuid"}}}`, "tools[0].inputSchema.properties.x.format", `format "cuid" is not one Core checks`},
		{`{"type":"object","properties":{"x":{"type":"string","format":"jwt"}}}`, "tools[0].inputSchema.properties.x.format", `add a "pattern" that checks it`},
		{`{"type":"object","properties":{"x":{"type":"integer","minimum":"3"}}}`, "tools[0].inputSchema.properties.x.minimum", "got string, want number"},
		{`{"type":"object","properties":{"x":{"type":"string","pattern":"(["}}}`, "tools[0].inputSchema.properties.x.pattern", "is not a regular expression Core can run"},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"x":{"$ref":"#/definitions/a","minimum":3}},"definitions":{"a":{"type":"integer"}}}`, "tools[0].inputSchema.properties.x.minimum", "draft-07 ignores every keyword beside"},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`, "tools[0].inputSchema.$schema", "must name a dialect Core validates"},
		{`{"type":"string"}`, "tools[0].inputSchema.type", `root must have "type": "object"`},
		{`{"type":"object","properties":{"x":{"type":"string","contentMediaType":"text/html"}}}`, "tools[0].inputSchema.properties.x.contentMediaType", "not one Core checks"},
		{`true`, "tools[0].inputSchema", "must be a JSON Schema object"},
	} {
		skills, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{"name": "t", "description": "A tool.", "inputSchema": json.RawMessage(tc.schema)}}})
		_, problems := ValidateSkills(skills)
		if len(problems) != 1 || problems[0].Path != tc.path || !strings.Contains(problems[0].Message, tc.message) {
			t.Errorf("schema %s: got %+v, want one problem at %s saying %q", tc.schema, problems, tc.path, tc.message)
		}
	}
}

// Zod writes a pattern with each format of its own; the pattern checks it.
func TestStandardUnknownFormatBesidePattern(t *testing.T) {
	tool := standardTool(t, `{"type":"object","properties":{"id":{"type":"string","format":"cuid","pattern":"^[cC][^\\s-]{8,}$"},"b":{"type":"string","contentEncoding":"base64url","pattern":"^[A-Za-z0-9_-]*$"}}}`)
	if v := tool.ValidateArgs([]byte(`{"id":"cjld2cjxh0000qzrmn831i7rn","b":"ab_-"}`)); len(v) != 0 {
		t.Errorf("valid: %+v", v)
	}
	if v := tool.ValidateArgs([]byte(`{"id":"x","b":"a+b"}`)); len(v) != 2 {
		t.Errorf("both patterns broken: %+v", v)
	}
}

func TestStandardBesideArgsSchemaAndOutput(t *testing.T) {
	both := `{"tools":[{"name":"t","description":"A tool.","argsSchema":{"type":"object"},"inputSchema":{"type":"object"}}]}`
	if _, p := ValidateSkills([]byte(both)); len(p) != 1 || p[0].Path != "tools[0].inputSchema" {
		t.Errorf("both schemas: %+v", p)
	}
	// Beside inputSchema the outputSchema is standard too; beside argsSchema
	// it keeps the subset (additionalProperties is refused by name).
	std := `{"tools":[{"name":"t","description":"A tool.","outputSchema":{"type":"object","properties":{"ok":{"const":true}},"additionalProperties":false},"inputSchema":{"type":"object"}}]}`
	s, p := ValidateSkills([]byte(std))
	if len(p) != 0 {
		t.Fatalf("standard outputSchema refused: %+v", p)
	}
	r, _ := NewRegistry(s)
	tool, _ := r.Tool("t")
	if v := tool.ValidateResult([]byte(`{"ok":false,"more":1}`)); len(v) != 2 {
		t.Errorf("result violations: %+v", v)
	}
	sub := `{"tools":[{"name":"t","description":"A tool.","outputSchema":{"type":"object","additionalProperties":false},"argsSchema":{"type":"object"}}]}`
	if _, p := ValidateSkills([]byte(sub)); len(p) != 1 || !strings.Contains(p[0].Message, "not supported by Pedelec's schema subset") {
		t.Errorf("subset outputSchema: %+v", p)
	}
}

// The standard validator collects every error of every value against every
// form, and cannot stop at MaxViolations: a check is bounded by the values
// times the schema's nodes instead, so an argument cannot hold Core for
// minutes.
func TestStandardCheckIsBounded(t *testing.T) {
	var forms []string
	for i := 0; i < 200; i++ {
		forms = append(forms, fmt.Sprintf(`{"type":"object","properties":{"k%d":{"type":"string"}},"required":["k%d"]}`, i, i))
	}
	tool := standardTool(t, `{"type":"object","properties":{"a":{"type":"array","items":{"anyOf":[`+strings.Join(forms, ",")+`]}}}}`)
	v := tool.ValidateArgs([]byte(`{"a":[` + strings.TrimSuffix(strings.Repeat("0,", 50000), ",") + `]}`))
	if len(v) != 1 || v[0].Path != RootPath || !strings.Contains(v[0].Message, "too large to check") {
		t.Errorf("a bomb: %+v", v)
	}
	// A megabyte of strings against a small schema is checked.
	flat := standardTool(t, `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","maxLength":3}}}}`)
	if v := flat.ValidateArgs([]byte(`{"a":[` + strings.TrimSuffix(strings.Repeat(`"ab",`, 200000), ",") + `]}`)); len(v) != 0 {
		t.Errorf("a large valid array: %d violations, first %+v", len(v), v[0])
	}
}
