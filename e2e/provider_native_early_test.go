package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The native adapters' part of createSession (runtime/provider/cli_early.go)
// with the real CLIs: a model server on loopback that is down is reported
// on the session before any turn (the page's error event, no turn id),
// naming the endpoint, and the program's probe leaves no process.
func TestCodexModelDownReportedAtCreateSession(t *testing.T) { testNativeEarlyModelDown(t, codexCLI) }
func TestClaudeModelDownReportedAtCreateSession(t *testing.T) {
	testNativeEarlyModelDown(t, claudeCLI)
}

func testNativeEarlyModelDown(t *testing.T, cli agentCLI) {
	down := modelserver.DownURL(t)
	srv := serveCLIEnv(t, withBaseURL(cli, down), cli.env(t, down))
	page := dialCLIPage(t, srv)
	sid := cliSession(t, page, cli)
	ev := page.AwaitEvent(2*time.Minute, "the session's error before any turn", func(e wire.Event) bool {
		return e.Event == wire.EventError && e.SessionID == sid
	})
	if ev.TurnID != "" {
		t.Errorf("the error came with turn %q, want none (no turn was sent)", ev.TurnID)
	}
	data, _ := json.Marshal(ev.Data)
	if !strings.Contains(string(data), "does not answer") || !strings.Contains(string(data), strings.TrimPrefix(down, "http://")) {
		t.Errorf("error event %s, want the model server %s named", data, down)
	}
	noCLIProcessLeft(t, sid)
}
