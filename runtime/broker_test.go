package runtime

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

func TestCallToolRoundTrip(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	p.Handle("echo", func(args json.RawMessage) any { return map[string]any{"got": args} })
	info, _ := h.session(p, true)
	turnID, ht := h.send(p, info.SessionID, "go")

	res, err := ht.call("echo", `  {"x": 7} `)
	if err != nil {
		t.Fatal(err)
	}
	if string(res) != `{"got":{"x":7}}` {
		t.Errorf("result = %s", res)
	}
	call := toolCall(t, p, "echo", 1)
	// The arguments as the agent wrote them, less the space around them.
	if call.TimeoutMs != 60000 || call.Deadline <= call.TurnStartedAt || call.Redelivered || string(call.Args) != `{"x": 7}` {
		t.Errorf("tool_call = %+v", call)
	}
	if d := settled(t, p, call.ToolRequestID); d.Outcome != "result" || d.Tool != "echo" {
		t.Errorf("settled = %+v", d)
	}
	ht.finish <- nil
	if done := p.AwaitDone(turnID, 10*time.Second); !done.OK {
		t.Errorf("done = %+v", done)
	}
	want := []string{"idle>running", "running>waiting_tool_result", "waiting_tool_result>running", "running>idle"}
	if got := statuses(t, p); !slices.Equal(got, want) {
		t.Errorf("statuses = %v, want %v", got, want)
	}
	// waitingOn names the pending call; every status event of the turn
	// carries its turn id, the last one included.
	for _, e := range p.Events() {
		if e.Event != wire.EventStatusChanged {
			continue
		}
		if e.TurnID != turnID {
			t.Errorf("status event %s has turn %q, want %q", e.Data, e.TurnID, turnID)
		}
		var d wire.StatusChangedData
		eventData(t, e, &d)
		if d.Status == wire.StatusWaitingToolResult && (len(d.WaitingOn) != 1 || d.WaitingOn[0].ToolRequestID != call.ToolRequestID) {
			t.Errorf("waitingOn = %+v", d.WaitingOn)
		}
	}
	// Seq only goes up.
	var last int64
	for _, e := range p.Events() {
		if e.Seq <= last {
			t.Errorf("seq %d after %d", e.Seq, last)
		}
		last = e.Seq
	}
}

func TestCallToolRefusesBadCalls(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.MaxArgsBytes = 64 })
	p := h.page()
	p.Handle("none", func(json.RawMessage) any { return "ok" })
	info, _ := h.session(p, true)
	_, ht := h.send(p, info.SessionID, "go")

	_, err := ht.call("nope", `{}`)
	we := wantCode(t, err, wire.CodeToolNotFound)
	if d, _ := we.Details.(map[string]any); d["tool"] != "nope" || !strings.Contains(we.Message, "echo") {
		t.Errorf("TOOL_NOT_FOUND = %+v", we)
	}
	// Issue 23: the tools as a reader lists them, not Go's "[echo slow none]".
	if !strings.HasSuffix(we.Message, "available tools: echo, slow, none") {
		t.Errorf("TOOL_NOT_FOUND lists the tools as %q", we.Message)
	}
	// One typo from a declared name: the error names it.
	if d, _ := we.Details.(map[string]any); d["didYouMean"] != "none" || !strings.Contains(we.Message, `(did you mean "none"?)`) {
		t.Errorf("TOOL_NOT_FOUND for a typo = %q, details %+v", we.Message, we.Details)
	}
	_, err = ht.call("weather", `{}`)
	if we := wantCode(t, err, wire.CodeToolNotFound); strings.Contains(we.Message, "did you mean") {
		t.Errorf("TOOL_NOT_FOUND suggests a name for a tool nothing like any: %q", we.Message)
	}
	_, err = ht.call("echo", `{"x":"seven"}`)
	wantCode(t, err, wire.CodeToolArgsInvalid)
	_, err = ht.call("echo", `{"x":1,"pad":"`+strings.Repeat("a", 80)+`"}`)
	wantCode(t, err, wire.CodeMessageTooLarge)
	// Empty arguments are an empty object.
	if res, err := ht.call("none", ``); err != nil || string(res) != `"ok"` {
		t.Errorf("none() = %s, %v", res, err)
	}
	if n := len(p.Events()); n == 0 {
		t.Fatal("no events")
	}
	for _, e := range p.Events() {
		if e.Event == wire.EventToolCall {
			var d wire.ToolCallData
			eventData(t, e, &d)
			if d.Tool != "none" {
				t.Errorf("a refused call reached the page: %+v", d)
			}
		}
	}
}

func TestCallToolOutsideATurn(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	_, s := h.session(p, true)
	_, err := s.CallTool(context.Background(), "echo", json.RawMessage(`{"x":1}`))
	wantCode(t, err, wire.CodeNoActiveTurn)
}

func TestToolTimeoutAndLateResults(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	info, _ := h.session(p, true)
	_, ht := h.send(p, info.SessionID, "go")

	_, err := ht.call("slow", `{}`)
	wantCode(t, err, wire.CodeToolTimeout)
	call := toolCall(t, p, "slow", 1)
	if call.TimeoutMs != 200 {
		t.Errorf("timeoutMs = %d", call.TimeoutMs)
	}
	if d := settled(t, p, call.ToolRequestID); d.Outcome != "timeout" {
		t.Errorf("settled = %+v", d)
	}
	submit := func(id string) *wire.Error {
		_, err := p.Call(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: id, Result: json.RawMessage(`1`)})
		return err
	}
	reason := func(err *wire.Error) string {
		t.Helper()
		d, _ := wantCode(t, err, wire.CodeToolRequestNotPending).Details.(map[string]any)
		r, _ := d["reason"].(string)
		return r
	}
	if r := reason(submit(call.ToolRequestID)); r != "timeout" {
		t.Errorf("late result: reason %q", r)
	}
	if r := reason(submit("tr_unknown")); r != "unknown" {
		t.Errorf("unknown call: reason %q", r)
	}

	// A duplicate result: the first settles, the second is told why not.
	p.Handle("echo", func(json.RawMessage) any { return 1 })
	if _, err := ht.call("echo", `{"x":1}`); err != nil {
		t.Fatal(err)
	}
	echo := toolCall(t, p, "echo", 1)
	if r := reason(submit(echo.ToolRequestID)); r != "result" {
		t.Errorf("duplicate result: reason %q", r)
	}
	// A result that is not JSON is refused without settling anything.
	_, err = p.Call(wire.MethodSubmitToolResult, map[string]any{"sessionId": info.SessionID, "toolRequestId": "tr_x"})
	wantCode(t, err, wire.CodeInvalidInput)
}

func TestCallerStopsWaiting(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	info, s := h.session(p, true)
	h.send(p, info.SessionID, "go")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, "echo", json.RawMessage(`{"x":1}`))
		done <- err
	}()
	call := toolCall(t, p, "echo", 1)
	cancel()
	wantCode(t, <-done, wire.CodeToolCallCancelled)
	if d := settled(t, p, call.ToolRequestID); d.Outcome != "cancelled" {
		t.Errorf("settled = %+v", d)
	}
	_, err := p.Call(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Result: json.RawMessage(`1`)})
	if d, _ := wantCode(t, err, wire.CodeToolRequestNotPending).Details.(map[string]any); d["reason"] != "cancelled" {
		t.Errorf("reason = %v", d["reason"])
	}
}

func TestPendingCallsAreBounded(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.MaxPendingCalls = 2 })
	p := h.page()
	info, _ := h.session(p, true)
	_, ht := h.send(p, info.SessionID, "go")
	first, second := callAsync(ht, "echo", `{"x":1}`), callAsync(ht, "echo", `{"x":2}`)
	toolCall(t, p, "echo", 2)
	_, err := ht.call("echo", `{"x":3}`)
	wantCode(t, err, wire.CodeTooManyPendingCalls)

	// Answer both, in reverse order; each caller gets its own result.
	var calls []wire.ToolCallData
	for i := 1; i <= 2; i++ {
		calls = append(calls, toolCall(t, p, "echo", i))
	}
	for i := len(calls) - 1; i >= 0; i-- {
		p.MustCall(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: calls[i].ToolRequestID, Result: calls[i].Args})
	}
	if r := awaitCall(t, first); r.err != nil || string(r.result) != `{"x":1}` {
		t.Errorf("first = %s, %v", r.result, r.err)
	}
	if r := awaitCall(t, second); r.err != nil || string(r.result) != `{"x":2}` {
		t.Errorf("second = %s, %v", r.result, r.err)
	}
}

func TestEndSettlesPendingCalls(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	info, _ := h.session(p, true)
	turnID, ht := h.send(p, info.SessionID, "go")
	pending := callAsync(ht, "echo", `{"x":1}`)
	call := toolCall(t, p, "echo", 1)

	p.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: info.SessionID})
	wantCode(t, awaitCall(t, pending).err, wire.CodeSessionEnded)
	if d := settled(t, p, call.ToolRequestID); d.Outcome != "session_ended" {
		t.Errorf("settled = %+v", d)
	}
	if done := p.AwaitDone(turnID, 10*time.Second); done.OK || done.Error == nil || done.Error.Code != wire.CodeSessionEnded {
		t.Errorf("done = %+v", done)
	}
	ended := awaitEvent(t, p, wire.EventEnded, "", nil)
	var d wire.EndedData
	eventData(t, ended, &d)
	if d.Reason != "end_session" {
		t.Errorf("ended = %+v", d)
	}
	// The turn's context is cancelled, so the provider stops.
	select {
	case <-ht.ctx.Done():
	case <-time.After(10 * time.Second):
		t.Error("the turn's context was not cancelled")
	}
}

func TestTurnEndCancelsItsPendingCalls(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	info, _ := h.session(p, true)
	turnID, ht := h.send(p, info.SessionID, "go")
	pending := callAsync(ht, "echo", `{"x":1}`)
	call := toolCall(t, p, "echo", 1)

	ht.finish <- nil // the agent's process ended with a call still open
	wantCode(t, awaitCall(t, pending).err, wire.CodeProviderError)
	if d := settled(t, p, call.ToolRequestID); d.Outcome != "cancelled" {
		t.Errorf("settled = %+v", d)
	}
	p.AwaitDone(turnID, 10*time.Second)
	want := []string{"idle>running", "running>waiting_tool_result", "waiting_tool_result>running", "running>idle"}
	if got := statuses(t, p); !slices.Equal(got, want) {
		t.Errorf("statuses = %v, want %v", got, want)
	}
}

// Many concurrent calls and results: the race detector watches the broker.
func TestConcurrentCalls(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.MaxPendingCalls = 64 })
	p := h.page()
	p.Handle("echo", func(args json.RawMessage) any { return args })
	info, _ := h.session(p, true)
	turnID, ht := h.send(p, info.SessionID, "go")
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := `{"x":` + strings.Repeat("1", 1+i%5) + `}`
			res, err := ht.call("echo", args)
			if err != nil || string(res) != args {
				t.Errorf("call %d = %s, %v", i, res, err)
			}
		}()
	}
	wg.Wait()
	ht.finish <- nil
	if done := p.AwaitDone(turnID, 10*time.Second); !done.OK {
		t.Errorf("done = %+v", done)
	}
	if errs := p.SubmitErrors(); len(errs) != 0 {
		t.Errorf("submit errors: %v", errs)
	}
}
