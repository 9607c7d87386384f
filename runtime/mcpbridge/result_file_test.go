package mcpbridge

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Issue 26 over MCP, through a real client: a declared outputSchema is in
// tools/list, a result too large to hand over inline is a resource link
// plus the small JSON tool-call prints, and a refusal is isError with
// structuredContent.
func TestMirrorOutputSchemaFilesAndRefusals(t *testing.T) {
	file := &wire.ResultFile{Path: "/state/sessions/x/work/assets/tool-results/table-1.json", AssetPath: "/tool-results/table-1.json",
		SizeBytes: 70000, Shape: wire.ResultShape{Type: "object", Keys: []string{"rows"}}, Preview: `{"rows":[`, Hint: "read it"}
	m := NewMirror("test", answers(func(_ context.Context, _, tool string, _ json.RawMessage, _ func(wire.Progress)) (json.RawMessage, *wire.ResultFile, error) {
		switch tool {
		case "table":
			return nil, file, nil
		case "buy":
			return nil, nil, wire.Errorf(wire.CodeToolRefused, "the page refused").WithDetails(map[string]any{"reason": "OUT_OF_STOCK", "retryable": false})
		}
		return json.RawMessage(`{"total":3}`), nil, nil
	}), Options{})
	var changes atomic.Int32
	cs := connect(t, m, &changes)
	s := session("s_a", 1, "table", "buy", "totals")
	s.Tools[2].OutputSchema = json.RawMessage(`{"type":"object","properties":{"total":{"type":"integer"}},"required":["total"]}`)
	m.Update(wire.MCPSnapshot{Sessions: []wire.MCPSession{s}})
	waitFor(t, "list_changed", func() bool { return len(names(t, cs)) == 3 })

	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		got, _ := json.Marshal(tool.OutputSchema)
		if tool.Name == "totals" && string(got) != `{"properties":{"total":{"type":"integer"}},"required":["total"],"type":"object"}` {
			t.Errorf("totals' outputSchema = %s", got)
		}
		if tool.Name != "totals" && tool.OutputSchema != nil {
			t.Errorf("%s has an outputSchema it never declared: %s", tool.Name, got)
		}
	}
	// The go-sdk client checks structuredContent against the outputSchema.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "totals"})
	if err != nil || res.IsError {
		t.Fatalf("totals: %v %+v", err, res)
	}
	if sc, _ := json.Marshal(res.StructuredContent); string(sc) != `{"total":3}` {
		t.Fatalf("totals' structuredContent = %s", sc)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "table"})
	if err != nil || res.IsError || len(res.Content) != 2 {
		t.Fatalf("table: %v %+v", err, res)
	}
	link, ok := res.Content[1].(*mcp.ResourceLink)
	if !ok || link.URI != "file://"+file.Path || link.MIMEType != "application/json" || link.Size == nil || *link.Size != 70000 {
		t.Fatalf("the large result's link: %+v", res.Content[1])
	}
	var body wire.AgentResult
	if json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &body) != nil || body.ResultFile == nil || body.ResultFile.Path != file.Path {
		t.Fatalf("the large result's text: %+v", res.Content[0])
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "buy"})
	if err != nil || !res.IsError {
		t.Fatalf("buy: %v %+v", err, res)
	}
	sc, _ := json.Marshal(res.StructuredContent)
	if json.Unmarshal(sc, &body) != nil || body.Error == nil || body.Error.Code != wire.CodeToolRefused {
		t.Fatalf("the refusal's structuredContent: %s", sc)
	}
}
