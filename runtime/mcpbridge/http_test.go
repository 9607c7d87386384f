package mcpbridge

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type httpHarness struct {
	t   *testing.T
	h   *HTTPHandler
	url string
}

func startHTTP(t *testing.T, m *Mirror, maxBody int64) *httpHarness {
	t.Helper()
	h := NewHTTPHandler(m, maxBody)
	srv := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); srv.Close() })
	return &httpHarness{t: t, h: h, url: srv.URL}
}

// post sends body with the headers a conforming client sends, then those
// in extra ("" deletes).
func (hh *httpHarness) post(ctx context.Context, session, body string, extra map[string]string) *http.Response {
	hh.t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, hh.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set(sessionIDHeader, session)
	}
	for k, v := range extra {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		hh.t.Fatal(err)
	}
	return resp
}

// events reads the SSE messages of a response until it ends.
func events(t *testing.T, resp *http.Response) []map[string]any {
	t.Helper()
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("HTTP %d %s: %s", resp.StatusCode, ct, body)
	}
	var out []map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(data), &m); err != nil {
				t.Fatalf("event data %q: %v", data, err)
			}
			out = append(out, m)
		}
	}
	return out
}

func (hh *httpHarness) initialize(version string) string {
	hh.t.Helper()
	resp := hh.post(context.Background(), "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, nil)
	id := resp.Header.Get(sessionIDHeader)
	if ev := events(hh.t, resp); len(ev) != 1 || ev[0]["result"].(map[string]any)["protocolVersion"] != version || id == "" {
		hh.t.Fatalf("initialize: session %q, %v", id, ev)
	}
	resp = hh.post(context.Background(), id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, map[string]string{protocolVersionHeader: version})
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		hh.t.Fatalf("notifications/initialized: HTTP %d, want 202", resp.StatusCode)
	}
	return id
}

func (hh *httpHarness) status(method, session string, header map[string]string) int {
	hh.t.Helper()
	req, _ := http.NewRequest(method, hh.url, nil)
	if session != "" {
		req.Header.Set(sessionIDHeader, session)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		hh.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// sessions is how many MCP sessions the server keeps.
func (hh *httpHarness) sessions() int {
	n := 0
	for range hh.h.server.Sessions() {
		n++
	}
	return n
}

func rpcError(t *testing.T, resp *http.Response) (int, *jsonrpc.Error) {
	t.Helper()
	defer resp.Body.Close()
	var r struct{ Error *jsonrpc.Error }
	body, _ := io.ReadAll(resp.Body)
	if json.Unmarshal(body, &r) != nil || r.Error == nil {
		return resp.StatusCode, nil
	}
	return resp.StatusCode, r.Error
}

func TestHTTPSessionLifecycle(t *testing.T) {
	tt := newTestTools()
	hh := startHTTP(t, testMirror(tt, Options{}), 4096)
	ctx := context.Background()

	// Before initialize: answered, and no session is left behind.
	ev := events(t, hh.post(ctx, "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil))
	if len(ev) != 1 || ev[0]["result"] == nil {
		t.Fatalf("ping without a session: %v", ev)
	}
	if n := hh.sessions(); n != 0 {
		t.Fatalf("%d sessions kept for a request without initialize", n)
	}

	id := hh.initialize("2025-06-18")
	ev = events(t, hh.post(ctx, id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}`, map[string]string{protocolVersionHeader: "2025-06-18"}))
	if len(ev) != 1 || ev[0]["id"] != 2.0 || ev[0]["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"] != `{"a":1}` {
		t.Fatalf("tools/call: %v", ev)
	}

	if got := hh.status(http.MethodGet, "", map[string]string{"Accept": "text/event-stream"}); got != http.StatusBadRequest {
		t.Errorf("GET without a session id: %d, want 400", got)
	}
	if got := hh.status(http.MethodGet, "nope", map[string]string{"Accept": "text/event-stream"}); got != http.StatusNotFound {
		t.Errorf("GET with an unknown session id: %d, want 404", got)
	}
	if got := hh.status(http.MethodDelete, "", nil); got != http.StatusBadRequest {
		t.Errorf("DELETE without a session id: %d, want 400", got)
	}
	if got := hh.status(http.MethodPut, id, nil); got != http.StatusMethodNotAllowed {
		t.Errorf("PUT: %d, want 405", got)
	}
	resp := hh.post(ctx, "nope", `{"jsonrpc":"2.0","id":3,"method":"ping"}`, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST with an unknown session id: %d, want 404", resp.StatusCode)
	}

	// DELETE ends the session and the calls it has in flight.
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	blocked := make(chan struct{})
	go func() {
		defer close(blocked)
		resp := hh.post(callCtx, id, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"block"}}`, nil)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}()
	tt.awaitStarted(t, "block")
	if got := hh.status(http.MethodDelete, id, nil); got != http.StatusNoContent {
		t.Fatalf("DELETE: %d, want 204", got)
	}
	if why := tt.awaitEnded(t); why == nil {
		t.Fatal("the call's ctx ended without a cause")
	}
	<-blocked
	resp = hh.post(ctx, id, `{"jsonrpc":"2.0","id":5,"method":"ping"}`, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST after DELETE: %d, want 404", resp.StatusCode)
	}
}

func TestHTTPBadRequests(t *testing.T) {
	hh := startHTTP(t, testMirror(newTestTools(), Options{}), 4096)
	ctx := context.Background()
	id := hh.initialize("2025-06-18")
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`

	check := func(name string, resp *http.Response, status int, code int64) {
		t.Helper()
		got, rerr := rpcError(t, resp)
		if got != status || (code != 0 && (rerr == nil || rerr.Code != code)) {
			t.Errorf("%s: HTTP %d %+v, want %d code %d", name, got, rerr, status, code)
		}
	}
	check("wrong Content-Type", hh.post(ctx, id, ping, map[string]string{"Content-Type": "text/plain"}), http.StatusUnsupportedMediaType, 0)
	check("no text/event-stream in Accept", hh.post(ctx, id, ping, map[string]string{"Accept": "application/json"}), http.StatusBadRequest, 0)
	check("too big", hh.post(ctx, id, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`+strings.Repeat("x", 5000)+`"}}`, nil), http.StatusRequestEntityTooLarge, 0)
	check("empty body", hh.post(ctx, id, ``, nil), http.StatusBadRequest, 0)
	check("malformed JSON", hh.post(ctx, id, `{"jsonrpc":`, nil), http.StatusBadRequest, 0)
	check("not JSON-RPC", hh.post(ctx, id, `{"jsonrpc":"1.0","id":1,"method":"ping"}`, nil), http.StatusBadRequest, 0)
	check("unknown version", hh.post(ctx, id, ping, map[string]string{protocolVersionHeader: "1999-01-01"}), http.StatusBadRequest, 0)
	check("batch in 2025-06-18", hh.post(ctx, id, `[`+ping+`]`, map[string]string{protocolVersionHeader: "2025-06-18"}), http.StatusBadRequest, 0)

	// A stateless-revision client (SEP-2575) learns from server/discover
	// that this stateful endpoint speaks only the initialize revisions, and
	// a call in that revision is refused with the versions to fall back to.
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	ev := events(t, hh.post(ctx, "", `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{`+meta+`}}`,
		map[string]string{protocolVersionHeader: "2026-07-28", "Mcp-Method": "server/discover"}))
	if versions, _ := json.Marshal(ev[0]["result"].(map[string]any)["supportedVersions"]); string(versions) != `["2025-11-25","2025-06-18","2025-03-26","2024-11-05"]` {
		t.Errorf("server/discover: %v", ev)
	}
	status, rerr := rpcError(t, hh.post(ctx, "", `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{`+meta+`}}`,
		map[string]string{protocolVersionHeader: "2026-07-28", "Mcp-Method": "tools/list"}))
	var data mcp.UnsupportedProtocolVersionData
	if status != http.StatusBadRequest || rerr == nil || rerr.Code != mcp.CodeUnsupportedProtocolVersion || json.Unmarshal(rerr.Data, &data) != nil || data.Supported[0] != "2025-11-25" {
		t.Errorf("2026-07-28 request: HTTP %d %+v", status, rerr)
	}

	// A batch in 2025-03-26 (no version header): answered event by event.
	ev = events(t, hh.post(ctx, id, `[`+ping+`,{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`, map[string]string{protocolVersionHeader: ""}))
	if len(ev) != 2 {
		t.Errorf("batch: %v", ev)
	}
}

// The client dropping its POST cancels the call (docs/mcp.md: "the client
// going away"), which the SDK alone would let run on.
func TestHTTPDroppedPOSTCancelsTheCall(t *testing.T) {
	tt := newTestTools()
	hh := startHTTP(t, testMirror(tt, Options{}), 4096)
	id := hh.initialize("2025-11-25")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, hh.url, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"block"}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(sessionIDHeader, id)
		req.Header.Set(protocolVersionHeader, "2025-11-25")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	tt.awaitStarted(t, "block")
	cancel()
	if why := tt.awaitEnded(t); why == nil {
		t.Fatal("the call's ctx ended without a cause")
	}
	// The session goes on.
	resp := hh.post(context.Background(), id, `{"jsonrpc":"2.0","id":10,"method":"ping"}`, map[string]string{protocolVersionHeader: "2025-11-25"})
	if ev := events(t, resp); len(ev) != 1 || ev[0]["id"] != 10.0 {
		t.Fatalf("ping after: %v", ev)
	}
}

// The go-sdk's client against the handler over Streamable HTTP: initialize
// (after its server/discover probe), tools, calls, and list_changed on the
// GET stream.
func TestHTTPWithTheSDKClient(t *testing.T) {
	m := testMirror(newTestTools(), Options{})
	hh := startHTTP(t, m, 1<<20)
	var changes atomic.Int32
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changes.Add(1) },
	})
	ctx := context.Background()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hh.url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Errorf("negotiated %s", v)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"x": 1}})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != `{"x":1}` {
		t.Fatalf("call: %v %+v", err, res)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope"}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Fatalf("unknown tool: %v", err)
	}
	// The GET stream opens asynchronously; change the tools until the
	// client has heard of it.
	n := 0
	waitFor(t, "list_changed on the GET stream", func() bool {
		n++
		extra := tool("more")
		extra.Description = strings.Repeat("x", n)
		m.Update(snapshot(tool("echo"), extra))
		time.Sleep(20 * time.Millisecond)
		return changes.Load() > 0
	})
}

// Sessions a client left without DELETE are bounded: past the limit, a new
// one ends the session idle longest, never one with a request or stream
// open, and the evicted client gets 404 (the spec's cue to initialize
// again).
func TestHTTPSessionsBounded(t *testing.T) {
	hh := startHTTP(t, testMirror(newTestTools(), Options{}), 4096)
	hh.h.maxSessions = 2
	ctx := context.Background()
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	v := map[string]string{protocolVersionHeader: "2025-06-18"}
	pingStatus := func(id string) int {
		resp := hh.post(ctx, id, ping, v)
		resp.Body.Close()
		return resp.StatusCode
	}
	idle := func(id string) bool {
		hh.h.mu.Lock()
		defer hh.h.mu.Unlock()
		u := hh.h.use[id]
		return u != nil && u.open == 0
	}

	a := hh.initialize("2025-06-18")
	b := hh.initialize("2025-06-18")
	// b holds its notification stream open: in use, so never evicted.
	streamCtx, closeStream := context.WithCancel(ctx)
	defer closeStream()
	req, _ := http.NewRequestWithContext(streamCtx, http.MethodGet, hh.url, nil)
	req.Header.Set(sessionIDHeader, b)
	req.Header.Set(protocolVersionHeader, "2025-06-18")
	req.Header.Set("Accept", "text/event-stream")
	stream, err := http.DefaultClient.Do(req)
	if err != nil || stream.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", stream, err)
	}
	defer stream.Body.Close()
	time.Sleep(10 * time.Millisecond) // b's stream is older than a's last use
	if got := pingStatus(a); got != http.StatusOK {
		t.Fatalf("ping a: HTTP %d", got)
	}
	// The client has the ping's answer (an SSE event, flushed) before the
	// handler has returned and marked a idle.
	waitFor(t, "a to be idle", func() bool { return idle(a) })

	c := hh.initialize("2025-06-18") // over the limit: a is the only idle one
	if got := pingStatus(a); got != http.StatusNotFound {
		t.Errorf("evicted a: HTTP %d, want 404", got)
	}
	for name, id := range map[string]string{"b (streaming)": b, "c (new)": c} {
		if got := pingStatus(id); got != http.StatusOK {
			t.Errorf("%s: HTTP %d, want 200", name, got)
		}
	}
	if n := hh.sessions(); n != 2 {
		t.Errorf("%d sessions kept, want 2", n)
	}

	// c holds a stream too: none is idle, so a third session is refused
	// (before: kept, past the limit, 500 of them with streams open).
	req2, _ := http.NewRequestWithContext(streamCtx, http.MethodGet, hh.url, nil)
	req2.Header.Set(sessionIDHeader, c)
	req2.Header.Set(protocolVersionHeader, "2025-06-18")
	req2.Header.Set("Accept", "text/event-stream")
	stream2, err := http.DefaultClient.Do(req2)
	if err != nil || stream2.StatusCode != http.StatusOK {
		t.Fatalf("GET stream of c: %v %v", stream2, err)
	}
	defer stream2.Body.Close()
	waitFor(t, "c's stream to be open", func() bool { return !idle(c) })
	resp := hh.post(ctx, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, nil)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "too many MCP sessions") {
		t.Errorf("a session past the limit with every one in use: HTTP %d %s", resp.StatusCode, body)
	}
	if n := hh.sessions(); n != 2 {
		t.Errorf("%d sessions kept, want 2", n)
	}
}

// Core stopping (Close) ends every session and the calls they have in
// flight.
func TestHTTPCloseEndsSessions(t *testing.T) {
	tt := newTestTools()
	hh := startHTTP(t, testMirror(tt, Options{}), 4096)
	id := hh.initialize("2025-11-25")
	go func() {
		resp := hh.post(context.Background(), id, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block"}}`, nil)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}()
	tt.awaitStarted(t, "block")
	hh.h.Close()
	if tt.awaitEnded(t) == nil {
		t.Fatal("the call's ctx ended without a cause")
	}
	waitFor(t, "no sessions", func() bool { return hh.sessions() == 0 })
}

// Over HTTP the server's pings go on the client's notification stream. A
// client that keeps none open (the spec allows it) cannot be pinged, and
// that says nothing about it: its session stays. One that keeps a stream
// open and leaves KeepAliveMisses pings unanswered is gone: its session
// ends, and its next request gets 404.
func TestHTTPKeepAlive(t *testing.T) {
	hh := startHTTP(t, testMirror(newTestTools(), Options{KeepAlive: 30 * time.Millisecond}), 4096)
	ctx := context.Background()
	v := map[string]string{protocolVersionHeader: "2025-11-25"}
	ping := func(id string) int {
		resp := hh.post(ctx, id, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, v)
		resp.Body.Close()
		return resp.StatusCode
	}
	id := hh.initialize("2025-11-25")
	time.Sleep(10 * 30 * time.Millisecond)
	if got := ping(id); got != http.StatusOK {
		t.Fatalf("a session without a notification stream: HTTP %d after 10 ping intervals", got)
	}

	req, _ := http.NewRequest(http.MethodGet, hh.url, nil)
	req.Header.Set(sessionIDHeader, id)
	req.Header.Set(protocolVersionHeader, "2025-11-25")
	req.Header.Set("Accept", "text/event-stream")
	stream, err := http.DefaultClient.Do(req)
	if err != nil || stream.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", stream, err)
	}
	pings := 0
	sc := bufio.NewScanner(stream.Body)
	for sc.Scan() { // unanswered, until the server ends the stream
		if strings.Contains(sc.Text(), `"method":"ping"`) {
			pings++
		}
	}
	stream.Body.Close()
	if pings < KeepAliveMisses {
		t.Fatalf("the stream ended after %d pings, want %d", pings, KeepAliveMisses)
	}
	// The stream ends as the session closes; the handler forgets the
	// session id a moment later, so the 404 is waited for, not raced.
	waitFor(t, "HTTP 404 after the unanswered pings", func() bool { return ping(id) == http.StatusNotFound })
}
