package mcpbridge

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/schema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An MCP client cannot run `pedelec tool-spec`: TOOL_ARGS_INVALID tells it
// about the inputSchema it has, names the tool as it lists it, and keeps
// Core's code and violations. Both ways the error reaches the mirror are
// covered: schema's own error (Core's /mcp) and one decoded from JSON
// (`pedelec mcp`). `<` and `&` in the text stay readable.
func TestMirrorArgsInvalidSpeaksMCP(t *testing.T) {
	violations := []schema.Violation{{Path: "text", Expected: "a string", Got: "missing", Message: "required <string> & missing"}}
	decoded := func() error {
		raw, _ := json.Marshal(wire.AsError(schema.ArgsInvalid("add_todo", violations)))
		var werr wire.Error
		if err := json.Unmarshal(raw, &werr); err != nil {
			t.Fatal(err)
		}
		return &werr
	}
	for name, fail := range map[string]func() error{
		"from Core":       func() error { return schema.ArgsInvalid("add_todo", violations) },
		"through the CLI": decoded,
	} {
		t.Run(name, func(t *testing.T) {
			m := NewMirror("test", answers(func(context.Context, string, string, json.RawMessage, func(wire.Progress)) (json.RawMessage, *wire.ResultFile, error) {
				return nil, nil, fail()
			}), Options{})
			var changes atomic.Int32
			cs := connect(t, m, &changes)
			m.Update(wire.MCPSnapshot{Sessions: []wire.MCPSession{session("s_a", 1, "add_todo"), session("s_b", 2, "other")}})
			waitFor(t, "the tools", func() bool { return len(names(t, cs)) == 2 })
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "add_todo", Arguments: map[string]any{}})
			if err != nil || !res.IsError {
				t.Fatalf("%v %+v", err, res)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			var body struct {
				Error struct {
					Code    wire.Code
					Message string
					Details struct{ Violations []schema.Violation }
				}
			}
			if err := json.Unmarshal([]byte(text), &body); err != nil {
				t.Fatal(err)
			}
			msg := body.Error.Message
			if body.Error.Code != wire.CodeToolArgsInvalid || len(body.Error.Details.Violations) != 1 {
				t.Errorf("code or violations lost: %s", text)
			}
			if strings.Contains(msg, "tool-spec") || !strings.Contains(msg, "inputSchema") || !strings.Contains(msg, "call add_todo again") ||
				!strings.Contains(msg, "text: required <string> & missing") {
				t.Errorf("message: %q", msg)
			}
			if strings.Contains(text, `\u003c`) || strings.Contains(text, `\u0026`) {
				t.Errorf("escaped for HTML: %s", text)
			}
		})
	}
}
