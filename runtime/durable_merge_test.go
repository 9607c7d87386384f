package runtime

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// How durable sessions (issue 14) meet the mcp provider (13) and the
// limits and Core token (8, 13): a Core is stopped and another one starts
// on the same state directory, as after `pedelec serve` restarts.

// runCore starts a Core on stateDir behind a loopback server; stop shuts
// it down (closing its state database) so the next one can open it.
// addr "" picks a free port; a restart passes the previous one, so the
// page's origin (Core's own) stays the same.
func runCore(t *testing.T, stateDir, addr string, adjust func(*Options)) (c *Core, srv *httptest.Server, stop func()) {
	t.Helper()
	o := Options{
		StateDir:   stateDir,
		Providers:  provider.NewRegistry("", heldProvider{turns: make(chan *heldTurn, 4)}, provider.NewMCP()),
		Logger:     log.New(io.Discard),
		Executable: "/bin/false",
	}
	if adjust != nil {
		adjust(&o)
	}
	c, err := NewCore(o)
	if err != nil {
		t.Fatal(err)
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	srv = httptest.NewUnstartedServer(c.Handler(Assets{}))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	c.coreURL = srv.URL
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			c.Shutdown(context.Background())
			srv.Close()
		}
	}
	t.Cleanup(stop)
	return c, srv, stop
}

func mcpSessionIDs(snap wire.MCPSnapshot) []string {
	var ids []string
	for _, s := range snap.Sessions {
		ids = append(ids, s.SessionID)
	}
	return ids
}

// An mcp session's tools are offered to MCP clients again after a restart,
// in the same order, before its page is back; its calls reach the page
// once it resumes.
func TestRestoredMCPSessionsOfferTheirToolsAgain(t *testing.T) {
	state := t.TempDir()
	c1, srv1, stop1 := runCore(t, state, "", nil)
	p := wspage.Dial(t, wsURL(srv1), srv1.URL)
	keep := false
	first := p.CreateSession(wire.CreateSessionParams{Provider: "mcp", Skills: json.RawMessage(harnessSkills), AutoEndOnDisconnect: &keep})
	second := p.CreateSession(wire.CreateSessionParams{Provider: "mcp", Skills: json.RawMessage(harnessSkills), AutoEndOnDisconnect: &keep})
	before := mcpSessionIDs(c1.mcp.Snapshot())
	if strings.Join(before, ",") != first.SessionID+","+second.SessionID {
		t.Fatalf("before the restart: %v", before)
	}
	stop1()
	p.Close()

	c2, srv2, _ := runCore(t, state, srv1.Listener.Addr().String(), nil)
	snap := c2.mcp.Snapshot()
	if got := mcpSessionIDs(snap); strings.Join(got, ",") != strings.Join(before, ",") {
		t.Fatalf("after the restart the MCP sessions are %v, want %v", got, before)
	}
	for i, s := range snap.Sessions {
		if s.Ordinal != i+1 || len(s.Tools) != 3 || s.Tools[1].Name != "slow" || s.Tools[1].TimeoutMs != 200 {
			t.Fatalf("restored session %d = %+v", i, s)
		}
	}

	p2 := wspage.Dial(t, wsURL(srv2), srv2.URL)
	p2.Handle("echo", func(args json.RawMessage) any { return map[string]any{"got": json.RawMessage(args)} })
	if _, werr := p2.Call(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: first.SessionID}); werr != nil {
		t.Fatalf("resume: %v", werr)
	}
	res, err := mcpCall(c2.mcp, context.Background(), first.SessionID, "echo", json.RawMessage(`{"x":7}`))
	if err != nil || string(res) != `{"got":{"x":7}}` {
		t.Fatalf("call after the restart = %s, %v", res, err)
	}
}

// Restored sessions are live sessions: they count against --max-sessions,
// so a restart cannot be used to go over it.
func TestRestoredSessionsCountAgainstTheSessionLimit(t *testing.T) {
	state := t.TempDir()
	one := func(o *Options) { o.Limits.Sessions = 1 }
	_, srv1, stop1 := runCore(t, state, "", one)
	p := wspage.Dial(t, wsURL(srv1), srv1.URL)
	keep := false
	p.CreateSession(wire.CreateSessionParams{Provider: "held", Skills: json.RawMessage(harnessSkills), AutoEndOnDisconnect: &keep})
	stop1()
	p.Close()

	c2, srv2, _ := runCore(t, state, srv1.Listener.Addr().String(), one)
	if n := c2.SessionCount(); n != 1 {
		t.Fatalf("restored %d sessions, want 1", n)
	}
	p2 := wspage.Dial(t, wsURL(srv2), srv2.URL)
	_, werr := p2.Call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "held", Skills: json.RawMessage(harnessSkills)})
	wantCode(t, werr, wire.CodeTooManySessions)
}

// The debug endpoint takes the Core token, the one /mcp takes, from
// <state-dir>/core-token; without it, CORE_TOKEN_INVALID.
func TestDebugCountsNeedTheCoreToken(t *testing.T) {
	h := newHarness(t, nil)
	if err := h.core.writeToken(); err != nil {
		t.Fatal(err)
	}
	defer h.core.removeToken()
	token, err := os.ReadFile(filepath.Join(h.core.opts.StateDir, wire.CoreTokenFile))
	if err != nil {
		t.Fatal(err)
	}
	get := func(bearer string) (*http.Response, wire.AgentResult) {
		req, _ := http.NewRequest("GET", h.srv.URL+DebugPath, nil)
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var res wire.AgentResult
		_ = json.NewDecoder(resp.Body).Decode(&res)
		return resp, res
	}
	for _, bad := range []string{"", "pt_wrong"} {
		resp, res := get(bad)
		if resp.StatusCode != http.StatusUnauthorized || res.Error == nil || res.Error.Code != wire.CodeCoreTokenInvalid {
			t.Fatalf("token %q: HTTP %d %+v", bad, resp.StatusCode, res.Error)
		}
	}
	if resp, _ := get(strings.TrimSpace(string(token))); resp.StatusCode != http.StatusOK {
		t.Fatalf("with the Core token: HTTP %d", resp.StatusCode)
	}
}

// A session's assets (the page's and the agent's shared files) survive a
// restart with it: the work directory is kept, and the page lists them
// again once it resumed.
func TestRestoredSessionKeepsItsAssets(t *testing.T) {
	state := t.TempDir()
	c1, srv1, stop1 := runCore(t, state, "", nil)
	p := wspage.Dial(t, wsURL(srv1), srv1.URL)
	keep := false
	info := p.CreateSession(wire.CreateSessionParams{Provider: "held", Skills: json.RawMessage(harnessSkills), AutoEndOnDisconnect: &keep})
	s, err := c1.session(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.WorkDir(), "assets", "kept.txt"), []byte("still here"), 0o600); err != nil {
		t.Fatal(err)
	}
	stop1()
	p.Close()

	_, srv2, _ := runCore(t, state, srv1.Listener.Addr().String(), nil)
	p2 := wspage.Dial(t, wsURL(srv2), srv2.URL)
	p2.MustCall(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: info.SessionID})
	var list wire.ListAssetsResult
	json.Unmarshal(p2.MustCall(wire.MethodListAssets, map[string]any{"sessionId": info.SessionID}), &list)
	if len(list.Assets) != 1 || list.Assets[0].Path != "/kept.txt" || list.Assets[0].SizeBytes != 10 {
		t.Fatalf("assets after the restart = %+v", list)
	}
}
