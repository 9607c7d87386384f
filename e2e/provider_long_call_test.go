package e2e

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

var waitCommandRe = regexp.MustCompile(`pedelec tool-call --thread-id \S+ --wait h_[a-z0-9]+`)

// Issue 26 through a real agent CLI against a scripted model: with a
// short budget (PEDELEC_CALL_BUDGET_MS in the provider's env) the model's
// Bash command exits 3 with TOOL_CALL_PENDING and the handler's progress
// lines, which the CLI hands the model; the model runs details.next, which
// waits for the same call and gets its result once the page answers.
func TestClaudeLongCallHandedOver(t *testing.T) { testCLILongCall(t, claudeCLI) }

// The same through Codex, whose exec_command yields back to the model
// after 10 s: tool-call hands over before that (PEDELEC_CALL_BUDGET_MS).
func TestCodexLongCallHandedOver(t *testing.T) { testCLILongCall(t, codexCLI) }

func testCLILongCall(t *testing.T, cli agentCLI) {
	ms := cli.newServer(t)
	env := cli.env(t, ms.URL)
	env[wire.EnvCallBudgetMs] = "1500"
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), env)
	page := dialCLIPage(t, srv)
	sid := cliSession(t, page, cli)

	calls := make(chan wire.ToolCallData, 1)
	go func() { // the page: a handler that reports progress and answers late
		ev := page.AwaitEvent(cliTurnWait, "the tool call", func(e wire.Event) bool { return e.Event == wire.EventToolCall })
		var call wire.ToolCallData
		json.Unmarshal(ev.Data.(json.RawMessage), &call)
		calls <- call
		for i := 1; i <= 10; i++ {
			page.Call(wire.MethodToolProgress, wire.ToolProgressParams{SessionID: sid, ToolRequestID: call.ToolRequestID, Progress: float64(i), Total: 10, Message: "waiting for the user"})
			time.Sleep(100 * time.Millisecond)
		}
	}()
	ms.Push(
		modelserver.Run(`pedelec-cli --thread-id `+sid+` tool-call update_counter '{"delta":2}'`),
		modelserver.Step{Decide: func(r modelserver.Request) modelserver.Step {
			out := cli.toolOutput(r)
			next := waitCommandRe.FindString(out)
			if next == "" {
				return modelserver.Say("no wait command in: " + out)
			}
			go func() { // the user answers a little after the agent started waiting
				call := <-calls
				time.Sleep(700 * time.Millisecond)
				page.Call(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: sid, ToolRequestID: call.ToolRequestID, Result: json.RawMessage(`{"value":2}`)})
			}()
			return modelserver.Run(next)
		}},
		modelserver.Say("The counter is now 2."),
	)
	turnID, done := cliTurn(t, page, sid, "Add two to the counter.")
	if !done.OK {
		t.Fatalf("turn failed: %+v; chat %q", done.Error, page.Chat(turnID))
	}
	reqs := ms.Requests()
	if len(reqs) != 3 {
		t.Fatalf("model requests = %d, want 3; chat %q", len(reqs), page.Chat(turnID))
	}
	first := cli.toolOutput(reqs[1])
	if !strings.Contains(first, `"code":"TOOL_CALL_PENDING"`) || !strings.Contains(first, "pedelec: progress ") {
		t.Errorf("the model did not get the pending answer with the progress lines; it got:\n%s", first)
	}
	if out := cli.toolOutput(reqs[2]); !strings.Contains(out, `{"ok":true,"result":{"value":2}}`) {
		t.Errorf("the wait did not bring the result; the model got:\n%s", out)
	}
	if chat := page.Chat(turnID); chat != "The counter is now 2." {
		t.Errorf("chat = %q", chat)
	}
	t.Logf("what %s handed the model after the first command:\n%s", cli.name, first)
}
