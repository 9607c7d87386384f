package runtime

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/runtime/approvals"
	"github.com/kaoruisaac/pedelec/runtime/coreauth"
	"github.com/kaoruisaac/pedelec/runtime/mcpbridge"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/schema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// withHeaders adds fixed headers to every request of an MCP client.
type withHeaders struct {
	headers map[string]string
	next    http.RoundTripper
}

func (h withHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.next.RoundTrip(r)
}

// connectSessionMCP connects the go-sdk's client to the HTTP form of
// sessionMCP(s), as an ACP agent given it at session/new does; changes
// counts the notifications/tools/list_changed it hears.
func connectSessionMCP(t *testing.T, h *harness, s *session.Session, changes *atomic.Int32) *mcp.ClientSession {
	t.Helper()
	srv := s.MCPServer()
	client := mcp.NewClient(&mcp.Implementation{Name: "session-mcp-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changes.Add(1) },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL,
		HTTPClient: &http.Client{Transport: withHeaders{srv.Headers, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v", srv.URL, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func listedNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// inBandCode is the Pedelec error code of an isError result, "" for a result.
func inBandCode(t *testing.T, res *mcp.CallToolResult) wire.Code {
	t.Helper()
	if !res.IsError {
		return ""
	}
	var body wire.AgentResult
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &body); err != nil || body.Error == nil {
		t.Fatalf("isError result without a Pedelec error: %v", res.Content)
	}
	return body.Error.Code
}

func callSessionTool(t *testing.T, ctx context.Context, cs *mcp.ClientSession, name, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

// sessionMCP gives both forms, named for the agent's config.
func TestSessionMCPForms(t *testing.T) {
	h := newHarness(t, nil)
	_, s := h.session(h.page(), true)
	srv := s.MCPServer()
	if srv.Name != "pedelec" || srv.URL != h.srv.URL+"/mcp/session/"+s.ID() || srv.Headers["Authorization"] != "Bearer "+s.Secret() {
		t.Fatalf("HTTP form = %+v", srv)
	}
	want := []string{wire.EnvCoreURL + "=" + h.srv.URL, wire.EnvThreadID + "=" + s.ID(), wire.EnvSecret + "=" + s.Secret(), wire.EnvCoreKey + "=" + h.core.identity.Key()}
	if srv.Command != h.core.opts.Executable || !slices.Equal(srv.Args, []string{"mcp"}) || !slices.Equal(srv.Env, want) {
		t.Fatalf("stdio form = %+v", srv)
	}
}

// One session's endpoint: its tools only, under their own names; calls
// bound to the running turn through the broker, refused between turns;
// list_changed when its tools change; closed when the session ends.
func TestSessionMCPEndpoint(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	p.Handle("echo", func(args json.RawMessage) any { return map[string]any{"got": json.RawMessage(args)} })
	infoA, a := h.session(p, true)
	_, b := h.session(p, true)
	var changes atomic.Int32
	cs := connectSessionMCP(t, h, a, &changes)
	if got := strings.Join(listedNames(t, cs), ","); got != "echo,none,slow" {
		t.Fatalf("tools = %s, want the session's own names", got)
	}
	if init := cs.InitializeResult(); init == nil || init.Instructions != mcpbridge.SessionInstructions {
		t.Fatalf("initialize = %+v, want the session's instructions", init)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	// Between turns: refused as tool-call is.
	if code := inBandCode(t, callSessionTool(t, ctx, cs, "echo", `{"x":1}`)); code != wire.CodeNoActiveTurn {
		t.Fatalf("a call outside a turn: %s, want NO_ACTIVE_TURN", code)
	}

	turnID, held := h.send(p, infoA.SessionID, "go")
	res := callSessionTool(t, ctx, cs, "echo", `{"x":1}`)
	if res.IsError || res.Content[0].(*mcp.TextContent).Text != `{"got":{"x":1}}` {
		t.Fatalf("echo = %+v", res.Content)
	}
	if call := toolCall(t, p, "echo", 1); call.ToolRequestID == "" {
		t.Fatal("no tool_call for the page")
	}
	if ev := awaitEvent(t, p, wire.EventToolCall, turnID, nil); ev.SessionID != a.ID() {
		t.Fatalf("the call reached session %s", ev.SessionID)
	}
	if code := inBandCode(t, callSessionTool(t, ctx, cs, "echo", `{"x":"one"}`)); code != wire.CodeToolArgsInvalid {
		t.Fatalf("bad args: %s", code)
	}
	if code := inBandCode(t, callSessionTool(t, ctx, cs, "slow", `{}`)); code != wire.CodeToolTimeout {
		t.Fatalf("slow: %s", code)
	}

	// The client cancelling settles the call as cancelled in the page.
	callCtx, stop := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "none", Arguments: map[string]any{}})
		errc <- err
	}()
	pending := toolCall(t, p, "none", 1)
	stop()
	if err := <-errc; err == nil {
		t.Fatal("a cancelled call returned no error")
	}
	if d := settled(t, p, pending.ToolRequestID); d.Outcome != wire.OutcomeCancelled {
		t.Fatalf("settled %s, want cancelled", d.Outcome)
	}

	// The session's tools change: every client hears list_changed.
	before := changes.Load()
	// Through update_tools, as a WebMCP page registering a tool does.
	tools := append(slices.Clone(a.Skills().Tools), schema.Tool{Name: "added", Description: "A new tool.",
		ArgsSchema: json.RawMessage(`{"type":"object","properties":{},"required":[]}`)})
	rawTools, _ := json.Marshal(tools)
	if _, err := a.UpdateTools(rawTools); err != nil {
		t.Fatalf("update_tools: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for changes.Load() == before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if changes.Load() == before {
		t.Fatal("no notifications/tools/list_changed after the tools changed")
	}
	if got := strings.Join(listedNames(t, cs), ","); got != "added,echo,none,slow" {
		t.Fatalf("tools after the change = %s", got)
	}

	// The turn ends: calls are refused again; the session ends: the
	// endpoint is gone for its own secret too.
	held.finish <- nil
	p.AwaitDone(turnID, 10*time.Second)
	if code := inBandCode(t, callSessionTool(t, ctx, cs, "echo", `{"x":1}`)); code != wire.CodeNoActiveTurn {
		t.Fatalf("after the turn: %s", code)
	}
	endSession(t, p, a.ID())
	status, code, _ := sessionMCPPost(t, h.srv.URL+wire.MCPSessionPath+a.ID(), "Bearer "+a.Secret(), "")
	if status != http.StatusNotFound || code != wire.CodeSessionEnded {
		t.Fatalf("after the end: HTTP %d %s, want 404 SESSION_ENDED", status, code)
	}
	if _, err := cs.ListTools(ctx, nil); err == nil {
		t.Fatal("the ended session's MCP session still answers")
	}
	// The ended event goes out as the session ends; its endpoint closes
	// just after, once the session's lock is released (session.Host).
	testenvAwait(t, "the ended session's endpoint to close", func() bool { return h.core.mcp.Endpoints() == 0 })
	_ = b
}

// sessionMCPPost sends one initialize to an endpoint and returns the HTTP
// status, the Pedelec error code of a refusal and the response headers.
func sessionMCPPost(t *testing.T, endpoint, auth, origin string) (int, wire.Code, http.Header) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out wire.AgentResult
	_ = json.NewDecoder(resp.Body).Decode(&out)
	var code wire.Code
	if out.Error != nil {
		code = out.Error.Code
	}
	return resp.StatusCode, code, resp.Header
}

// Each credential opens its own session's endpoint and no other.
func TestSessionMCPRefusals(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	_, a := h.session(p, true)
	_, b := h.session(p, true)
	urlB := h.srv.URL + wire.MCPSessionPath + b.ID()
	for _, tc := range []struct {
		name, url, auth, origin string
		status                  int
		code                    wire.Code
	}{
		{"no credential", urlB, "", "", http.StatusUnauthorized, wire.CodeThreadAccessDenied},
		{"another session's secret", urlB, "Bearer " + a.Secret(), "", http.StatusUnauthorized, wire.CodeThreadAccessDenied},
		{"the Core token", urlB, "Bearer " + h.core.token, "", http.StatusUnauthorized, wire.CodeThreadAccessDenied},
		{"a forged secret", urlB, "Bearer k_forged", "", http.StatusUnauthorized, wire.CodeThreadAccessDenied},
		{"the secret without Bearer", urlB, b.Secret(), "", http.StatusUnauthorized, wire.CodeThreadAccessDenied},
		{"an unknown session", h.srv.URL + wire.MCPSessionPath + "s_nosuch", "Bearer " + b.Secret(), "", http.StatusUnauthorized, wire.CodeThreadAccessDenied},
		{"a browser origin", urlB, "Bearer " + b.Secret(), "http://evil.example", http.StatusForbidden, wire.CodeOriginNotAllowed},
		{"Core's own page", urlB, "Bearer " + b.Secret(), h.srv.URL, http.StatusForbidden, wire.CodeOriginNotAllowed},
		{"its own secret", urlB, "Bearer " + b.Secret(), "", http.StatusOK, ""},
	} {
		status, code, header := sessionMCPPost(t, tc.url, tc.auth, tc.origin)
		if status != tc.status || code != tc.code {
			t.Errorf("%s: HTTP %d %s, want %d %s", tc.name, status, code, tc.status, tc.code)
		}
		if status == http.StatusUnauthorized && !strings.HasPrefix(header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: 401 without WWW-Authenticate", tc.name)
		}
	}

	// The stdio form's long-poll: the same rule.
	poll := func(auth, thread string) (int, wire.Code) {
		q := url.Values{"thread": {thread}}
		req, _ := http.NewRequest(http.MethodGet, h.srv.URL+wire.MCPSessionToolsPath+"?"+q.Encode(), nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			wire.AgentResult
			wire.MCPSnapshot
		}
		_ = json.NewDecoder(resp.Body).Decode(&out)
		if out.Error != nil {
			return resp.StatusCode, out.Error.Code
		}
		if len(out.Sessions) != 1 || out.Sessions[0].SessionID != thread || len(out.Sessions[0].Tools) != 3 {
			t.Errorf("snapshot = %+v", out.MCPSnapshot)
		}
		return resp.StatusCode, ""
	}
	if status, code := poll("Bearer "+a.Secret(), b.ID()); status != http.StatusUnauthorized || code != wire.CodeThreadAccessDenied {
		t.Errorf("long-poll with another session's secret: %d %s", status, code)
	}
	if status, code := poll("Bearer "+b.Secret(), b.ID()); status != http.StatusOK || code != "" {
		t.Errorf("long-poll with its own secret: %d %s", status, code)
	}
	endSession(t, p, b.ID())
	if status, code := poll("Bearer "+b.Secret(), b.ID()); status != http.StatusNotFound || code != wire.CodeSessionEnded {
		t.Errorf("long-poll after the end: %d %s", status, code)
	}
}

// A long-poll waiting on a session wakes with SESSION_ENDED when it ends,
// and with the new tools when they change.
func TestSessionMCPLongPollWakes(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	_, s := h.session(p, true)
	poll := func(after int64) (int, wire.MCPSnapshot, wire.Code) {
		q := url.Values{"thread": {s.ID()}, "core": {h.core.mcp.ID()}, "after": {strconv.FormatInt(after, 10)}}
		req, _ := http.NewRequest(http.MethodGet, h.srv.URL+wire.MCPSessionToolsPath+"?"+q.Encode(), nil)
		req.Header.Set("Authorization", "Bearer "+s.Secret())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return 0, wire.MCPSnapshot{}, ""
		}
		defer resp.Body.Close()
		var out struct {
			wire.AgentResult
			wire.MCPSnapshot
		}
		_ = json.NewDecoder(resp.Body).Decode(&out)
		var code wire.Code
		if out.Error != nil {
			code = out.Error.Code
		}
		return resp.StatusCode, out.MCPSnapshot, code
	}
	type answer struct {
		status int
		snap   wire.MCPSnapshot
		code   wire.Code
	}
	wait := func(after int64) chan answer {
		ch := make(chan answer, 1)
		go func() {
			st, snap, code := poll(after)
			ch <- answer{st, snap, code}
		}()
		return ch
	}
	if !h.core.mcp.OpenEndpoint(s) { // as the first request would make it
		t.Fatal("no endpoint for a live session")
	}
	ch := wait(0)
	time.Sleep(50 * time.Millisecond)
	first, _ := json.Marshal(s.Skills().Tools[:1])
	if _, err := s.UpdateTools(first); err != nil {
		t.Fatalf("update_tools: %v", err)
	}
	select {
	case got := <-ch:
		if got.status != http.StatusOK || got.snap.Version != 1 || len(got.snap.Sessions[0].Tools) != 1 {
			t.Fatalf("after the change: %+v", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the long-poll did not wake on the change")
	}
	ch = wait(1)
	time.Sleep(50 * time.Millisecond)
	p.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: s.ID()})
	select {
	case got := <-ch:
		if got.status != http.StatusNotFound || got.code != wire.CodeSessionEnded {
			t.Fatalf("after the end: %+v", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the long-poll did not wake on the end")
	}
}

// A tool that asks for consent waits for the user when called over the
// session's endpoint, as with tool-call: a denial comes back in-band and
// the handler never runs; an approval runs it.
func TestSessionMCPConsent(t *testing.T) {
	h, _, s, _, runs := consentSession(t)
	var changes atomic.Int32
	cs := connectSessionMCP(t, h, s, &changes)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	call := func(args string) chan *mcp.CallToolResult {
		ch := make(chan *mcp.CallToolResult, 1)
		go func() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "pay", Arguments: json.RawMessage(args)})
			if err != nil {
				res = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
			}
			ch <- res
		}()
		return ch
	}
	denied := call(`{"amount":5}`)
	req := pendingApproval(t, h.core.book)
	if req.Tool != "pay" || req.SessionID != s.ID() {
		t.Fatalf("request = %+v", req)
	}
	if _, err := h.core.book.Decide(req.ID, wire.DecisionDeny, "not today", approvals.ByCLI); err != nil {
		t.Fatal(err)
	}
	if code := inBandCode(t, <-denied); code != wire.CodeToolCallDenied || runs["pay"].Load() != 0 {
		t.Fatalf("denied: %s, handler runs %d", code, runs["pay"].Load())
	}

	approved := call(`{"amount":6}`)
	req = pendingApproval(t, h.core.book)
	if _, err := h.core.book.Decide(req.ID, wire.DecisionApprove, "", approvals.ByConsole); err != nil {
		t.Fatal(err)
	}
	if res := <-approved; res.IsError || runs["pay"].Load() != 1 {
		t.Fatalf("approved: %+v, handler runs %d", res.Content, runs["pay"].Load())
	}
}

// The stdio form's bridge against the real endpoints: `pedelec mcp` in a
// session's environment lists that session's tools, calls them as
// tool-call does, and hears when the session is gone.
func TestSessionMCPStdioBridge(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	p.Handle("echo", func(args json.RawMessage) any { return map[string]any{"got": json.RawMessage(args)} })
	info, s := h.session(p, true)
	h.session(p, true) // another session, whose tools must not show

	bridge := mcpbridge.NewSessionBridge(h.srv.URL, s.ID(), s.Secret(), coreauth.FromStateDir(h.core.opts.StateDir), log.New(io.Discard))
	gone := make(chan *wire.Error, 1)
	bridge.Gone = func(werr *wire.Error) { gone <- werr }
	mirror := mcpbridge.NewMirror("test", bridge.Call, mcpbridge.Options{Instructions: mcpbridge.SessionInstructions})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ready := make(chan struct{})
	followed := make(chan struct{})
	go func() { bridge.Follow(ctx, mirror, ready); close(followed) }()
	<-ready

	ct, st := mcp.NewInMemoryTransports()
	if _, err := mirror.Server().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-stand-in", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := strings.Join(listedNames(t, cs), ","); got != "echo,none,slow" {
		t.Fatalf("tools = %s", got)
	}
	if code := inBandCode(t, callSessionTool(t, ctx, cs, "echo", `{"x":1}`)); code != wire.CodeNoActiveTurn {
		t.Fatalf("between turns: %s", code)
	}
	turnID, held := h.send(p, info.SessionID, "go")
	if res := callSessionTool(t, ctx, cs, "echo", `{"x":2}`); res.IsError || res.Content[0].(*mcp.TextContent).Text != `{"got":{"x":2}}` {
		t.Fatalf("echo = %+v", res.Content)
	}
	if ev := awaitEvent(t, p, wire.EventToolCall, turnID, nil); ev.SessionID != s.ID() {
		t.Fatalf("the call reached %s", ev.SessionID)
	}
	held.finish <- nil
	p.AwaitDone(turnID, 10*time.Second)

	p.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: s.ID()})
	select {
	case werr := <-gone:
		if werr.Code != wire.CodeSessionEnded {
			t.Fatalf("gone with %s, want SESSION_ENDED", werr.Code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the bridge did not hear the session end")
	}
	<-followed
	if names := listedNames(t, cs); len(names) != 0 {
		t.Fatalf("tools after the end = %v", names)
	}
}
