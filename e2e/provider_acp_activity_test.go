package e2e

import (
	"encoding/json"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Gemini CLI over ACP using a tool of its own (list_directory, a read it
// keeps): the page sees the call's steps as agent_activity events of the
// turn, and none for the page's own tool, which is a tool_call.
func TestGeminiACPAgentActivity(t *testing.T) {
	cli := geminiACPCLI
	ms := cli.newServer(t,
		modelserver.Use("list_directory", map[string]string{"dir_path": "."}),
		modelserver.Use("update_counter", map[string]int{"delta": 1}),
		modelserver.Say("Listed and counted."),
	)
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), cli.env(t, ms.URL))
	counter := 0
	page := acpCounterPage(t, srv, &counter)
	sid := cliSession(t, page, cli)
	turnID, done := cliTurn(t, page, sid, "List the directory, then add one.")
	if !done.OK {
		t.Fatalf("turn failed: %+v", done.Error)
	}
	if counter != 1 {
		t.Errorf("counter = %d, want 1", counter)
	}
	var steps []wire.AgentActivityData
	for _, e := range page.Events() {
		if e.Event != wire.EventAgentActivity || e.SessionID != sid {
			continue
		}
		if e.TurnID != turnID {
			t.Errorf("activity of turn %q, want %q", e.TurnID, turnID)
		}
		var d wire.AgentActivityData
		if err := json.Unmarshal(e.Data.(json.RawMessage), &d); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, d)
	}
	t.Logf("activity: %+v", steps)
	if len(steps) == 0 {
		t.Fatal("no agent_activity event for gemini's list_directory")
	}
	last := steps[len(steps)-1]
	if last.ToolCallID != steps[0].ToolCallID || last.Title == "" || (last.Status != "completed" && last.Status != "failed") {
		t.Errorf("steps = %+v: want one call's steps ending completed (or failed)", steps)
	}
	for _, s := range steps {
		if s.ToolCallID != steps[0].ToolCallID {
			t.Errorf("a second call in the activity (the page's tool?): %+v", s)
		}
	}
	page.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})
	noCLIProcessLeft(t, sid)
}
