package mcpbridge

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawClient speaks newline-delimited JSON-RPC to ServeStdio by hand, so a
// test can send what no well-behaved client would.
type rawClient struct {
	t    *testing.T
	in   io.WriteCloser
	out  *bufio.Scanner
	done chan error
}

func startStdio(t *testing.T, m *Mirror) *rawClient {
	t.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	c := &rawClient{t: t, in: fromClient, out: bufio.NewScanner(toClient), done: make(chan error, 1)}
	c.out.Buffer(nil, 64<<20) // a batch's answers are one line
	go func() { c.done <- ServeStdio(context.Background(), m, toServer, fromServer); fromServer.Close() }()
	t.Cleanup(func() {
		fromClient.Close()
		go io.Copy(io.Discard, toClient) // let the server finish writing
		select {
		case err := <-c.done:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("ServeStdio did not return after stdin closed")
		}
	})
	return c
}

func (c *rawClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// recv reads the next message the server wrote.
func (c *rawClient) recv() map[string]any {
	c.t.Helper()
	got := make(chan map[string]any, 1)
	go func() {
		var m map[string]any
		if c.out.Scan() {
			if err := json.Unmarshal(c.out.Bytes(), &m); err != nil {
				m = map[string]any{"unparsable": c.out.Text()}
			}
		}
		got <- m
	}()
	select {
	case m := <-got:
		if m == nil {
			c.t.Fatal("the server closed stdout")
		}
		return m
	case <-time.After(10 * time.Second):
		c.t.Fatal("no message from the server within 10s")
		return nil
	}
}

func (c *rawClient) recvRaw() string {
	c.t.Helper()
	if !c.out.Scan() {
		c.t.Fatal("the server closed stdout")
	}
	return c.out.Text()
}

func (c *rawClient) initialize(version string) map[string]any {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	res := c.recv()
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return res
}

func errCode(t *testing.T, m map[string]any) float64 {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("want an error response, got %v", m)
	}
	return e["code"].(float64)
}

// initialize negotiates the client's revision when the SDK speaks it, else
// the newest that begins with initialize; 2026-07-28 begins with
// server/discover instead (TestStdioStatelessRevision).
func TestInitializeNegotiatesVersion(t *testing.T) {
	for client, want := range map[string]string{
		"2024-11-05": "2024-11-05", "2025-03-26": "2025-03-26", "2025-06-18": "2025-06-18", "2025-11-25": "2025-11-25",
		"2026-07-28": "2025-11-25", // the stateless revision has no initialize
		"1999-01-01": "2025-11-25",
	} {
		c := startStdio(t, testMirror(newTestTools(), Options{}))
		res := c.initialize(client)["result"].(map[string]any)
		if res["protocolVersion"] != want {
			t.Errorf("client %s: negotiated %v, want %s", client, res["protocolVersion"], want)
		}
		caps, _ := json.Marshal(res["capabilities"])
		info := res["serverInfo"].(map[string]any)
		if string(caps) != `{"tools":{"listChanged":true}}` || info["name"] != "pedelec" || info["version"] != "test" || res["instructions"] != Instructions {
			t.Errorf("initialize result: %v", res)
		}
	}
}

// A 2026-07-28 client discovers the server instead of initializing, and
// may call at once.
func TestStdioStatelessRevision(t *testing.T) {
	c := startStdio(t, testMirror(newTestTools(), Options{}))
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	c.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`)
	res, _ := c.recv()["result"].(map[string]any)
	if versions, _ := json.Marshal(res["supportedVersions"]); string(versions) != `["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]` {
		t.Fatalf("server/discover: %v", res)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"a":1},` + meta + `}}`)
	if m := c.recv(); m["id"] != 2.0 || m["result"] == nil {
		t.Fatalf("tools/call: %v", m)
	}
}

// What the SDK would end the session over is answered here, with the id
// when it could be read, and the session goes on; what it answers itself
// it answers, with its codes.
func TestJSONRPCErrors(t *testing.T) {
	c := startStdio(t, testMirror(newTestTools(), Options{}))

	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if m := c.recv(); m["error"] == nil || m["id"] != 1.0 { // the SDK's code is 0 here
		t.Errorf("tools/list before initialize: %v", m)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"initialize"}`)
	if m := c.recv(); errCode(t, m) != jsonrpc.CodeInvalidRequest || m["id"] != 2.0 {
		t.Errorf("initialize without params: %v", m)
	}
	c.initialize("2025-06-18")

	cases := []struct {
		name, line string
		code       float64
		id         any
	}{
		{"malformed JSON", `{"jsonrpc":"2.0","id":3,"method":`, jsonrpc.CodeParseError, nil},
		{"two values on a line", `{"jsonrpc":"2.0","id":3,"method":"ping"} {}`, jsonrpc.CodeParseError, nil},
		{"not 2.0", `{"jsonrpc":"1.0","id":4,"method":"ping"}`, jsonrpc.CodeInvalidRequest, 4.0},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, jsonrpc.CodeInvalidRequest, nil},
		{"no method", `{"jsonrpc":"2.0"}`, jsonrpc.CodeInvalidRequest, nil},
		{"empty batch", `[]`, jsonrpc.CodeInvalidRequest, nil},
		{"bad message in a batch", `[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"1.0"}]`, jsonrpc.CodeInvalidRequest, nil},
		{"unknown method", `{"jsonrpc":"2.0","id":"u","method":"pedelec/nothing"}`, jsonrpc.CodeMethodNotFound, "u"},
		{"params not an object", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":[1]}`, jsonrpc.CodeInvalidParams, 6.0},
		{"unknown tool", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"nope"}}`, jsonrpc.CodeInvalidParams, 8.0},
		{"bad cursor", `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":"!!"}}`, jsonrpc.CodeInvalidParams, 9.0},
		{"batch after 2025-06-18", `[{"jsonrpc":"2.0","id":11,"method":"ping"}]`, jsonrpc.CodeInvalidRequest, nil},
	}
	for _, tc := range cases {
		c.send(tc.line)
		m := c.recv()
		if errCode(t, m) != tc.code || m["id"] != tc.id {
			t.Errorf("%s: got %v, want code %v id %v", tc.name, m, tc.code, tc.id)
		}
	}
	// An unknown notification is ignored; the session goes on.
	c.send(`{"jsonrpc":"2.0","method":"notifications/whatever"}`)
	c.send(`{"jsonrpc":"2.0","id":12,"method":"ping"}`)
	if m := c.recv(); m["id"] != 12.0 || m["result"] == nil {
		t.Errorf("ping: %v", m)
	}
}

func TestToolsListAndCall(t *testing.T) {
	c := startStdio(t, testMirror(newTestTools(), Options{}))
	c.initialize("2025-11-25")
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	res := c.recv()["result"].(map[string]any)
	tools := res["tools"].([]any)
	if len(tools) != 3 || tools[0].(map[string]any)["name"] != "block" || res["nextCursor"] != nil {
		t.Fatalf("tools/list: %v", res)
	}
	// The schema is listed as the page declared it.
	if schema, _ := json.Marshal(tools[0].(map[string]any)["inputSchema"]); string(schema) != `{"type":"object"}` {
		t.Fatalf("inputSchema: %s", schema)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}`)
	got, _ := json.Marshal(c.recv()["result"]) // map keys marshal sorted
	if string(got) != `{"content":[{"text":"{\"a\":1}","type":"text"}],"structuredContent":{"a":1}}` {
		t.Errorf("tools/call: %s", got)
	}
}

// tools/list pages hold 1000 tools, as they did before the SDK served
// them; the cursor is the SDK's.
func TestToolsListPages(t *testing.T) {
	var tools []wire.MCPTool
	for i := range 1005 {
		tools = append(tools, tool(fmt.Sprintf("t%04d", i)))
	}
	m := NewMirror("test", inline(newTestTools().call), Options{})
	m.Update(snapshot(tools...))
	c := startStdio(t, m)
	c.initialize("2025-11-25")
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	first := c.recv()["result"].(map[string]any)
	cursor, _ := first["nextCursor"].(string)
	if n := len(first["tools"].([]any)); n != 1000 || cursor == "" {
		t.Fatalf("first page: %d tools, cursor %q", n, cursor)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"` + cursor + `"}}`)
	second := c.recv()["result"].(map[string]any)
	if n := len(second["tools"].([]any)); n != 5 || second["nextCursor"] != nil {
		t.Fatalf("second page: %d tools, cursor %v", n, second["nextCursor"])
	}
}

// notifications/cancelled ends the call's ctx; the session keeps serving.
// The SDK still sends what the handler returns then (in Pedelec, the
// TOOL_CALL_CANCELLED isError result), which clients drop: the spec only
// says a receiver SHOULD NOT answer a cancelled request.
func TestCancelledCallEndsItsCtx(t *testing.T) {
	tt := newTestTools()
	c := startStdio(t, testMirror(tt, Options{}))
	c.initialize("2025-06-18")
	c.send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"block"}}`)
	tt.awaitStarted(t, "block")
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"user"}}`)
	if why := tt.awaitEnded(t); why == nil {
		t.Fatal("the call's ctx ended without a cause")
	}
	c.send(`{"jsonrpc":"2.0","id":"next","method":"ping"}`)
	for {
		m := c.recv()
		if m["id"] == "next" {
			break
		}
		if m["id"] != "slow" {
			t.Fatalf("after a cancel: %v", m)
		}
	}
}

// Calls run concurrently: a blocked call does not hold up others, and
// answers from many calls at once come out whole, one per line.
func TestConcurrentCalls(t *testing.T) {
	tt := newTestTools()
	c := startStdio(t, testMirror(tt, Options{}))
	c.initialize("2025-06-18")
	c.send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"block"}}`)
	const n = 50
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"pad":%q}}}`, i+1, strings.Repeat("x", i*100)))
		}()
	}
	wg.Wait()
	seen := map[float64]bool{}
	for range n {
		m := c.recv()
		if _, ok := m["result"]; !ok {
			t.Fatalf("answer: %v", m)
		}
		seen[m["id"].(float64)] = true
	}
	if len(seen) != n {
		t.Fatalf("%d distinct answers, want %d", len(seen), n)
	}
	// Closing stdin ends the blocked call too.
	c.in.Close()
	if why := tt.awaitEnded(t); why == nil {
		t.Fatal("the blocked call's ctx ended without a cause")
	}
}

// Batches (MCP 2025-03-26 and before) are answered in one array; one that
// holds notifications is answered one array per run of calls between
// them (the SDK alone would never answer it).
func TestBatchBefore20250618(t *testing.T) {
	c := startStdio(t, testMirror(newTestTools(), Options{}))
	c.initialize("2025-03-26")
	c.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}]`)
	var answers []map[string]any
	if raw := c.recvRaw(); json.Unmarshal([]byte(raw), &answers) != nil || len(answers) != 2 {
		t.Fatalf("batch answer: %s", raw)
	}
	c.send(`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{}}},{"jsonrpc":"2.0","id":5,"method":"ping"}]`)
	ids := map[float64]bool{}
	for len(ids) < 3 {
		raw := c.recvRaw()
		if json.Unmarshal([]byte(raw), &answers) != nil {
			t.Fatalf("batch answer: %s", raw)
		}
		for _, a := range answers {
			ids[a["id"].(float64)] = true
		}
	}
	if !ids[3] || !ids[4] || !ids[5] {
		t.Fatalf("answered %v", ids)
	}
}

func TestListChangedReachesInitializedSessions(t *testing.T) {
	m := testMirror(newTestTools(), Options{})
	c := startStdio(t, m)
	c.initialize("2025-06-18")
	m.Update(snapshot(tool("echo"), tool("slow")))
	m.Update(snapshot(tool("slow"))) // coalesced with the first: one notification
	if msg := c.recv(); msg["method"] != "notifications/tools/list_changed" {
		t.Fatalf("got %v", msg)
	}
	// The SDK coalesces a burst over a short delay, which a loaded machine
	// can outlast: a second list_changed may come, but nothing else does
	// before the ping's answer.
	c.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	for {
		msg := c.recv()
		if msg["id"] == 1.0 {
			break
		}
		if msg["method"] != "notifications/tools/list_changed" {
			t.Fatalf("before the ping's answer: %v", msg)
		}
	}
}

// The server pings its client every KeepAlive; a client that leaves
// KeepAliveMisses pings in a row unanswered is taken as gone, and the
// session ends (its calls cancelled).
func TestKeepAlivePings(t *testing.T) {
	tt := newTestTools()
	c := startStdio(t, testMirror(tt, Options{KeepAlive: 40 * time.Millisecond}))
	c.initialize("2025-11-25")
	ping := c.recv()
	if ping["method"] != "ping" || ping["id"] == nil {
		t.Fatalf("want a ping request, got %v", ping)
	}
	id, _ := json.Marshal(ping["id"])
	c.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{}}`)

	c.send(`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"block"}}`)
	tt.awaitStarted(t, "block")
	// No more answers: after three missed pings the session ends, and
	// with it ServeStdio, which closes stdout.
	misses := 0
	for c.out.Scan() {
		var m map[string]any
		switch json.Unmarshal(c.out.Bytes(), &m); m["method"] {
		case "ping":
			misses++
		case "notifications/cancelled": // the SDK gives up on each ping
		default:
			t.Fatalf("want only pings, got %s", c.out.Text())
		}
	}
	if misses < KeepAliveMisses {
		t.Fatalf("the session ended after %d unanswered pings, want %d", misses, KeepAliveMisses)
	}
	if tt.awaitEnded(t) == nil {
		t.Fatal("the call's ctx ended without a cause")
	}
}

// The screen reads a stateless request's revision under the SDK's key.
func TestScreenKnowsTheRevisionKey(t *testing.T) {
	if mcp.MetaKeyProtocolVersion != "io.modelcontextprotocol/protocolVersion" {
		t.Fatalf("the SDK's key is %q: change batchRule.note's tag", mcp.MetaKeyProtocolVersion)
	}
	var b batchRule
	b.note("tools/list", json.RawMessage(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`))
	if b.noneSince != "2026-07-28" {
		t.Fatalf("noneSince %q", b.noneSince)
	}
	b = batchRule{}
	b.note("initialize", json.RawMessage(`{"protocolVers\u0069on":"2025-06-18"}`))
	if b.noneSince != "2025-06-18" {
		t.Fatalf("an escaped key: noneSince %q", b.noneSince)
	}
}
