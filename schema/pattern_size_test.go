package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

// A pattern that compiles too large is refused with the tool's definition,
// in argsSchema and in inputSchema, whichever engine would run it; the
// patterns pages write stay well inside.
func TestPatternTooLargeRefused(t *testing.T) {
	for _, p := range []string{strings.Repeat("(a)", 20000), strings.Repeat("(a|b)", 2000), "^" + strings.Repeat("[a-z]{1000}", 6) + "$", "(?=a)" + strings.Repeat("(a)", 200)} {
		for _, key := range []string{"argsSchema", "inputSchema"} {
			if key == "argsSchema" && strings.HasPrefix(p, "(?=") {
				continue // the subset refuses lookaround whatever its size
			}
			schema, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string", "pattern": p}}})
			skills, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{"name": "t", "description": "A tool.", key: json.RawMessage(schema)}}})
			_, problems := ValidateSkills(skills)
			if len(problems) == 0 || !strings.Contains(problems[0].Message, "too large") {
				t.Errorf("%s pattern %.30s…: %+v, want it refused as too large", key, p, problems)
			} else {
				t.Logf("%s: %.200s", key, problems[0].Message)
			}
		}
	}
	for _, p := range []string{`^.{0,1000}$`, `^[\p{L}\p{N} ]{1,500}$`, `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$`} {
		if _, err := compilePattern(p); err != nil {
			t.Errorf("pattern %s refused: %v", p, err)
		}
	}
}
