package mcpserve

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
)

// rawClient speaks newline-delimited JSON-RPC to ServeStdio by hand, so a
// test can send what no well-behaved client would.
type rawClient struct {
	t    *testing.T
	in   io.WriteCloser
	out  *bufio.Scanner
	done chan error
}

func startStdio(t *testing.T, s *Server) *rawClient {
	t.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	c := &rawClient{t: t, in: fromClient, out: bufio.NewScanner(toClient), done: make(chan error, 1)}
	c.out.Buffer(nil, 64<<20) // a batch's answers are one line
	go func() { c.done <- ServeStdio(context.Background(), s, toServer, fromServer); fromServer.Close() }()
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

// testServer has one tool "echo" that returns its arguments, and "block"
// that waits for its ctx and reports why it ended.
func testServer() (*Server, chan string) {
	s := NewServer(Implementation{Name: "pedelec", Version: "test"}, "use the tools")
	ended := make(chan string, 4)
	s.AddTool(Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, args json.RawMessage) *CallToolResult {
		return &CallToolResult{Content: []Content{TextContent(string(args))}}
	})
	s.AddTool(Tool{Name: "block", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, _ json.RawMessage) *CallToolResult {
		<-ctx.Done()
		ended <- context.Cause(ctx).Error()
		return &CallToolResult{Content: []Content{TextContent("ended")}}
	})
	return s, ended
}

func TestInitializeNegotiatesVersion(t *testing.T) {
	for client, want := range map[string]string{
		"2024-11-05": "2024-11-05", "2025-03-26": "2025-03-26", "2025-06-18": "2025-06-18", "2025-11-25": "2025-11-25",
		"2026-07-28": "2025-11-25", // stateless revision: answer with the newest we speak
		"1999-01-01": "2025-11-25",
	} {
		s, _ := testServer()
		c := startStdio(t, s)
		res := c.initialize(client)["result"].(map[string]any)
		if res["protocolVersion"] != want {
			t.Errorf("client %s: negotiated %v, want %s", client, res["protocolVersion"], want)
		}
		caps, _ := json.Marshal(res["capabilities"])
		info := res["serverInfo"].(map[string]any)
		if string(caps) != `{"tools":{"listChanged":true}}` || info["name"] != "pedelec" || info["version"] != "test" || res["instructions"] != "use the tools" {
			t.Errorf("initialize result: %v", res)
		}
	}
}

func TestJSONRPCErrors(t *testing.T) {
	s, _ := testServer()
	c := startStdio(t, s)

	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if m := c.recv(); errCode(t, m) != CodeInvalidRequest || m["id"] != 1.0 {
		t.Errorf("tools/list before initialize: %v", m)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"initialize"}`)
	if m := c.recv(); errCode(t, m) != CodeInvalidParams {
		t.Errorf("initialize without params: %v", m)
	}
	c.initialize("2025-06-18")

	cases := []struct {
		name, line string
		code       float64
		id         any
	}{
		{"malformed JSON", `{"jsonrpc":"2.0","id":3,"method":`, CodeParseError, nil},
		{"not 2.0", `{"jsonrpc":"1.0","id":4,"method":"ping"}`, CodeInvalidRequest, 4.0},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, CodeInvalidRequest, nil},
		{"no method", `{"jsonrpc":"2.0"}`, CodeInvalidRequest, nil},
		{"unknown method", `{"jsonrpc":"2.0","id":"u","method":"resources/list"}`, CodeMethodNotFound, "u"},
		{"server/discover", `{"jsonrpc":"2.0","id":5,"method":"server/discover","params":{}}`, CodeMethodNotFound, 5.0},
		{"params not an object", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":[1]}`, CodeInvalidParams, 6.0},
		{"call without name", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}`, CodeInvalidParams, 7.0},
		{"unknown tool", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"nope"}}`, CodeInvalidParams, 8.0},
		{"bad cursor", `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":"!!"}}`, CodeInvalidParams, 9.0},
		{"second initialize", `{"jsonrpc":"2.0","id":10,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`, CodeInvalidRequest, 10.0},
		{"batch after 2025-06-18", `[{"jsonrpc":"2.0","id":11,"method":"ping"}]`, CodeInvalidRequest, nil},
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
	s, _ := testServer()
	c := startStdio(t, s)
	c.initialize("2025-11-25")
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	res := c.recv()["result"].(map[string]any)
	tools := res["tools"].([]any)
	if len(tools) != 2 || tools[0].(map[string]any)["name"] != "block" || res["nextCursor"] != nil {
		t.Fatalf("tools/list: %v", res)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}`)
	got, _ := json.Marshal(c.recv()["result"]) // map keys marshal sorted
	if string(got) != `{"content":[{"text":"{\"a\":1}","type":"text"}]}` {
		t.Errorf("tools/call: %s", got)
	}
}

func TestToolsListPages(t *testing.T) {
	s := NewServer(Implementation{Name: "p", Version: "1"}, "")
	for i := range pageSize + 5 {
		s.AddTool(Tool{Name: strings.Repeat("t", 1+i/100) + string(rune('a'+i%26)) + string(rune('a'+i/26%26)), InputSchema: json.RawMessage(`{"type":"object"}`)}, nil)
	}
	first, err := s.listTools("")
	if err != nil || len(first.Tools) != pageSize || first.NextCursor == "" {
		t.Fatalf("first page: %d tools, cursor %q, %v", len(first.Tools), first.NextCursor, err)
	}
	second, err := s.listTools(first.NextCursor)
	if err != nil || len(second.Tools)+pageSize != len(s.tools) || second.NextCursor != "" || second.Tools[0].Name <= first.Tools[pageSize-1].Name {
		t.Fatalf("second page: %d tools, cursor %q, %v", len(second.Tools), second.NextCursor, err)
	}
}

// notifications/cancelled ends the call's ctx, and no response follows
// (the spec's rule); the session keeps serving.
func TestCancelledCallGetsNoResponse(t *testing.T) {
	s, ended := testServer()
	c := startStdio(t, s)
	c.initialize("2025-06-18")
	c.send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"block"}}`)
	// Wait for the call to be in flight before cancelling it.
	waitFor(t, "the call to start", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for ss := range s.sessions {
			ss.mu.Lock()
			n := len(ss.calls)
			ss.mu.Unlock()
			if n == 1 {
				return true
			}
		}
		return false
	})
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"user"}}`)
	if why := <-ended; why != errCancelledByClient.Error() {
		t.Fatalf("the call ended with %q", why)
	}
	c.send(`{"jsonrpc":"2.0","id":"next","method":"ping"}`)
	if m := c.recv(); m["id"] != "next" {
		t.Fatalf("the first message after a cancel must be the next answer, got %v", m)
	}
}

// Calls run concurrently: a blocked call does not hold up others, and
// answers from many calls at once come out whole, one per line.
func TestConcurrentCalls(t *testing.T) {
	s, ended := testServer()
	c := startStdio(t, s)
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
	// Closing stdin ends the blocked call too (cleanup waits for it).
	c.in.Close()
	if why := <-ended; why != errSessionClosed.Error() && why != context.Canceled.Error() {
		t.Fatalf("the blocked call ended with %q", why)
	}
}

func TestBatchBefore20250618(t *testing.T) {
	s, _ := testServer()
	c := startStdio(t, s)
	c.initialize("2025-03-26")
	c.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}]`)
	var answers []map[string]any
	raw := c.recvRaw()
	if err := json.Unmarshal([]byte(raw), &answers); err != nil || len(answers) != 2 {
		t.Fatalf("batch answer: %s", raw)
	}
}

func (c *rawClient) recvRaw() string {
	c.t.Helper()
	if !c.out.Scan() {
		c.t.Fatal("the server closed stdout")
	}
	return c.out.Text()
}

func TestListChangedReachesInitializedSessions(t *testing.T) {
	s, _ := testServer()
	c := startStdio(t, s)
	c.initialize("2025-06-18")
	s.RemoveTools("echo")
	s.RemoveTools("block") // coalesced with the first: one notification
	if m := c.recv(); m["method"] != "notifications/tools/list_changed" {
		t.Fatalf("got %v", m)
	}
	c.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if m := c.recv(); m["id"] != 1.0 {
		t.Fatalf("a second list_changed was sent for one burst of changes: %v", m)
	}
}
