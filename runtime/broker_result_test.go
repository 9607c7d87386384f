package runtime

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A malformed refusal is the page's mistake: INVALID_INPUT names the
// field, and the call stays pending for a good answer. A good refusal
// settles it as TOOL_REFUSED with the page's code.
func TestRefusalIsCheckedThenSettles(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	info, s := h.session(p, true)
	h.send(p, info.SessionID, "go")
	done := make(chan error, 1)
	go func() {
		_, err := s.CallTool(context.Background(), "echo", json.RawMessage(`{"x":1}`))
		done <- err
	}()
	call := toolCall(t, p, "echo", 1)
	submit := func(r *wire.Refusal) *wire.Error {
		_, err := p.Call(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Refusal: r})
		return err
	}
	for _, bad := range []wire.Refusal{{Code: "sold out", Message: "m"}, {Code: "", Message: "m"}, {Code: "X", Message: " "}} {
		if err := submit(&bad); err == nil || err.Code != wire.CodeInvalidInput {
			t.Errorf("refusal %+v: %+v", bad, err)
		}
	}
	if err := submit(&wire.Refusal{Code: "NOT_SIGNED_IN", Message: "Sign in first.", Retryable: true}); err != nil {
		t.Fatal(err)
	}
	werr := wantCode(t, <-done, wire.CodeToolRefused)
	if d, _ := werr.Details.(map[string]any); d["reason"] != "NOT_SIGNED_IN" || d["retryable"] != true || d["tool"] != "echo" {
		t.Errorf("details = %+v", werr.Details)
	}
	if d := settled(t, p, call.ToolRequestID); d.Outcome != wire.OutcomeResult {
		t.Errorf("settled = %+v", d)
	}
}

// Over MCP a large result becomes a file, except for a tool that declares
// an outputSchema (the client checks structuredContent against it); the
// snapshot carries the outputSchema to the mirror.
func TestMCPLargeResultsAndOutputSchema(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.Providers = provider.NewRegistry("", heldProvider{turns: make(chan *heldTurn, 1)}, provider.NewMCP())
		o.MaxInlineResultBytes = 64
	})
	p := h.page()
	big := map[string]any{"text": strings.Repeat("x", 200)}
	p.Handle("table", func(json.RawMessage) any { return big })
	p.Handle("declared", func(json.RawMessage) any { return big })
	skills := `{"guidance":"g","tools":[
 {"name":"table","description":"A large table.","argsSchema":{"type":"object","properties":{},"required":[]}},
 {"name":"declared","description":"A large declared result.","argsSchema":{"type":"object","properties":{},"required":[]},
  "outputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]}`
	info := p.CreateSession(wire.CreateSessionParams{Provider: "mcp", Skills: json.RawMessage(skills)})
	snap := h.core.mcp.Snapshot()
	if tools := snap.Sessions[0].Tools; len(tools[0].OutputSchema) != 0 || !strings.Contains(string(tools[1].OutputSchema), `"required":["text"]`) {
		t.Fatalf("snapshot tools = %+v", tools)
	}
	out := h.core.mcp.Answer(context.Background(), info.SessionID, "table", nil, nil)
	if !out.OK || out.ResultFile == nil || out.ResultFile.AssetPath == "" {
		t.Fatalf("a large result over MCP: %+v", out)
	}
	data, err := os.ReadFile(out.ResultFile.Path)
	if want, _ := json.Marshal(big); err != nil || string(data) != string(want) {
		t.Fatalf("the file holds %s (%v)", data, err)
	}
	out = h.core.mcp.Answer(context.Background(), info.SessionID, "declared", nil, nil)
	if !out.OK || out.ResultFile != nil || len(out.Result) < 200 {
		t.Fatalf("a declared result must stay inline over MCP: %+v", out)
	}
}
