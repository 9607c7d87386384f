package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// qwenPageTool is the name Qwen Code gives a page tool served by the
// session's MCP server ("pedelec"): the name a tool_call names.
func qwenPageTool(tool string) string { return "mcp__pedelec__" + tool }

// qwenBridgeCall is a step that calls a deferred tool through Qwen's
// tool_call bridge: {name, arguments}.
func qwenBridgeCall(tool string, args any) modelserver.Step {
	return modelserver.Use("tool_call", map[string]any{"name": qwenPageTool(tool), "arguments": args})
}

// qwenMainScript answers the requests of Qwen's own turns with steps in
// order, and its side requests with "Nothing to save.": after an answer it
// runs a memory extraction subagent and a suggestion of the user's next
// message, forks of the conversation that offer the same tools, and one of
// them must never take a step meant for the next turn. main holds the turn
// requests, in order.
type qwenMainScript struct {
	mu    sync.Mutex
	steps []modelserver.Step
	main  []modelserver.Request
}

func (q *qwenMainScript) push(steps ...modelserver.Step) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.steps = append(q.steps, steps...)
}

func (q *qwenMainScript) requests() []modelserver.Request {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]modelserver.Request(nil), q.main...)
}

// step is the one repeating step to give the model server.
func (q *qwenMainScript) step() modelserver.Step {
	return modelserver.Step{Repeat: true, Decide: func(r modelserver.Request) modelserver.Step {
		if !qwenTurnRequest(r) {
			return modelserver.Say("Nothing to save.")
		}
		r.At = time.Now()
		q.mu.Lock()
		q.main = append(q.main, r)
		if len(q.steps) == 0 {
			q.mu.Unlock()
			return modelserver.FailWith(500, "modelserver: script exhausted")
		}
		s := q.steps[0]
		q.steps = q.steps[1:]
		q.mu.Unlock()
		if s.Decide != nil {
			s = s.Decide(r)
		}
		return s
	}}
}

// use is a step that calls a page tool the way this agent offers it: as
// it is if the request declares it (tools.visible), else through the
// bridge, tool_search first and then tool_call (the tool_call taken as
// this step's next, before the script's next step).
func (q *qwenMainScript) use(tool string, args any) modelserver.Step {
	return modelserver.Step{Decide: func(r modelserver.Request) modelserver.Step {
		if slices.Contains(chatToolNames(r), qwenPageTool(tool)) {
			return modelserver.Use(tool, args)
		}
		q.mu.Lock()
		q.steps = append([]modelserver.Step{qwenBridgeCall(tool, args)}, q.steps...)
		q.mu.Unlock()
		return modelserver.Use("tool_search", map[string]string{"query": "select:" + qwenPageTool(tool)})
	}}
}

// qwenTurnRequest: the request offers the tool_call bridge, as every
// request of the session's chat does, and is none of Qwen's side agents.
func qwenTurnRequest(r modelserver.Request) bool {
	body := string(r.Body)
	if strings.Contains(body, "managed memory extraction subagent") || strings.Contains(body, "[SUGGESTION MODE:") {
		return false
	}
	var req struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(r.Body, &req)
	for _, t := range req.Tools {
		if t.Function.Name == "tool_call" {
			return true
		}
	}
	return false
}

// The page's tools are declared to Qwen's model as they are (the session's
// Qwen settings list them in tools.visible): once the agent has connected
// to the session's MCP server, the first turn's first model request offers
// mcp__pedelec__update_counter, the model calls it, the handler runs with
// its arguments, its result is in the next model request and the turn
// ends: two model steps, as with the other agents. A tool_call of a tool
// the page does not have gives the model Qwen's refusal, and the turn
// goes on to its end.
func TestQwenACPPageToolDeclaredUpFront(t *testing.T) {
	cli := qwenACPCLI
	script := &qwenMainScript{}
	ms := cli.newServer(t, script.step())
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), cli.env(t, ms.URL))
	page, got := qwenCounterPage(t, srv)
	sid := cliSession(t, page, cli)
	// The early start connects Qwen's MCP client after session/new: wait
	// until the agent is quiet (as a user typing would).
	awaitEarlyAgentIdle(t, srv, sid)

	script.push(modelserver.Use("update_counter", map[string]int{"delta": 2}), modelserver.Say("The counter is now 2."))
	turnID, done := cliTurn(t, page, sid, "Add two to the counter.")
	if !done.OK {
		t.Fatalf("turn 1 failed: %+v", done.Error)
	}
	reqs := script.requests()
	if len(reqs) != 2 {
		t.Fatalf("turn requests = %d, want 2 (the call, the answer)", len(reqs))
	}
	if names := chatToolNames(reqs[0]); !slices.Contains(names, qwenPageTool("update_counter")) {
		t.Errorf("the first model request's tools %v lack %s", names, qwenPageTool("update_counter"))
	}
	checkQwenHandled(t, *got, 0, 2)
	if out, _ := reqs[1].ToolMessage(); !strings.Contains(out, `"value":2`) && !strings.Contains(out, `"value": 2`) {
		t.Errorf("the request after the call lacks the handler's result:\n%s", out)
	}
	if chat := page.Chat(turnID); !strings.Contains(chat, "The counter is now 2.") {
		t.Errorf("chat = %q", chat)
	}

	script.push(qwenBridgeCall("no_such_tool", map[string]int{"delta": 1}), modelserver.Say("That tool does not exist."))
	turnID, done = cliTurn(t, page, sid, "Use a tool that does not exist.")
	if !done.OK {
		t.Fatalf("turn 2 failed: %+v", done.Error)
	}
	reqs = script.requests()
	if len(reqs) != 4 {
		t.Fatalf("turn requests = %d, want 4", len(reqs))
	}
	if out, _ := reqs[3].ToolMessage(); !strings.Contains(out, qwenPageTool("no_such_tool")) || !strings.Contains(out, "not registered") {
		t.Errorf("the request after a tool_call of a missing tool lacks Qwen's refusal:\n%s", out)
	}
	if chat := page.Chat(turnID); !strings.Contains(chat, "That tool does not exist.") {
		t.Errorf("chat = %q", chat)
	}
	if len(*got) != 1 {
		t.Errorf("the handler ran %d times, want once", len(*got))
	}
	page.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})
	noCLIProcessLeft(t, sid)
}

// With Qwen settings of the user's own (a HOME of their own in the
// provider's env: Pedelec writes no settings then, so no tools.visible),
// the page's tools sit behind Qwen's bridge: the model looks the tool up
// with tool_search (select:<name>) and calls it with tool_call, three
// model steps; the handler runs with the arguments the model wrote and its
// result goes back to the model. A tool_call needs no tool_search first:
// the second call goes straight through.
func TestQwenACPPageToolThroughTheBridge(t *testing.T) {
	cli := qwenACPCLI
	script := &qwenMainScript{}
	ms := cli.newServer(t, script.step())
	home := t.TempDir()
	// The user's own settings: what Pedelec's would say, but tools.visible.
	own := `{"$version": 4, "tools": {"eager": []}, "privacy": {"usageStatisticsEnabled": false}, "general": {"preventSystemSleep": false}}`
	if err := os.MkdirAll(filepath.Join(home, ".qwen"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".qwen", "settings.json"), []byte(own), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), map[string]string{"HOME": home})
	page, got := qwenCounterPage(t, srv)
	sid := cliSession(t, page, cli)
	awaitEarlyAgentIdle(t, srv, sid)

	script.push(
		modelserver.Use("tool_search", map[string]string{"query": "select:" + qwenPageTool("update_counter")}),
		qwenBridgeCall("update_counter", map[string]int{"delta": 2}),
		qwenBridgeCall("update_counter", map[string]int{"delta": 3}),
		modelserver.Say("The counter is now 5."),
	)
	turnID, done := cliTurn(t, page, sid, "Add two, then three.")
	if !done.OK {
		t.Fatalf("turn failed: %+v", done.Error)
	}
	reqs := script.requests()
	if len(reqs) != 4 {
		t.Fatalf("turn requests = %d, want 4 (tool_search, tool_call twice, answer)", len(reqs))
	}
	if names := chatToolNames(reqs[0]); slices.Contains(names, qwenPageTool("update_counter")) {
		t.Errorf("the page's tool is declared (tools %v): this test wants it behind the bridge", names)
	}
	if out, _ := reqs[1].ToolMessage(); !strings.Contains(out, "<functions>") || !strings.Contains(out, qwenPageTool("update_counter")) {
		t.Errorf("tool_search's result lacks the tool's declaration:\n%s", out)
	}
	checkQwenHandled(t, *got, 0, 2)
	checkQwenHandled(t, *got, 1, 3)
	if out, _ := reqs[2].ToolMessage(); !strings.Contains(out, `"value":2`) && !strings.Contains(out, `"value": 2`) {
		t.Errorf("the request after the first tool_call lacks the handler's result:\n%s", out)
	}
	if out, _ := reqs[3].ToolMessage(); !strings.Contains(out, `"value":5`) && !strings.Contains(out, `"value": 5`) {
		t.Errorf("the request after the second tool_call lacks the handler's result:\n%s", out)
	}
	if chat := page.Chat(turnID); !strings.Contains(chat, "The counter is now 5.") {
		t.Errorf("chat = %q", chat)
	}
	page.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})
	noCLIProcessLeft(t, sid)
}

// qwenCounterPage is a page whose update_counter adds delta to its
// counter; got records each call's arguments.
func qwenCounterPage(t *testing.T, srv *testenv.Server) (*wspage.Page, *[]json.RawMessage) {
	got := &[]json.RawMessage{}
	page := dialCLIPage(t, srv)
	page.Handle("update_counter", sharedCounterHandler(got))
	return page, got
}

// sharedCounterHandler adds delta to a counter shared by the calls recorded in got.
func sharedCounterHandler(got *[]json.RawMessage) wspage.Handler {
	return func(args json.RawMessage) any {
		*got = append(*got, args)
		total := 0
		for _, a := range *got {
			var d struct{ Delta int }
			_ = json.Unmarshal(a, &d)
			total += d.Delta
		}
		return map[string]int{"value": total}
	}
}

// checkQwenHandled: the handler's i-th call had delta.
func checkQwenHandled(t *testing.T, got []json.RawMessage, i, delta int) {
	t.Helper()
	if len(got) <= i {
		t.Fatalf("the handler ran %d times; want a call %d with delta %d", len(got), i+1, delta)
	}
	var a struct{ Delta *int }
	if err := json.Unmarshal(got[i], &a); err != nil || a.Delta == nil || *a.Delta != delta {
		t.Errorf("the handler's call %d had arguments %s, want delta %d", i+1, got[i], delta)
	}
}

// chatToolNames are the function tools a chat-completions request offers.
func chatToolNames(r modelserver.Request) []string {
	var req modelserver.ChatRequest
	_ = json.Unmarshal(r.Body, &req)
	return req.ToolNames()
}

// Qwen Code does not act on the MCP server's tools/list_changed: a warm
// agent never hears of a tool the page adds. So when the page's tools
// change between turns Core starts the agent again at once,
// session/load'ing the conversation: the next turn's first model request
// offers the new tool as it is (its tools.visible is written at the
// start) and still carries the earlier turn, the model calls the new
// tool, and its handler runs.
func TestQwenACPHearsToolsThePageAdds(t *testing.T) {
	cli := qwenACPCLI
	script := &qwenMainScript{}
	ms := cli.newServer(t, script.step())
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), cli.env(t, ms.URL))
	page, got := qwenCounterPage(t, srv)
	var resets []json.RawMessage
	page.Handle("reset_counter", func(args json.RawMessage) any {
		resets = append(resets, args)
		return map[string]int{"value": 0}
	})
	sid := cliSession(t, page, cli)
	awaitEarlyAgentIdle(t, srv, sid)

	script.push(modelserver.Use("update_counter", map[string]int{"delta": 2}), modelserver.Say("The counter is now 2."))
	if _, done := cliTurn(t, page, sid, "Add two to the counter."); !done.OK {
		t.Fatalf("turn 1 failed: %+v", done.Error)
	}
	checkQwenHandled(t, *got, 0, 2)
	before := agentLeaders(srv, sid)

	page.MustCall(wire.MethodUpdateTools, map[string]any{"sessionId": sid, "tools": json.RawMessage(`[
	  {"name": "update_counter", "description": "Add delta to the page's counter and return the new value.",
	   "argsSchema": {"type": "object", "properties": {"delta": {"type": "integer"}}, "required": ["delta"]}},
	  {"name": "reset_counter", "description": "Set the page's counter to zero.",
	   "argsSchema": {"type": "object", "properties": {}}}]`)})
	// Core starts the agent again now, between turns; the user's next
	// message comes once it is up and quiet (as a user typing would).
	testenv.Await(t, cliTurnWait, "the agent started again for the new tools", func() bool {
		after := agentLeaders(srv, sid)
		return len(after) > 0 && !slices.Equal(after, before)
	})
	awaitIdleAgent(sid)
	script.push(modelserver.Use("reset_counter", map[string]any{}), modelserver.Say("The counter is back to 0."))
	turnID, done := cliTurn(t, page, sid, "Reset the counter.")
	if !done.OK {
		t.Fatalf("turn 2 failed: %+v", done.Error)
	}
	reqs := script.requests()
	if len(reqs) != 4 {
		t.Fatalf("turn requests = %d, want 4 (two per turn)", len(reqs))
	}
	if names := chatToolNames(reqs[2]); !slices.Contains(names, qwenPageTool("reset_counter")) {
		t.Errorf("the first model request after the tools changed offers %v, without %s", names, qwenPageTool("reset_counter"))
	}
	if !strings.Contains(string(reqs[2].Body), "Add two to the counter.") {
		t.Error("the agent started for the new tools lost the conversation (no session/load)")
	}
	if len(resets) != 1 {
		t.Errorf("reset_counter's handler ran %d times, want once", len(resets))
	}
	if chat := page.Chat(turnID); !strings.Contains(chat, "The counter is back to 0.") {
		t.Errorf("chat = %q", chat)
	}
	page.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})
	noCLIProcessLeft(t, sid)
}
