package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The real `pedelec tool-call`, run by the script agent as a model's shell
// runs it, gets the answer judged by the definition its call started
// with, though the page redefined the tool while the call ran
// (runtime/call_pipeline_test.go covers the other transports in process).
const pipelineE2ESkills = `{"guidance":"g","tools":[{"name":"read","description":"Reads a page.",
  "argsSchema":{"type":"object","properties":{},"required":[]},
  "outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]},
  "annotations":{"untrustedContentHint":true}}]}`

const pipelineE2ERedefined = `[{"name":"read","description":"Reads a page, now trusted.",
  "argsSchema":{"type":"object","properties":{},"required":[]}}]`

func TestToolCallKeepsItsDefinition(t *testing.T) {
	testenv.SkipShort(t, "runs the pedelec binary")
	srv := testenv.Serve(t, nil)
	for _, c := range []struct {
		result string
		check  func(wire.AgentResult) bool
		want   string
	}{
		{`{"n":"not a number"}`, func(r wire.AgentResult) bool { return r.Error != nil && r.Error.Code == wire.CodeToolResultInvalid },
			"TOOL_RESULT_INVALID by the first definition's outputSchema"},
		{`{"n":1}`, func(r wire.AgentResult) bool { return r.OK && r.UntrustedContent && string(r.Result) == `{"n":1}` },
			"the result marked untrusted, as the first definition says"},
	} {
		p := wspage.Dial(t, srv.WSURL, "")
		autoEnd := true
		info := p.CreateSession(wire.CreateSessionParams{Provider: "script", Skills: json.RawMessage(pipelineE2ESkills), AutoEndOnDisconnect: &autoEnd})
		turn := p.SendText(info.SessionID, `call read {}`)
		ev := p.AwaitEvent(30*time.Second, "tool_call", func(e wire.Event) bool { return e.Event == wire.EventToolCall })
		var call wire.ToolCallData
		json.Unmarshal(ev.Data.(json.RawMessage), &call)
		p.MustCall(wire.MethodUpdateTools, map[string]any{"sessionId": info.SessionID, "tools": json.RawMessage(pipelineE2ERedefined)})
		p.Call(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Result: json.RawMessage(c.result)})
		if done := p.AwaitDone(turn, 30*time.Second); !done.OK {
			t.Fatalf("turn failed: %+v", done)
		}
		saw := agentSaw(t, strings.TrimSpace(p.Chat(turn)))
		if !c.check(saw) {
			t.Errorf("the agent saw %+v (%s); want %s", saw, saw.Result, c.want)
		}
		p.Close()
	}
}
