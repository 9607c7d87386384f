package e2e

import (
	"strings"
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

// An early start of opencode warms the directory up (opencode boots its
// tool registry, file finder and watcher for a directory at its first
// prompt) with a throw-away session against Core's warm-up endpoint: the
// session's model is asked nothing for it, and the session's own first
// turn is the model's first request and answers as scripted.
func TestOpencodeACPWarmsUpWithoutTheModel(t *testing.T) {
	cli := opencodeACPCLI
	ms := cli.newServer(t)
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), cli.env(t, ms.URL))
	page := acpCounterPage(t, srv, new(int))
	sid := cliSession(t, page, cli)
	ms.Push(modelserver.Say("Hello from the session."))
	turnID, done := cliTurn(t, page, sid, "Say hello.")
	if !done.OK {
		t.Fatalf("turn failed: %+v", done.Error)
	}
	if chat := page.Chat(turnID); !strings.Contains(chat, "Hello from the session.") {
		t.Errorf("chat = %q", chat)
	}
	if !strings.Contains(srv.Logs(), "opencode warmed up in") {
		t.Error("Core's log does not say the early start warmed opencode up")
	}
	reqs := ms.Requests()
	if len(reqs) != 1 || len(ms.SideRequests()) != 0 {
		t.Fatalf("the session's model got %d requests and %d side requests, want only the turn's", len(reqs), len(ms.SideRequests()))
	}
	if body := string(reqs[0].Body); !strings.Contains(body, "Say hello.") || strings.Contains(body, `"content":"ok"`) {
		t.Errorf("the model's one request is not the turn's alone:\n%.2000s", body)
	}
}
