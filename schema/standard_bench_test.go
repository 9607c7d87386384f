package schema

import (
	"encoding/json"
	"testing"
)

// The cost of inputSchema's validator against the subset's, on the same
// schema and arguments as BenchmarkValidateArgs and
// BenchmarkValidateArgsInvalid (docs/performance.md).

const benchCardSchema = `{"type":"object","properties":{"card":{"type":"object","properties":{
	"title":{"type":"string","minLength":1,"maxLength":120},
	"labels":{"type":"array","items":{"type":"string"},"maxItems":10,"uniqueItems":true}},"required":["title"]}},"required":["card"]}`

func BenchmarkValidateArgsStandard(b *testing.B) {
	tool := standardTool(b, benchCardSchema)
	args := []byte(`{"card":{"title":"Write the release notes","labels":["docs","release","q3"]}}`)
	b.ReportAllocs()
	for b.Loop() {
		if v := tool.ValidateArgs(args); len(v) > 0 {
			b.Fatal(v)
		}
	}
}

func BenchmarkValidateArgsStandardInvalid(b *testing.B) {
	tool := standardTool(b, `{"type":"object","properties":{"delta":{"type":"integer","minimum":-100,"maximum":100}},"required":["delta"]}`)
	args := []byte(`{"delta":2.5}`)
	b.ReportAllocs()
	for b.Loop() {
		if v := tool.ValidateArgs(args); len(v) != 1 {
			b.Fatal(v)
		}
	}
}

// BenchmarkValidateArgsStandardZod is a schema as Zod 4 writes it: $defs,
// anyOf, format, exclusiveMinimum, additionalProperties: false.
func BenchmarkValidateArgsStandardZod(b *testing.B) {
	tool := standardTool(b, zodLike)
	args := []byte(`{"email":"ok@example.com","n":0.5,"v":null,"kind":"card","node":{"id":2}}`)
	b.ReportAllocs()
	for b.Loop() {
		if v := tool.ValidateArgs(args); len(v) > 0 {
			b.Fatal(v)
		}
	}
}

// BenchmarkDefineStandardTool is what an inputSchema costs once: the
// definition check at session creation (its compile included) and the
// compile of its first call.
func BenchmarkDefineStandardTool(b *testing.B) {
	skills, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{"name": "t", "description": "A tool.", "inputSchema": json.RawMessage(benchCardSchema)}}})
	args := []byte(`{"card":{"title":"x"}}`)
	b.ReportAllocs()
	for b.Loop() {
		s, problems := ValidateSkills(skills)
		if len(problems) > 0 {
			b.Fatal(problems)
		}
		r, _ := NewRegistry(s)
		tool, _ := r.Tool("t")
		if v := tool.ValidateArgs(args); len(v) > 0 {
			b.Fatal(v)
		}
	}
}

func BenchmarkDefineSubsetTool(b *testing.B) {
	skills, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{"name": "t", "description": "A tool.", "argsSchema": json.RawMessage(benchCardSchema)}}})
	args := []byte(`{"card":{"title":"x"}}`)
	b.ReportAllocs()
	for b.Loop() {
		s, problems := ValidateSkills(skills)
		if len(problems) > 0 {
			b.Fatal(problems)
		}
		r, _ := NewRegistry(s)
		tool, _ := r.Tool("t")
		if v := tool.ValidateArgs(args); len(v) > 0 {
			b.Fatal(v)
		}
	}
}
