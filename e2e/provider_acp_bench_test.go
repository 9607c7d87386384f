package e2e

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// BenchmarkACPAgents measures the agents over ACP through the real binary,
// against a scripted model that answers at once (issue 25, item 5):
//
//   - cold-tool-call-ms: send_text to the tool_call reaching the page on a
//     session's first turn (the agent starts, initialize, session/new with
//     the MCP server, its first model request, the MCP call);
//   - warm-tool-call-ms: the same on the session's second turn, on the warm
//     process (target: within 300 ms);
//   - warm-turn-ms: a third, text-only turn, send_text to done;
//   - after-pause-tool-call-ms: createSession, a pause of twice this
//     iteration's no-early-tool-call-ms, then the first turn's send_text to
//     its tool_call (the agent started at createSession);
//   - no-early-tool-call-ms: the first turn with early_start = false.
//
// Since agents start at createSession, cold-tool-call-ms is a send_text
// sent right after createSession.
//
// go test ./e2e -run '^$' -bench ACPAgents -benchtime 3x
func BenchmarkACPAgents(b *testing.B) {
	for _, cli := range []agentCLI{geminiACPCLI, opencodeACPCLI, copilotACPCLI, claudeACPCLI, codexACPCLI} {
		b.Run(cli.name, func(b *testing.B) {
			ms := cli.newServer(b)
			srv := serveCLIEnv(b, withBaseURL(cli, ms.URL), cli.env(b, ms.URL))
			page := dialCLIPage(b, srv)
			page.Handle("update_counter", func(json.RawMessage) any { return map[string]int{"value": 1} })
			off := cli
			off.settings += "\nearly_start = false"
			offPage := dialCLIPage(b, serveCLIEnv(b, withBaseURL(off, ms.URL), cli.env(b, ms.URL)))
			offPage.Handle("update_counter", func(json.RawMessage) any { return map[string]int{"value": 1} })
			toolCallOn := func(page *wspage.Page, sid, text string) time.Duration {
				ms.Push(modelserver.Use("update_counter", map[string]int{"delta": 1}), modelserver.Say("Done."))
				start := time.Now()
				turnID := page.SendText(sid, text)
				page.AwaitEvent(cliTurnWait, "the tool call", func(e wire.Event) bool {
					return e.Event == wire.EventToolCall && e.SessionID == sid && e.TurnID == turnID
				})
				d := time.Since(start)
				if done := page.AwaitDone(turnID, cliTurnWait); !done.OK {
					b.Fatalf("%s: %+v", cli.name, done.Error)
				}
				return d
			}
			toolCall := func(sid, text string) time.Duration { return toolCallOn(page, sid, text) }
			var cold, warm, turn, paused, noEarly time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sid := cliSession(b, offPage, off)
				thisNoEarly := toolCallOn(offPage, sid, "Add one.")
				noEarly += thisNoEarly
				offPage.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})

				sid = cliSession(b, page, cli)
				time.Sleep(2 * thisNoEarly)
				paused += toolCall(sid, "Add one.")
				page.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})

				sid = cliSession(b, page, cli)
				cold += toolCall(sid, "Add one.")
				warm += toolCall(sid, "Add one again.")
				ms.Push(modelserver.Say("Again."))
				start := time.Now()
				if done := page.AwaitDone(page.SendText(sid, "Again."), cliTurnWait); !done.OK {
					b.Fatalf("%s turn 3: %+v", cli.name, done.Error)
				}
				turn += time.Since(start)
				page.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})
			}
			n := float64(b.N)
			b.ReportMetric(float64(cold.Milliseconds())/n, "cold-tool-call-ms")
			b.ReportMetric(float64(warm.Milliseconds())/n, "warm-tool-call-ms")
			b.ReportMetric(float64(turn.Milliseconds())/n, "warm-turn-ms")
			b.ReportMetric(float64(paused.Milliseconds())/n, "after-pause-tool-call-ms")
			b.ReportMetric(float64(noEarly.Milliseconds())/n, "no-early-tool-call-ms")
		})
	}
}
