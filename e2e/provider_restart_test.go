package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A real CLI's session survives kill -9 and SIGTERM of Core: after the
// restart the page resumes it, and the next turn resumes Codex's own
// thread, so the model's request carries the first turn.
func TestCodexSurvivesCoreRestart(t *testing.T) { testCLISurvivesRestart(t, codexCLI) }

func testCLISurvivesRestart(t *testing.T, cli agentCLI) {
	for _, how := range []string{"kill -9", "SIGTERM"} {
		t.Run(how, func(t *testing.T) {
			ms := cli.newServer(t)
			srv := serveCLI(t, cli, ms.URL)
			page := dialCLIPage(t, srv)
			counter := 0
			handle := func(p *wspage.Page) {
				p.Handle("update_counter", func(args json.RawMessage) any {
					var a struct{ Delta int }
					_ = json.Unmarshal(args, &a)
					counter += a.Delta
					return map[string]int{"value": counter}
				})
			}
			handle(page)
			sid := cliSession(t, page, cli)
			ms.Push(
				modelserver.Run(`pedelec tool-call update_counter '{"delta":2}'`),
				modelserver.Say("The counter is now 2."),
			)
			if _, done := cliTurn(t, page, sid, "Add two to the counter."); !done.OK {
				t.Fatalf("turn 1 failed: %+v", done.Error)
			}
			last := lastSeqOf(page, sid)
			if how == "kill -9" {
				srv.Kill()
			} else {
				srv.Stop(t)
			}
			srv.Restart(t)
			noCLIProcessLeft(t, sid)

			page2 := dialCLIPage(t, srv)
			handle(page2)
			if info := resumeAfter(t, page2, sid, last); info.Status != wire.StatusIdle || info.Provider != cli.name {
				t.Fatalf("resumed after %s = %+v", how, info)
			}
			ms.Push(modelserver.Say("I remember the counter."))
			turn, done := cliTurn(t, page2, sid, "What did you do before?")
			if !done.OK {
				t.Fatalf("the turn after the restart failed: %+v", done.Error)
			}
			reqs := ms.Requests()
			body := string(reqs[len(reqs)-1].Body)
			if !strings.Contains(body, "What did you do before?") || !strings.Contains(body, "The counter is now 2.") {
				t.Fatalf("the turn after the restart did not resume %s's thread; the model got:\n%.2000s", cli.name, body)
			}
			if chat := page2.Chat(turn); chat != "I remember the counter." {
				t.Fatalf("chat = %q", chat)
			}
			contiguous(t, page2, sid, last)
			page2.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})
			noCLIProcessLeft(t, sid)
		})
	}
}
