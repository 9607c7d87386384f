package e2e

import (
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
)

// opencode makes no request of its own before the turn's real one: its
// session-title request is switched off in the session's opencode config
// (agent.title.disable), so a turn's first model request is the turn's.
func TestOpencodeACPMakesNoTitleRequest(t *testing.T) {
	cli := opencodeACPCLI
	ms := cli.newServer(t)
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), cli.env(t, ms.URL))
	page := acpCounterPage(t, srv, new(int))
	sid := cliSession(t, page, cli)
	for _, text := range []string{"Say hello.", "Say it again."} {
		ms.Push(modelserver.Say("Hello."))
		if _, done := cliTurn(t, page, sid, text); !done.OK {
			t.Fatalf("turn %q failed: %+v", text, done.Error)
		}
	}
	if side := ms.SideRequests(); len(side) != 0 {
		t.Errorf("opencode made %d side requests (a session title?); the first:\n%.1500s", len(side), side[0].Body)
	}
	if n := len(ms.Requests()); n != 2 {
		t.Errorf("model requests = %d, want 2 (one per turn)", n)
	}
}
