package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/mcpserver"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// An mcp session takes calls without a turn, moves idle → waiting → idle,
// refuses send_text, and shows in the MCP snapshot while it lives.
func TestMCPSessionCallsWithoutATurn(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.Providers = provider.NewRegistry("", heldProvider{turns: make(chan *heldTurn, 1)}, provider.NewMCP())
	})
	p := h.page()
	p.Handle("echo", func(args json.RawMessage) any { return map[string]any{"got": json.RawMessage(args)} })
	before := h.core.mcp.Snapshot()
	info := p.CreateSession(wire.CreateSessionParams{Provider: "mcp", Skills: json.RawMessage(harnessSkills)})
	snap := h.core.mcp.Snapshot()
	if snap.Version == before.Version || len(snap.Sessions) != 1 || snap.Sessions[0].SessionID != info.SessionID ||
		snap.Sessions[0].Ordinal != 1 || len(snap.Sessions[0].Tools) != 3 || snap.Sessions[0].Tools[1].TimeoutMs != 200 {
		t.Fatalf("snapshot = %+v", snap)
	}

	res, err := mcpCall(h.core.mcp, context.Background(), info.SessionID, "echo", json.RawMessage(`{"x":1}`))
	if err != nil || string(res) != `{"got":{"x":1}}` {
		t.Fatalf("call = %s, %v", res, err)
	}
	awaitEvent(t, p, wire.EventStatusChanged, "", func(e wire.Event) bool {
		var d wire.StatusChangedData
		_ = json.Unmarshal(e.Data.(json.RawMessage), &d)
		return d.Status == wire.StatusIdle
	})
	if got := strings.Join(statuses(t, p), " "); got != "idle>waiting_tool_result waiting_tool_result>idle" {
		t.Fatalf("statuses = %s", got)
	}
	_, err = mcpCall(h.core.mcp, context.Background(), info.SessionID, "echo", json.RawMessage(`{"x":"one"}`))
	wantCode(t, wire.AsError(err), wire.CodeToolArgsInvalid)
	_, err = mcpCall(h.core.mcp, context.Background(), info.SessionID, "slow", nil)
	wantCode(t, wire.AsError(err), wire.CodeToolTimeout)

	if _, werr := p.Call(wire.MethodSendText, wire.SendTextParams{SessionID: info.SessionID, Text: "hi"}); werr == nil || werr.Code != wire.CodeSendTextNotSupported {
		t.Fatalf("send_text = %v", werr)
	}

	// A held session's tools are not reachable through MCP.
	held, _ := h.session(p, true)
	_, err = mcpCall(h.core.mcp, context.Background(), held.SessionID, "echo", json.RawMessage(`{"x":1}`))
	wantCode(t, wire.AsError(err), wire.CodeThreadAccessDenied)

	// The watcher wakes when the session ends.
	woke := make(chan wire.MCPSnapshot, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		woke <- h.core.mcp.Watch(ctx, snap.Core, h.core.mcp.Snapshot().Version)
	}()
	time.Sleep(20 * time.Millisecond)
	p.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: info.SessionID})
	if got := <-woke; len(got.Sessions) != 0 {
		t.Fatalf("after the end: %+v", got)
	}
}

// The bridge and /mcp need the token, which Serve writes 0600 and removes.
func TestMCPTokenGuards(t *testing.T) {
	h := newHarness(t, nil)
	for _, tc := range []struct{ auth, origin string }{{"", ""}, {"Bearer nope", ""}} {
		req, _ := http.NewRequest(http.MethodGet, h.srv.URL+wire.MCPToolsPath, nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("auth %q: HTTP %d, want 401", tc.auth, resp.StatusCode)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, h.srv.URL+wire.MCPToolsPath, nil)
	req.Header.Set("Authorization", "Bearer "+h.core.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var snap wire.MCPSnapshot
	json.NewDecoder(resp.Body).Decode(&snap)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || snap.Core == "" {
		t.Fatalf("with the token: HTTP %d %+v", resp.StatusCode, snap)
	}

	if err := h.core.writeToken(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(h.core.opts.StateDir, wire.CoreTokenFile)
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	h.core.removeToken()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("token file not removed: %v", err)
	}
}

// mcpCall is an MCP client's call as Core's /mcp runs it, as result and error.
func mcpCall(m *mcpserver.Server, ctx context.Context, sessionID, tool string, args json.RawMessage) (json.RawMessage, error) {
	out := m.Answer(ctx, sessionID, tool, args, nil)
	if out.Error != nil {
		return nil, out.Error
	}
	return out.Result, nil
}
