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
