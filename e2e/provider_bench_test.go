package e2e

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// BenchmarkAgentCLIs measures each agent CLI through the real binary, with a
// scripted model that answers at once, so what is measured is the CLI and
// Pedelec, not a model:
//
//   - first-tool-call-ms: send_text to the tool_call reaching the page, on a
//     session's first turn (CLI start-up, its first model request, its shell,
//     `pedelec tool-call`);
//   - turn-ms: a whole first turn with one tool call and a final answer;
//   - resumed-turn-ms: a later turn with no tool call, the per-turn overhead
//     of starting the CLI again and resuming its session.
//
// go test ./e2e -run '^$' -bench AgentCLIs -benchtime 3x
func BenchmarkAgentCLIs(b *testing.B) {
	for _, cli := range []agentCLI{codexCLI, claudeCLI, geminiCLI, opencodeCLI, copilotCLI} {
		b.Run(cli.name, func(b *testing.B) {
			ms := cli.newServer(b)
			srv := serveCLI(b, cli, ms.URL)
			page := dialCLIPage(b, srv)
			page.Handle("update_counter", func(json.RawMessage) any { return map[string]int{"value": 1} })
			var first, turn, resumed time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sid := cliSession(b, page, cli)
				ms.Push(modelserver.Run(`pedelec tool-call update_counter '{"delta":1}'`), modelserver.Say("Done."))
				start := time.Now()
				turnID := page.SendText(sid, "Add one.")
				page.AwaitEvent(cliTurnWait, "the tool call", func(e wire.Event) bool {
					return e.Event == wire.EventToolCall && e.SessionID == sid
				})
				first += time.Since(start)
				if done := page.AwaitDone(turnID, cliTurnWait); !done.OK {
					b.Fatalf("%s turn 1: %+v", cli.name, done.Error)
				}
				turn += time.Since(start)
				ms.Push(modelserver.Say("Again."))
				start = time.Now()
				if done := page.AwaitDone(page.SendText(sid, "Again."), cliTurnWait); !done.OK {
					b.Fatalf("%s turn 2: %+v", cli.name, done.Error)
				}
				resumed += time.Since(start)
				page.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})
			}
			n := float64(b.N)
			b.ReportMetric(float64(first.Milliseconds())/n, "first-tool-call-ms")
			b.ReportMetric(float64(turn.Milliseconds())/n, "turn-ms")
			b.ReportMetric(float64(resumed.Milliseconds())/n, "resumed-turn-ms")
		})
	}
}
