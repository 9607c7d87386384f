package schema

import (
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkValidateSkills1000Tools measures session creation's check of a
// large manifest: 1,000 tools shaped like the seeds' create_card.
func BenchmarkValidateSkills1000Tools(b *testing.B) {
	tools := make([]any, 1000)
	for i := range tools {
		tools[i] = map[string]any{
			"name": fmt.Sprintf("create_card_%d", i), "description": "Create a card in the active board column.", "timeoutMs": 10000,
			"argsSchema": json.RawMessage(`{"type":"object","properties":{"card":{"type":"object","properties":{
				"title":{"type":"string","minLength":1,"maxLength":120,"pattern":"^[^\\n]+$"},
				"labels":{"type":"array","items":{"type":"string","enum":["red","green","blue"]},"maxItems":10,"uniqueItems":true},
				"priority":{"type":"integer","minimum":1,"maximum":5}},"required":["title"]}},"required":["card"]}`),
		}
	}
	raw, _ := json.Marshal(map[string]any{"guidance": "Use the tools.", "tools": tools})
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, problems := ValidateSkills(raw); len(problems) > 0 {
			b.Fatal(problems)
		}
	}
}

// BenchmarkValidateArgs measures one tool call's argument check against a
// compiled tool.
func BenchmarkValidateArgs(b *testing.B) {
	tool := mustCompile(b, json.RawMessage(`{"type":"object","properties":{"card":{"type":"object","properties":{
		"title":{"type":"string","minLength":1,"maxLength":120},
		"labels":{"type":"array","items":{"type":"string"},"maxItems":10,"uniqueItems":true}},"required":["title"]}},"required":["card"]}`))
	args := []byte(`{"card":{"title":"Write the release notes","labels":["docs","release","q3"]}}`)
	b.ReportAllocs()
	for b.Loop() {
		if v := tool.ValidateArgs(args); len(v) > 0 {
			b.Fatal(v)
		}
	}
}

// BenchmarkValidateArgsInvalid measures the path an agent's mistake takes:
// validation plus the translation of every violation.
func BenchmarkValidateArgsInvalid(b *testing.B) {
	tool := mustCompile(b, json.RawMessage(`{"type":"object","properties":{"delta":{"type":"integer","minimum":-100,"maximum":100}},"required":["delta"]}`))
	args := []byte(`{"delta":2.5}`)
	b.ReportAllocs()
	for b.Loop() {
		if v := tool.ValidateArgs(args); len(v) != 1 {
			b.Fatal(v)
		}
	}
}
