package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A tool that gives inputSchema reaches MCP clients with it as their
// inputSchema, is held to the schema limits as argsSchema is, and a call
// that breaks it never reaches the page.
func TestInputSchemaToolsOverMCPAndLimits(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.Providers = provider.NewRegistry("", heldProvider{turns: make(chan *heldTurn, 1)}, provider.NewMCP())
	})
	p := h.page()
	calls := 0
	p.Handle("invite", func(json.RawMessage) any { calls++; return map[string]any{"ok": true} })
	schema := `{"type":"object","properties":{"email":{"type":"string","format":"email"}},"required":["email"],"additionalProperties":false}`
	info := p.CreateSession(wire.CreateSessionParams{Provider: "mcp", Skills: json.RawMessage(`{"guidance":"g","tools":[{"name":"invite","description":"Invite.","inputSchema":` + schema + `}]}`)})
	if got := h.core.mcp.Snapshot().Sessions[0].Tools[0].ArgsSchema; string(got) != schema {
		t.Errorf("the snapshot's schema = %s, want the inputSchema %s", got, schema)
	}
	out := h.core.mcp.Answer(context.Background(), info.SessionID, "invite", json.RawMessage(`{"email":"nope","extra":1}`), nil)
	if out.OK || out.Error == nil || out.Error.Code != wire.CodeToolArgsInvalid || calls != 0 {
		t.Errorf("a call that breaks the inputSchema: %+v (the page ran %d)", out, calls)
	}
	if out = h.core.mcp.Answer(context.Background(), info.SessionID, "invite", json.RawMessage(`{"email":"ann@example.com"}`), nil); !out.OK || calls != 1 {
		t.Errorf("a valid call: %+v (the page ran %d)", out, calls)
	}

	large := `{"type":"object","properties":{"a":{"type":"string","description":"` + strings.Repeat("x", 70<<10) + `"}}}`
	_, err := p.Call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "held", Skills: json.RawMessage(`{"guidance":"g","tools":[{"name":"t","description":"d","inputSchema":` + large + `}]}`)})
	if err == nil || err.Code != wire.CodeSchemaTooLarge || !strings.Contains(string(mustJSON(err.Details)), "inputSchema") {
		t.Errorf("a large inputSchema: %+v, want SCHEMA_TOO_LARGE naming inputSchema", err)
	}
}
