package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

// One check's backtracking matches share one time limit, and a match the
// limit stopped fails the check, even where the schema would let a
// failed match through ("not").
func TestBacktrackingPatternLimitIsTheCheck(t *testing.T) {
	evil := strings.Repeat("a", 40) + "b"
	words := make([]string, 20)
	for i := range words {
		words[i] = evil
	}
	args, _ := json.Marshal(map[string]any{"words": words})
	for _, c := range []struct{ name, schema string }{
		{"items", `{"type":"object","properties":{"words":{"type":"array","items":{"type":"string","pattern":"^(?=a)(a+)+$"}}}}`},
		{"not", `{"type":"object","properties":{"words":{"type":"array","items":{"type":"string","not":{"pattern":"^(?=a)(a+)+$"}}}}}`},
	} {
		tool := standardTool(t, c.schema)
		v := tool.ValidateArgs(args)
		found := false
		for _, x := range v {
			found = found || (x.Path == RootPath && strings.Contains(x.Message, "not checked"))
		}
		if !found {
			t.Errorf("%s: %d strings that backtrack: %+v; want the check stopped and said so", c.name, len(words), v)
		}
	}
	// The limit is per check: the next check has its own.
	tool := standardTool(t, `{"type":"object","properties":{"w":{"type":"string","pattern":"^(?=a)a+$"}}}`)
	if v := tool.ValidateArgs([]byte(`{"w":"aaaa"}`)); len(v) != 0 {
		t.Fatalf("a plain match refused: %+v", v)
	}
}
