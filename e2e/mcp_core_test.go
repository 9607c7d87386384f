package e2e

// `pedelec mcp` and Core's /mcp driven by the official Go MCP SDK's client,
// with a Go page on the WebSocket (the browser tests use real Chromium).

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpClient is one MCP client session plus the list_changed it heard.
type mcpClient struct {
	cs      *mcp.ClientSession
	mu      sync.Mutex
	changes int
	stderr  *lockedWriter // written by the process's stderr copier, read by the test
}

func (c *mcpClient) listChanges() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changes
}

func newMCPClientOptions(c *mcpClient) *mcp.ClientOptions {
	return &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		c.mu.Lock()
		c.changes++
		c.mu.Unlock()
	}}
}

// startPedelecMCP runs `pedelec mcp` as an MCP client starts it.
func startPedelecMCP(t *testing.T, coreURL, stateDir string) *mcpClient {
	t.Helper()
	return startPedelecMCPWith(t, []string{"--core-url", coreURL, "--state-dir", stateDir})
}

// startPedelecMCPWith is startPedelecMCP with mcp's flags as given.
func startPedelecMCPWith(t *testing.T, flags []string, env ...string) *mcpClient {
	t.Helper()
	c := &mcpClient{stderr: &lockedWriter{w: &strings.Builder{}}}
	cmd := exec.Command(testenv.Binary(t), append([]string{"mcp"}, flags...)...)
	if env != nil {
		cmd.Env = env
	}
	cmd.Stderr = c.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "pedelec-e2e", Version: "1"}, newMCPClientOptions(c))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to pedelec mcp: %v", err)
	}
	c.cs = cs
	t.Cleanup(func() {
		cs.Close()
		if t.Failed() {
			t.Logf("pedelec mcp stderr:\n%s", c.stderrText())
		}
	})
	return c
}

func (c *mcpClient) stderrText() string {
	c.stderr.mu.Lock()
	defer c.stderr.mu.Unlock()
	return c.stderr.w.String()
}

type lockedWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (c *mcpClient) toolNames(t *testing.T) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := c.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	sort.Strings(names)
	return names
}

func (c *mcpClient) call(t *testing.T, ctx context.Context, name, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

// resultText is the call's text content.
func resultText(res *mcp.CallToolResult) string {
	var out []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return strings.Join(out, "\n")
}

func mcpSession(t *testing.T, p *wspage.Page) wire.SessionInfo {
	t.Helper()
	return p.CreateSession(wire.CreateSessionParams{Provider: "mcp", Skills: json.RawMessage(coreSkills)})
}

// Core down, then up, then pages coming and going: the client's tool list
// follows, with list_changed each time, and calls behave like tool-call.
func TestMCPStdioFollowsCoreAndPages(t *testing.T) {
	addr, stateDir := testenv.FreeAddr(t), t.TempDir()
	c := startPedelecMCP(t, "http://"+addr, stateDir)

	if names := c.toolNames(t); len(names) != 0 {
		t.Fatalf("tools with Core down = %v, want none", names)
	}
	testenv.Await(t, 10*time.Second, "the stderr line saying how to start Core", func() bool {
		return strings.Contains(c.stderrText(), "start it with `pedelec serve`")
	})

	srv := testenv.ServeIn(t, addr, stateDir, nil)
	info, err := os.Stat(filepath.Join(stateDir, wire.CoreTokenFile))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("core-token: %v, mode %v; want a 0600 file", err, info)
	}
	p := wspage.Dial(t, srv.WSURL, "")
	counterPage(p)
	before := c.listChanges()
	s1 := mcpSession(t, p)
	testenv.Await(t, 10*time.Second, "tools/list_changed after the page's session", func() bool { return c.listChanges() > before })
	if got := strings.Join(c.toolNames(t), ","); got != "get_current_page,slow_tool,update_counter" {
		t.Fatalf("tools = %s", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	list, _ := c.cs.ListTools(ctx, nil)
	for _, tool := range list.Tools {
		if tool.Name == "update_counter" {
			schema, _ := json.Marshal(tool.InputSchema)
			if !strings.Contains(string(schema), `"minimum":-100`) || !strings.HasPrefix(tool.Description, "Increase or decrease") {
				t.Fatalf("update_counter as listed = %+v (schema %s)", tool, schema)
			}
		}
	}

	// A call: structuredContent plus the JSON as text; the page saw the
	// status go idle → waiting_tool_result → idle.
	res := c.call(t, ctx, "update_counter", `{"delta": 2}`)
	if res.IsError || resultText(res) != `{"value":2}` {
		t.Fatalf("update_counter result = %+v %q", res, resultText(res))
	}
	if sc, _ := json.Marshal(res.StructuredContent); string(sc) != `{"value":2}` {
		t.Fatalf("structuredContent = %s", sc)
	}
	// The call's last event may still be on its way to the page.
	p.AwaitEvent(10*time.Second, "the session back to idle", func(e wire.Event) bool {
		var d wire.StatusChangedData
		return e.Event == wire.EventStatusChanged && e.SessionID == s1.SessionID &&
			json.Unmarshal(e.Data.(json.RawMessage), &d) == nil && d.Status == wire.StatusIdle
	})
	var statuses []string
	for _, e := range p.Events() {
		if e.Event == wire.EventStatusChanged && e.SessionID == s1.SessionID {
			var d wire.StatusChangedData
			json.Unmarshal(e.Data.(json.RawMessage), &d)
			statuses = append(statuses, string(d.PreviousStatus)+"->"+string(d.Status))
		}
	}
	if got := strings.Join(statuses, " "); got != "idle->waiting_tool_result waiting_tool_result->idle" {
		t.Fatalf("status path = %s", got)
	}

	// Invalid arguments: in-band isError with every violation.
	res = c.call(t, ctx, "update_counter", `{"delta": "x"}`)
	var body wire.AgentResult
	if err := json.Unmarshal([]byte(resultText(res)), &body); err != nil || !res.IsError || body.Error.Code != wire.CodeToolArgsInvalid {
		t.Fatalf("invalid args: %+v %q", res, resultText(res))
	}
	if v := body.Error.Details.(map[string]any)["violations"].([]any); len(v) != 1 || v[0].(map[string]any)["path"] != "delta" {
		t.Fatalf("want the violation at delta, got %v", v)
	}

	// The tool's own timeout.
	res = c.call(t, ctx, "slow_tool", `{}`)
	if !res.IsError || !strings.Contains(resultText(res), string(wire.CodeToolTimeout)) {
		t.Fatalf("slow_tool = %+v %q", res, resultText(res))
	}

	// Cancelling the request cancels the pending call in Core.
	callCtx, stop := context.WithCancel(ctx)
	go func() {
		p.AwaitEvent(10*time.Second, "the unanswered call", func(e wire.Event) bool {
			if e.Event != wire.EventToolCall {
				return false
			}
			var d wire.ToolCallData
			json.Unmarshal(e.Data.(json.RawMessage), &d)
			return d.Tool == "get_current_page"
		})
		stop()
	}()
	p.Handle("get_current_page", func(json.RawMessage) any { time.Sleep(time.Hour); return nil })
	_, err = c.cs.CallTool(callCtx, &mcp.CallToolParams{Name: "get_current_page", Arguments: map[string]any{}})
	if err == nil {
		t.Fatal("a cancelled call returned no error")
	}
	p.AwaitEvent(10*time.Second, "tool_call_settled cancelled", func(e wire.Event) bool {
		var d wire.ToolCallSettledData
		if e.Event != wire.EventToolCallSettled || json.Unmarshal(e.Data.(json.RawMessage), &d) != nil {
			return false
		}
		return d.Tool == "get_current_page" && d.Outcome == "cancelled"
	})

	// sendText has no meaning for an external agent.
	if _, werr := p.Call(wire.MethodSendText, wire.SendTextParams{SessionID: s1.SessionID, Text: "hi"}); werr == nil || werr.Code != wire.CodeSendTextNotSupported {
		t.Fatalf("send_text = %v, want SEND_TEXT_NOT_SUPPORTED", werr)
	}

	// A second page: the first page's tools keep the names the client has;
	// the second page's, whose names are taken, get its page's prefix.
	p2 := wspage.Dial(t, srv.WSURL, "")
	counterPage(p2)
	before = c.listChanges()
	s2 := mcpSession(t, p2)
	testenv.Await(t, 10*time.Second, "list_changed for the second page", func() bool { return c.listChanges() > before })
	names := c.toolNames(t)
	if got := strings.Join(names, ","); got != "get_current_page,page2__get_current_page,page2__slow_tool,page2__update_counter,slow_tool,update_counter" {
		t.Fatalf("tools with two pages = %v", names)
	}
	if res := c.call(t, ctx, "update_counter", `{"delta": 1}`); res.IsError {
		t.Fatalf("the first page's update_counter after a second page opened = %q", resultText(res))
	}
	if res := c.call(t, ctx, "page2__update_counter", `{"delta": 5}`); resultText(res) != `{"value":5}` {
		t.Fatalf("page2 call = %q", resultText(res))
	}

	// The first page goes away: the second page's tools keep the names the
	// client was given for them.
	before = c.listChanges()
	p.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: s1.SessionID})
	testenv.Await(t, 10*time.Second, "list_changed after a page left", func() bool { return c.listChanges() > before })
	if got := strings.Join(c.toolNames(t), ","); got != "page2__get_current_page,page2__slow_tool,page2__update_counter" {
		t.Fatalf("tools after the first page left = %s", got)
	}
	_ = s2

	// Core stops: the token goes, the tools go.
	before = c.listChanges()
	srv.Stop(t)
	if _, err := os.Stat(filepath.Join(stateDir, wire.CoreTokenFile)); !os.IsNotExist(err) {
		t.Fatalf("core-token still there after shutdown: %v", err)
	}
	testenv.Await(t, 10*time.Second, "list_changed after Core stopped", func() bool { return c.listChanges() > before })
	if names := c.toolNames(t); len(names) != 0 {
		t.Fatalf("tools after Core stopped = %v", names)
	}
}

// bearer adds the Core token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func coreToken(t testing.TB, srv *testenv.Server) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(srv.StateDir, wire.CoreTokenFile))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// Core's Streamable HTTP endpoint: the same tools, behind the token and
// the Origin rule.
func TestMCPStreamableHTTP(t *testing.T) {
	srv := testenv.Serve(t, nil)
	p := wspage.Dial(t, srv.WSURL, "")
	counterPage(p)
	mcpSession(t, p)

	// No token, a wrong token, a browser origin: refused before MCP.
	for _, tc := range []struct {
		name, auth, origin string
		status             int
		code               wire.Code
	}{
		{"no token", "", "", http.StatusUnauthorized, wire.CodeCoreTokenInvalid},
		{"wrong token", "Bearer pt_wrong", "", http.StatusUnauthorized, wire.CodeCoreTokenInvalid},
		{"browser origin", "Bearer " + coreToken(t, srv), "http://evil.example", http.StatusForbidden, wire.CodeOriginNotAllowed},
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body wire.AgentResult
		json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || body.Error == nil || body.Error.Code != tc.code {
			t.Errorf("%s: HTTP %d %+v, want %d %s", tc.name, resp.StatusCode, body.Error, tc.status, tc.code)
		}
	}

	c := coreMCPClient(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if got := strings.Join(c.toolNames(t), ","); got != "get_current_page,slow_tool,update_counter" {
		t.Fatalf("tools = %s", got)
	}
	if res := c.call(t, ctx, "update_counter", `{"delta": 3}`); res.IsError || resultText(res) != `{"value":3}` {
		t.Fatalf("call = %+v %q", res, resultText(res))
	}
	p2 := wspage.Dial(t, srv.WSURL, "")
	before := c.listChanges()
	mcpSession(t, p2)
	testenv.Await(t, 10*time.Second, "list_changed over HTTP", func() bool { return c.listChanges() > before })
	if n := len(c.toolNames(t)); n != 6 {
		t.Fatalf("%d tools with two pages, want 6", n)
	}
}

// coreMCPClient is the Go MCP SDK's client on Core's /mcp, with its token.
func coreMCPClient(t *testing.T, core *testenv.Server) *mcpClient {
	t.Helper()
	c := &mcpClient{}
	client := mcp.NewClient(&mcp.Implementation{Name: "pedelec-e2e-http", Version: "1"}, newMCPClientOptions(c))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: core.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{coreToken(t, core), http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatalf("connect to /mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	c.cs = cs
	return c
}
