package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The whole path: page → Core → agent process → pedelec tool-call → Core →
// page → back to the agent, with the status path and seq order.
func TestToolCallRoundTrip(t *testing.T) {
	srv := testenv.Serve(t, nil)
	p := wspage.Dial(t, srv.WSURL, "")
	counterPage(p)
	info := scriptSession(t, p, true)
	if info.Status != wire.StatusIdle || len(info.Tools) != 3 {
		t.Fatalf("session info = %+v", info)
	}
	turn := p.SendText(info.SessionID, `call update_counter {"delta": 2}`+"\n"+`call update_counter {"delta": 3}`+"\nsay finished")
	done := p.AwaitDone(turn, 20*time.Second)
	if !done.OK {
		t.Fatalf("turn failed: %+v", done.Error)
	}
	lines := strings.Split(strings.TrimSpace(p.Chat(turn)), "\n")
	if len(lines) != 3 {
		t.Fatalf("chat = %q", p.Chat(turn))
	}
	if got := agentSaw(t, lines[0]); !got.OK || string(got.Result) != `{"value":2}` {
		t.Fatalf("first call: agent saw %s", lines[0])
	}
	if got := agentSaw(t, lines[1]); string(got.Result) != `{"value":5}` {
		t.Fatalf("second call: agent saw %s", lines[1])
	}
	if lines[2] != "finished" {
		t.Fatalf("say line = %q", lines[2])
	}

	var statuses []string
	var lastSeq int64
	calls := map[string]bool{}
	for _, e := range p.Events() {
		if e.Seq <= lastSeq {
			t.Fatalf("seq went from %d to %d", lastSeq, e.Seq)
		}
		lastSeq = e.Seq
		switch e.Event {
		case wire.EventStatusChanged:
			var d wire.StatusChangedData
			json.Unmarshal(e.Data.(json.RawMessage), &d)
			statuses = append(statuses, string(d.PreviousStatus+"->"+d.Status))
		case wire.EventToolCall:
			var d wire.ToolCallData
			json.Unmarshal(e.Data.(json.RawMessage), &d)
			if calls[d.ToolRequestID] || d.TurnStartedAt == 0 || d.Deadline <= d.TurnStartedAt || d.TimeoutMs != 10000 {
				t.Fatalf("tool_call = %+v", d)
			}
			calls[d.ToolRequestID] = true
			if e.TurnID != turn {
				t.Fatalf("tool call outside its turn: %s vs %s", e.TurnID, turn)
			}
		}
	}
	want := "idle->running running->waiting_tool_result waiting_tool_result->running running->waiting_tool_result waiting_tool_result->running running->idle"
	if strings.Join(statuses, " ") != want {
		t.Fatalf("status path:\n got %s\nwant %s", strings.Join(statuses, " "), want)
	}
	if len(calls) != 2 {
		t.Fatalf("want 2 distinct toolRequestIds, got %v", calls)
	}

	// A second turn sends only the message and works the same.
	turn2 := p.SendText(info.SessionID, `call update_counter {"delta": -1}`)
	if d := p.AwaitDone(turn2, 20*time.Second); !d.OK || !strings.Contains(p.Chat(turn2), `{"value":4}`) {
		t.Fatalf("second turn: %+v %q", d, p.Chat(turn2))
	}
}

// Every agent-side failure reaches the agent as one JSON object with a code.
func TestAgentSeesErrors(t *testing.T) {
	srv := testenv.Serve(t, nil)
	p := wspage.Dial(t, srv.WSURL, "")
	counterPage(p)
	info := scriptSession(t, p, true)
	script := strings.Join([]string{
		`call no_such_tool {}`,
		`call update_counter {"delta": "two"}`,
		`call update_counter {"delta": 500, "extra": 1}`,
		`call update_counter [1, 2]`,
		`call update_counter {"delta": 2`,
		`spec update_counter`,
		`spec no_such_tool`,
		`call get_current_page`,
	}, "\n")
	turn := p.SendText(info.SessionID, script)
	if d := p.AwaitDone(turn, 30*time.Second); !d.OK {
		t.Fatalf("turn failed: %+v", d.Error)
	}
	lines := strings.Split(strings.TrimSpace(p.Chat(turn)), "\n")
	if len(lines) != 8 {
		t.Fatalf("want 8 outputs, got %d: %q", len(lines), p.Chat(turn))
	}
	if c := errorCode(t, lines[0]); c != wire.CodeToolNotFound {
		t.Errorf("unknown tool: %s", lines[0])
	}
	for i := 1; i <= 3; i++ {
		r := agentSaw(t, lines[i])
		if r.OK || r.Error.Code != wire.CodeToolArgsInvalid {
			t.Errorf("line %d: want TOOL_ARGS_INVALID, got %s", i, lines[i])
			continue
		}
		if !strings.Contains(lines[i], "violations") {
			t.Errorf("line %d: no violations in details: %s", i, lines[i])
		}
	}
	if r := agentSaw(t, lines[4]); r.OK || r.Error.Code != wire.CodeToolArgsInvalid || !strings.Contains(r.Error.Message, "line 1, column") {
		t.Errorf("bad JSON: %s", lines[4])
	}
	spec := agentSaw(t, lines[5])
	var def struct {
		Name       string          `json:"name"`
		ArgsSchema json.RawMessage `json:"argsSchema"`
		TimeoutMs  int64           `json:"timeoutMs"`
	}
	json.Unmarshal(spec.Result, &def)
	if !spec.OK || def.Name != "update_counter" || def.TimeoutMs != 10000 || !strings.Contains(string(def.ArgsSchema), `"minimum":-100`) {
		t.Errorf("tool-spec: %s", lines[5])
	}
	if c := errorCode(t, lines[6]); c != wire.CodeToolNotFound {
		t.Errorf("spec of unknown tool: %s", lines[6])
	}
	if r := agentSaw(t, lines[7]); !r.OK || !strings.Contains(string(r.Result), "Test page") {
		t.Errorf("call without args: %s", lines[7])
	}
	// Only the one valid call reached the page.
	n := 0
	for _, e := range p.Events() {
		if e.Event == wire.EventToolCall {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d tool_call events reached the page; invalid calls must stop at Core", n)
	}
}

// A tool that answers after its timeoutMs: the agent gets TOOL_TIMEOUT, the
// late result is refused with a reason, and so is a duplicate.
func TestToolTimeoutAndLateResult(t *testing.T) {
	srv := testenv.Serve(t, nil)
	p := wspage.Dial(t, srv.WSURL, "")
	info := scriptSession(t, p, true)
	turn := p.SendText(info.SessionID, "call slow_tool {}")
	ev := p.AwaitEvent(10*time.Second, "tool_call", func(e wire.Event) bool { return e.Event == wire.EventToolCall })
	var call wire.ToolCallData
	json.Unmarshal(ev.Data.(json.RawMessage), &call)
	if call.TimeoutMs != 300 {
		t.Fatalf("timeoutMs = %d", call.TimeoutMs)
	}
	p.AwaitEvent(10*time.Second, "settled by timeout", func(e wire.Event) bool {
		return e.Event == wire.EventToolCallSettled && strings.Contains(string(e.Data.(json.RawMessage)), `"outcome":"timeout"`)
	})
	if d := p.AwaitDone(turn, 10*time.Second); !d.OK {
		t.Fatalf("turn: %+v", d.Error)
	}
	if c := errorCode(t, p.Chat(turn)); c != wire.CodeToolTimeout {
		t.Fatalf("agent saw %s", p.Chat(turn))
	}
	_, err := p.Call(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Result: json.RawMessage(`{"late":true}`)})
	if err == nil || err.Code != wire.CodeToolRequestNotPending || !strings.Contains(string(mustJSON(err.Details)), `"reason":"timeout"`) {
		t.Fatalf("late result: %+v", err)
	}
	_, err = p.Call(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: "tr_never", Result: json.RawMessage(`1`)})
	if err == nil || err.Code != wire.CodeToolRequestNotPending {
		t.Fatalf("unknown request: %+v", err)
	}
}

// Answering twice: the second result is refused as already submitted.
func TestDuplicateResult(t *testing.T) {
	srv := testenv.Serve(t, nil)
	p := wspage.Dial(t, srv.WSURL, "")
	info := scriptSession(t, p, true)
	turn := p.SendText(info.SessionID, `call update_counter {"delta": 1}`)
	ev := p.AwaitEvent(10*time.Second, "tool_call", func(e wire.Event) bool { return e.Event == wire.EventToolCall })
	var call wire.ToolCallData
	json.Unmarshal(ev.Data.(json.RawMessage), &call)
	submit := wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Result: json.RawMessage(`{"value":1}`)}
	p.MustCall(wire.MethodSubmitToolResult, submit)
	_, err := p.Call(wire.MethodSubmitToolResult, submit)
	if err == nil || err.Code != wire.CodeToolRequestNotPending || !strings.Contains(string(mustJSON(err.Details)), `"reason":"result"`) {
		t.Fatalf("duplicate result: %+v", err)
	}
	p.AwaitDone(turn, 10*time.Second)
}

// Several calls pending at once: the status stays waiting_tool_result until
// the last one settles, and the bound refuses one more.
func TestConcurrentCalls(t *testing.T) {
	srv := testenv.Serve(t, []string{"--max-pending-calls", "3"})
	p := wspage.Dial(t, srv.WSURL, "")
	info := scriptSession(t, p, true)
	lines := []string{}
	for i := 1; i <= 4; i++ {
		lines = append(lines, `& call update_counter {"delta": `+string(rune('0'+i))+`}`)
	}
	turn := p.SendText(info.SessionID, strings.Join(lines, "\n"))
	// The fourth call is refused only while three are pending: wait until
	// its tool-call process has exited, whatever order they started in.
	testenv.Await(t, 30*time.Second, "3 pending calls and the 4th refused", func() bool {
		return len(pendingCalls(p)) == 3 && len(toolCallProcesses(t, info.SessionID)) == 3
	})
	calls := pendingCalls(p)
	for i, call := range calls {
		p.MustCall(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Result: json.RawMessage(`{"n":` + string(rune('0'+i)) + `}`)})
		if i < len(calls)-1 && lastStatus(p) != wire.StatusWaitingToolResult {
			t.Fatalf("after %d of %d results the status is %s", i+1, len(calls), lastStatus(p))
		}
	}
	if d := p.AwaitDone(turn, 15*time.Second); !d.OK {
		t.Fatalf("turn: %+v", d.Error)
	}
	chat := p.Chat(turn)
	if strings.Count(chat, `"ok":true`) != 3 || !strings.Contains(chat, string(wire.CodeTooManyPendingCalls)) {
		t.Fatalf("want 3 results and one TOO_MANY_PENDING_CALLS, agent saw:\n%s", chat)
	}
	// The waitingOn list named every pending call at its peak.
	max := 0
	for _, e := range p.Events() {
		if e.Event == wire.EventStatusChanged {
			var d wire.StatusChangedData
			json.Unmarshal(e.Data.(json.RawMessage), &d)
			if len(d.WaitingOn) > max {
				max = len(d.WaitingOn)
			}
		}
	}
	if max < 1 {
		t.Fatalf("status_changed never named the tools waited on")
	}
}

func pendingCalls(p *wspage.Page) []wire.ToolCallData {
	settled := map[string]bool{}
	var calls []wire.ToolCallData
	for _, e := range p.Events() {
		switch e.Event {
		case wire.EventToolCallSettled:
			var d wire.ToolCallSettledData
			json.Unmarshal(e.Data.(json.RawMessage), &d)
			settled[d.ToolRequestID] = true
		case wire.EventToolCall:
			var d wire.ToolCallData
			json.Unmarshal(e.Data.(json.RawMessage), &d)
			calls = append(calls, d)
		}
	}
	var out []wire.ToolCallData
	for _, c := range calls {
		if !settled[c.ToolRequestID] {
			out = append(out, c)
		}
	}
	return out
}

func lastStatus(p *wspage.Page) wire.Status {
	var status wire.Status
	for _, e := range p.Events() {
		if e.Event == wire.EventStatusChanged {
			var d wire.StatusChangedData
			json.Unmarshal(e.Data.(json.RawMessage), &d)
			status = d.Status
		}
	}
	return status
}

func mustJSON(v any) []byte {
	data, _ := json.Marshal(v)
	return data
}

// toolCallProcesses lists the live `pedelec tool-call` processes of a session.
func toolCallProcesses(t *testing.T, sessionID string) []int {
	var out []int
	for _, pid := range testenv.ProcessesWithEnv(wire.EnvThreadID + "=" + sessionID) {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", itoa(pid), "cmdline"))
		if strings.Contains(string(cmdline), "tool-call\x00") {
			out = append(out, pid)
		}
	}
	return out
}
