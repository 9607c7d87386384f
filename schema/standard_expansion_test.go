package schema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// refChain is a schema whose $defs each refer to the next twice, in the
// two forms of an anyOf: a value is checked against 2^n definitions at
// one place, though the schema is a kilobyte. 20 levels took 32 s for the
// arguments {"x": 1}, each level doubling it (the hostile review of
// 2026-12-02).
func refChain(n int, applicator string) string {
	defs := map[string]any{}
	for i := 0; i < n; i++ {
		next := fmt.Sprintf("#/$defs/d%d", i+1)
		defs[fmt.Sprintf("d%d", i)] = map[string]any{applicator: []any{map[string]any{"$ref": next}, map[string]any{"$ref": next}}}
	}
	defs[fmt.Sprintf("d%d", n)] = map[string]any{"type": "string"}
	sch, _ := json.Marshal(map[string]any{"type": "object", "$defs": defs, "properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/d0"}}})
	return string(sch)
}

func TestRefExpansionRefused(t *testing.T) {
	for _, c := range []struct {
		schema string
		want   string
	}{
		{refChain(30, "anyOf"), "subschemas"},
		{refChain(30, "allOf"), "subschemas"},
		{`{"type":"object","$defs":{"a":{"anyOf":[{"$ref":"#/$defs/b"}]},"b":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, "itself"},
	} {
		skills, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{"name": "t", "description": "A tool.", "inputSchema": json.RawMessage(c.schema)}}})
		_, problems := ValidateSkills(skills)
		if len(problems) == 0 || !strings.Contains(problems[0].Message, c.want) {
			t.Errorf("%.80s…: %+v, want it refused (%q)", c.schema, problems, c.want)
		}
	}
	// Recursion that descends into the value, and a definition used in
	// many places, are fine.
	for _, ok := range []string{
		`{"type":"object","$defs":{"Node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}},"properties":{"root":{"$ref":"#/$defs/Node"}}}`,
		refChain(6, "anyOf"),
	} {
		standardTool(t, ok)
	}
}
