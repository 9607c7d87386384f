package runtime

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// An outputSchema is a schema the page declares like argsSchema, parsed
// and walked for every result: --max-schema-bytes holds for it too, in
// create_session and in update_tools. It was not measured, so a page could
// declare one as large as a frame (1 MiB) for each of its 64 tools. (Its
// nesting is refused by the schema check already.)
func TestOutputSchemaWithinSchemaLimits(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	large := `{"type":"object","properties":{"a":{"type":"string","description":"` + strings.Repeat("x", 70<<10) + `"}}}`
	tools := func(out string) string {
		return `[{"name":"t","description":"d","argsSchema":{"type":"object","properties":{},"required":[]},"outputSchema":` + out + `}]`
	}
	for _, c := range []struct {
		name, out string
		code      wire.Code
	}{{"large", large, wire.CodeSchemaTooLarge}} {
		_, err := p.Call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "held", Skills: json.RawMessage(`{"guidance":"g","tools":` + tools(c.out) + `}`)})
		if err == nil || err.Code != c.code || !strings.Contains(err.Message, "outputSchema") && !strings.Contains(string(mustJSON(err.Details)), "outputSchema") {
			t.Errorf("create_session with a %s outputSchema: %+v, want %s naming outputSchema", c.name, err, c.code)
		}
		info, _ := h.session(p, true)
		_, err = p.Call(wire.MethodUpdateTools, wire.UpdateToolsParams{SessionID: info.SessionID, Tools: json.RawMessage(tools(c.out))})
		if err == nil || err.Code != c.code {
			t.Errorf("update_tools with a %s outputSchema: %+v, want %s", c.name, err, c.code)
		}
	}
}
