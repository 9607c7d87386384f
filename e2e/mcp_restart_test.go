package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An mcp session is durable like any other (issue 14 with issue 13): after
// `pedelec serve` restarts, its tools are back in `pedelec mcp`'s list
// without the page doing anything, and once the page resumes the session
// the MCP client's calls reach it again.
func TestMCPSessionToolsReturnAfterCoreRestart(t *testing.T) {
	addr, stateDir := testenv.FreeAddr(t), t.TempDir()
	srv := testenv.ServeIn(t, addr, stateDir, nil)
	c := startPedelecMCP(t, srv.URL, stateDir)
	p := wspage.Dial(t, srv.WSURL, "")
	counterPage(p)
	keep := false
	info := p.CreateSession(wire.CreateSessionParams{Provider: "mcp", Skills: json.RawMessage(coreSkills), AutoEndOnDisconnect: &keep})
	const want = "get_current_page,slow_tool,update_counter"
	testenv.Await(t, 20*time.Second, "the session's tools in pedelec mcp", func() bool {
		return strings.Join(c.toolNames(t), ",") == want
	})

	srv.Stop(t)
	p.Close()
	testenv.Await(t, 30*time.Second, "no tools while Core is down", func() bool { return len(c.toolNames(t)) == 0 })
	srv.Restart(t)
	testenv.Await(t, 30*time.Second, "the restored session's tools back in pedelec mcp", func() bool {
		return strings.Join(c.toolNames(t), ",") == want
	})

	p2 := wspage.Dial(t, srv.WSURL, "")
	counterPage(p2)
	p2.MustCall(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: info.SessionID})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if res := c.call(t, ctx, "update_counter", `{"delta": 3}`); res.IsError || resultText(res) != `{"value":3}` {
		t.Fatalf("update_counter after the restart = %+v %q", res, resultText(res))
	}
}

// An MCP client's call the page was given when Core died (kill -9) is
// settled interrupted for the page after the restart, once, and the session
// is idle again: an MCP session has no turn to cut off, but the page must
// not wait for a call nobody will take the result of.
func TestMCPPendingCallSettledAfterCoreKilled(t *testing.T) {
	addr, stateDir := testenv.FreeAddr(t), t.TempDir()
	srv := testenv.ServeIn(t, addr, stateDir, nil)
	c := startPedelecMCP(t, srv.URL, stateDir)
	p := wspage.Dial(t, srv.WSURL, "") // no handlers: the call stays pending
	keep := false
	info := p.CreateSession(wire.CreateSessionParams{Provider: "mcp", Skills: json.RawMessage(coreSkills), AutoEndOnDisconnect: &keep})
	testenv.Await(t, 20*time.Second, "the session's tools in pedelec mcp", func() bool { return len(c.toolNames(t)) == 3 })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	go c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "update_counter", Arguments: json.RawMessage(`{"delta": 1}`)}) // fails when Core dies
	call := p.AwaitEvent(20*time.Second, "the MCP client's call", func(e wire.Event) bool { return e.Event == wire.EventToolCall })
	var data wire.ToolCallData
	json.Unmarshal(call.Data.(json.RawMessage), &data)
	last := lastSeqOf(p, info.SessionID)

	srv.Kill()
	p.Close()
	srv.Restart(t)
	p2 := wspage.Dial(t, srv.WSURL, "")
	resumed := resumeAfter(t, p2, info.SessionID, last)
	p2.AwaitEvent(10*time.Second, "the call settled interrupted", func(e wire.Event) bool {
		return e.Event == wire.EventToolCallSettled && strings.Contains(string(e.Data.(json.RawMessage)), data.ToolRequestID) &&
			strings.Contains(string(e.Data.(json.RawMessage)), `"interrupted"`)
	})
	if resumed.Status != wire.StatusIdle {
		t.Errorf("the MCP session came back %s, want idle", resumed.Status)
	}
	if _, err := p2.Call(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: data.ToolRequestID, Result: json.RawMessage(`{"value":1}`)}); err == nil || err.Code != wire.CodeToolRequestNotPending {
		t.Fatalf("a late result for the interrupted call: %+v", err)
	}
	for _, e := range p2.Events() {
		if e.Event == wire.EventDone || e.Event == wire.EventError {
			t.Errorf("the MCP session got %s after the restart; it has no turn to end", e.Event)
		}
	}
	contiguous(t, p2, info.SessionID, last)
}
