package mcpbridge

import (
	"context"
	"encoding/json"
	"io"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func session(id string, ordinal int, tools ...string) wire.MCPSession {
	s := wire.MCPSession{SessionID: id, Ordinal: ordinal, Origin: "http://localhost:5173"}
	for _, name := range tools {
		s.Tools = append(s.Tools, wire.MCPTool{Name: name, Description: "does " + name,
			ArgsSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"integer"}}}`), TimeoutMs: 1000})
	}
	return s
}

// connect runs m's server over stdio (pipes), as `pedelec mcp` does, and
// the go-sdk's client against it.
func connect(t *testing.T, m *Mirror, changes *atomic.Int32) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- ServeStdio(ctx, m, toServer, fromServer); fromServer.Close() }()
	t.Cleanup(func() {
		fromClient.Close()
		if err := <-served; err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	})
	ct := &mcp.IOTransport{Reader: toClient, Writer: fromClient}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changes.Add(1) },
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func names(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tool := range res.Tools {
		out = append(out, tool.Name+"|"+tool.Title)
	}
	sort.Strings(out)
	return out
}

func TestMirrorNamesAndListChanged(t *testing.T) {
	type called struct{ session, tool, args string }
	calls := make(chan called, 4)
	m := NewMirror("test", inline(func(_ context.Context, sid, tool string, args json.RawMessage, _ func(wire.Progress)) (json.RawMessage, error) {
		calls <- called{sid, tool, string(args)}
		if tool == "bad" {
			return nil, wire.Errorf(wire.CodeToolArgsInvalid, "x: expected an integer")
		}
		return json.RawMessage(`{"ok":1}`), nil
	}), Options{})
	var changes atomic.Int32
	cs := connect(t, m, &changes)
	if got := names(t, cs); len(got) != 0 {
		t.Fatalf("tools before any session: %v", got)
	}

	m.Update(wire.MCPSnapshot{Sessions: []wire.MCPSession{session("s_a", 1, "add", "bad")}})
	waitFor(t, "list_changed for the first page", func() bool { return changes.Load() >= 1 })
	if got := names(t, cs); len(got) != 2 || got[0] != "add|add" {
		t.Fatalf("one page: %v", got)
	}

	// The same snapshot again changes nothing and notifies nobody. (The
	// SDK coalesces the first page's two additions over a short delay,
	// which a loaded machine can outlast: wait until its notifications
	// have stopped coming before counting.)
	settle(&changes)
	before := changes.Load()
	m.Update(wire.MCPSnapshot{Sessions: []wire.MCPSession{session("s_a", 1, "add", "bad")}})
	time.Sleep(50 * time.Millisecond)
	if changes.Load() != before {
		t.Fatalf("an unchanged snapshot sent list_changed")
	}

	m.Update(wire.MCPSnapshot{Sessions: []wire.MCPSession{session("s_a", 1, "add", "bad"), session("s_b", 2, "add")}})
	waitFor(t, "list_changed for the second page", func() bool { return changes.Load() > before })
	// The first page's tools keep the names the client already has; the
	// second page's "add" is taken, so it gets its page's prefix.
	want := []string{"add|add (page 1, http://localhost:5173)", "bad|bad (page 1, http://localhost:5173)", "page2__add|add (page 2, http://localhost:5173)"}
	if got := names(t, cs); len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("two pages: %v", got)
	}

	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "page2__add", Arguments: map[string]any{"x": 1}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	if c := <-calls; c.session != "s_b" || c.tool != "add" || c.args != `{"x":1}` {
		t.Fatalf("the broker got %+v", c)
	}
	if sc, _ := json.Marshal(res.StructuredContent); string(sc) != `{"ok":1}` || res.Content[0].(*mcp.TextContent).Text != `{"ok":1}` {
		t.Fatalf("result: %s %+v", sc, res.Content)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "bad"})
	if err != nil || !res.IsError {
		t.Fatalf("a Pedelec error must come back in-band: %v %+v", err, res)
	}
	<-calls
	var body wire.AgentResult
	if json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &body) != nil || body.Error.Code != wire.CodeToolArgsInvalid {
		t.Fatalf("isError text: %+v", res.Content)
	}

	m.Update(wire.MCPSnapshot{})
	waitFor(t, "the tools to go with the pages", func() bool { return len(names(t, cs)) == 0 })
}

func TestResultStructuredOnlyForObjects(t *testing.T) {
	if r := Result(json.RawMessage(`[1,2]`)); r.StructuredContent != nil || r.Content[0].(*mcp.TextContent).Text != `[1,2]` {
		t.Fatalf("array result: %+v", r)
	}
	if r := Result(json.RawMessage(`{"a":1}`)); r.StructuredContent == nil {
		t.Fatalf("object result has no structuredContent")
	}
}

// tools/list carries a tool's annotations (issue 22): MCP's in
// annotations, WebMCP's and "asks the user first" in _meta.
func TestMirrorCarriesAnnotations(t *testing.T) {
	m := NewMirror("test", inline(func(context.Context, string, string, json.RawMessage, func(wire.Progress)) (json.RawMessage, error) {
		return json.RawMessage(`1`), nil
	}), Options{})
	var changes atomic.Int32
	cs := connect(t, m, &changes)
	s := session("s_a", 1, "pay", "plain")
	s.Tools[0].Annotations = json.RawMessage(`{"title":"Pay","destructiveHint":true,"readOnlyHint":false,"idempotentHint":true,"consequentialHint":true}`)
	s.Tools[0].AsksConsent = true
	m.Update(wire.MCPSnapshot{Sessions: []wire.MCPSession{s}})
	waitFor(t, "list_changed", func() bool { return changes.Load() >= 1 })
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		switch tool.Name {
		case "pay":
			a := tool.Annotations
			if a == nil || a.Title != "Pay" || a.DestructiveHint == nil || !*a.DestructiveHint || a.ReadOnlyHint || !a.IdempotentHint || a.OpenWorldHint != nil {
				t.Errorf("pay's annotations = %+v", a)
			}
			if tool.Meta["consequentialHint"] != true || tool.Meta["pedelec/asksConsent"] != true {
				t.Errorf("pay's _meta = %v", tool.Meta)
			}
		case "plain":
			if tool.Annotations != nil || tool.Meta != nil {
				t.Errorf("plain has annotations %+v, _meta %v", tool.Annotations, tool.Meta)
			}
		}
	}
}

// settle waits until n has not moved for 150 ms (at most 3 s).
func settle(n *atomic.Int32) {
	last := n.Load()
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
		time.Sleep(150 * time.Millisecond)
		if now := n.Load(); now == last {
			return
		} else {
			last = now
		}
	}
}

// A handler's error result ({"error":{code, message}}, what the SDK
// submits for a throw) is isError to MCP clients; other results are not.
func TestToolErrorResultIsError(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"error":{"code":"TOOL_HANDLER_ERROR","message":"the shop is closed"}}`:      true,
		`{"error":{"code":"OUT_OF_STOCK","message":"none left","details":{"sku":1}}}`: true,
		`{"error":"just a string"}`:                          false,
		`{"error":{"code":"X","message":"m"},"partial":[1]}`: false,
		`{"value":3}`:                            false,
		`[{"error":{"code":"X","message":"m"}}]`: false,
		`"error"`:                                false,
	} {
		if got := isToolErrorResult(json.RawMessage(raw)); got != want {
			t.Errorf("isToolErrorResult(%s) = %v, want %v", raw, got, want)
		}
	}
}

// A name the client was given stays that tool's while its page is open,
// however pages come and go; descriptions name the page once there are
// several.
func TestMirrorNamesStayWhilePagesComeAndGo(t *testing.T) {
	m := NewMirror("test", inline(func(context.Context, string, string, json.RawMessage, func(wire.Progress)) (json.RawMessage, error) {
		return json.RawMessage(`{}`), nil
	}), Options{})
	var changes atomic.Int32
	cs := connect(t, m, &changes)
	list := func() map[string]string { // name → description
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, tool := range res.Tools {
			out[tool.Name] = tool.Description
		}
		return out
	}
	step := func(what string, want map[string]string, sessions ...wire.MCPSession) {
		t.Helper()
		m.Update(wire.MCPSnapshot{Sessions: sessions})
		var got map[string]string
		waitFor(t, what, func() bool {
			got = list()
			if len(got) != len(want) {
				return false
			}
			for name, desc := range want {
				if got[name] != desc {
					return false
				}
			}
			return true
		})
	}
	a, b, c := session("s_a", 1, "add_todo", "list"), session("s_b", 2, "add_todo"), session("s_c", 3, "add_todo")
	b.Origin = ""
	step("one page", map[string]string{"add_todo": "does add_todo", "list": "does list"}, a)
	step("a second page", map[string]string{
		"add_todo": "[page 1, http://localhost:5173] does add_todo", "list": "[page 1, http://localhost:5173] does list",
		"page2__add_todo": "[page 2] does add_todo"}, a, b)
	step("the first page closed", map[string]string{"page2__add_todo": "does add_todo"}, b)
	step("a third page: the free name is its", map[string]string{
		"page2__add_todo": "[page 2] does add_todo", "add_todo": "[page 3, http://localhost:5173] does add_todo"}, b, c)
	// A page that itself names a tool like another page's prefixed one.
	d := session("s_d", 4, "page2__add_todo")
	step("a tool named like a prefix", map[string]string{
		"page2__add_todo": "[page 2] does add_todo", "add_todo": "[page 3, http://localhost:5173] does add_todo",
		"page4__page2__add_todo": "[page 4, http://localhost:5173] does page2__add_todo"}, b, c, d)
}
