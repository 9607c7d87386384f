package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A hostile page's result that breaks its tool's outputSchema in every
// item must not grow into an error many times its size: TOOL_RESULT_INVALID
// goes to the agent, back to the page and into the session's record, so
// the violations it lists are bounded, and it says there were more.
func TestResultInvalidIsBounded(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.Providers = provider.NewRegistry("", heldProvider{turns: make(chan *heldTurn, 1)}, provider.NewMCP())
	})
	p := h.page()
	items := make([]int, 200_000) // 400 KB of zeros, each one a violation
	p.Handle("bomb", func(json.RawMessage) any { return map[string]any{"a": items} })
	skills := `{"guidance":"g","tools":[
 {"name":"bomb","description":"A result that breaks its schema everywhere.","argsSchema":{"type":"object","properties":{},"required":[]},
  "outputSchema":{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}}}}}]}`
	info := p.CreateSession(wire.CreateSessionParams{Provider: "mcp", Skills: json.RawMessage(skills)})
	out := h.core.mcp.Answer(context.Background(), info.SessionID, "bomb", nil, nil)
	if out.OK || out.Error == nil || out.Error.Code != wire.CodeToolResultInvalid {
		t.Fatalf("want TOOL_RESULT_INVALID, got %+v", out.Error)
	}
	body, _ := json.Marshal(out.Error)
	if len(body) > 64<<10 {
		t.Fatalf("TOOL_RESULT_INVALID for a 400 KB result is %d bytes (message %d); it must stay small", len(body), len(out.Error.Message))
	}
	if !strings.Contains(out.Error.Message, "at least 100 problems") {
		t.Errorf("the message must still count every problem: %.300s", out.Error.Message)
	}
}
