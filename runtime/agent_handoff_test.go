package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/agentclient"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// agentOf is the client the session's own agent has (its secret).
func (h *harness) agentOf(s *session.Session) *agentclient.Client {
	return &agentclient.Client{BaseURL: h.srv.URL, Secret: s.Secret()}
}

func pendingOf(t *testing.T, res wire.AgentResult) wire.PendingDetails {
	t.Helper()
	if res.OK || res.Error.Code != wire.CodeToolCallPending {
		t.Fatalf("want TOOL_CALL_PENDING, got %s %+v", res.Result, res.Error)
	}
	var d wire.PendingDetails
	raw, _ := json.Marshal(res.Error.Details)
	if err := json.Unmarshal(raw, &d); err != nil || d.Handle == "" || !strings.HasPrefix(d.Next, "pedelec tool-call --thread-id ") || !strings.HasSuffix(d.Next, " --wait "+d.Handle) {
		t.Fatalf("pending details %s: %v", raw, err)
	}
	return d
}

// A call still running when the command's budget is spent is handed over;
// --wait waits for the same call (and may be handed over again), gets its
// result exactly once, and streams the handler's progress meanwhile.
func TestAgentCallHandedOverWaitedOnce(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	info, s := h.session(p, true)
	h.send(p, info.SessionID, "go")
	agent := h.agentOf(s)
	ctx := context.Background()
	short := agentclient.CallOptions{Budget: 150 * time.Millisecond}

	res := agent.ToolCallWith(ctx, info.SessionID, "none", json.RawMessage(`{}`), short)
	first := pendingOf(t, res)
	// The agent named the session by its id; the command Core suggests
	// names it by the agent thread id, since it stands in `ps`.
	if strings.Contains(first.Next, s.ID()) || !strings.Contains(first.Next, AgentThreadID(s.ID())) {
		t.Fatalf("details.next %q names the session id, want the thread id %s", first.Next, AgentThreadID(s.ID()))
	}
	call := toolCall(t, p, "none", 1)
	if first.ToolRequestID != call.ToolRequestID || first.Tool != "none" || first.TimeoutMs != call.TimeoutMs || first.ElapsedMs < 150 {
		t.Fatalf("details %+v for call %+v", first, call)
	}
	if !strings.Contains(res.Error.Message, first.Next) || !strings.Contains(res.Error.Message, "Do not call the tool again") {
		t.Fatalf("message does not say what to do: %s", res.Error.Message)
	}
	// Waiting again within a budget hands over the same handle.
	if again := pendingOf(t, agent.ToolWait(ctx, info.SessionID, first.Handle, short)); again.Handle != first.Handle {
		t.Fatalf("second hand-over has handle %s, want %s", again.Handle, first.Handle)
	}

	// A wait that streams progress hears the handler's reports, then the result.
	var mu sync.Mutex
	var seen []wire.Progress
	waited := make(chan wire.AgentResult, 1)
	go func() {
		waited <- agent.ToolWait(ctx, info.SessionID, first.Handle, agentclient.CallOptions{Progress: func(pr wire.Progress) {
			mu.Lock()
			seen = append(seen, pr)
			mu.Unlock()
		}})
	}()
	deadline := time.Now().Add(5 * time.Second)
	for n := 1; ; n++ {
		p.MustCall(wire.MethodToolProgress, wire.ToolProgressParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Progress: float64(n), Total: 100, Message: "step"})
		mu.Lock()
		got := len(seen)
		mu.Unlock()
		if got > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no progress reached the waiting agent")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The console shows the pending call's latest report.
	shown := false
	for _, c := range s.ConsoleView().Calls {
		if c.ID == call.ToolRequestID {
			shown = c.Status == "pending" && c.Progress != nil && c.Progress.Total == 100 && c.Progress.Message == "step"
		}
	}
	if !shown {
		t.Fatalf("the console does not show the call's progress: %+v", s.ConsoleView().Calls)
	}
	p.MustCall(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Result: json.RawMessage(`{"done":true}`)})
	got := <-waited
	if !got.OK || string(got.Result) != `{"done":true}` {
		t.Fatalf("wait got %s %+v", got.Result, got.Error)
	}
	mu.Lock()
	if seen[0].Total != 100 || seen[0].Message != "step" {
		t.Fatalf("progress %+v", seen)
	}
	mu.Unlock()

	// Exactly once: the handle is spent.
	again := agent.ToolWait(ctx, info.SessionID, first.Handle, short)
	if again.OK || again.Error.Code != wire.CodeToolCallNotWaitable || !strings.Contains(again.Error.Message, "already delivered") {
		t.Fatalf("second delivery: %+v", again.Error)
	}
	// Progress for a settled call says why it is not pending.
	if _, err := p.Call(wire.MethodToolProgress, wire.ToolProgressParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Progress: 1}); err == nil || err.Code != wire.CodeToolRequestNotPending {
		t.Fatalf("late progress: %v", err)
	}
}

// Handles are the session's: another session's agent cannot wait on one,
// nor can a guessed handle; a turn that ends takes its handles with it.
func TestAgentCallHandleBoundToSessionAndTurn(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	info, s := h.session(p, true)
	otherInfo, other := h.session(p, true)
	turnID, held := h.send(p, info.SessionID, "go")
	ctx := context.Background()
	short := agentclient.CallOptions{Budget: 100 * time.Millisecond}
	d := pendingOf(t, h.agentOf(s).ToolCallWith(ctx, info.SessionID, "none", json.RawMessage(`{}`), short))

	// The other session's agent, with its own secret and session: unknown.
	res := h.agentOf(other).ToolWait(ctx, otherInfo.SessionID, d.Handle, short)
	if res.OK || res.Error.Code != wire.CodeToolCallNotWaitable || !strings.Contains(res.Error.Message, "no such call") {
		t.Fatalf("other session: %+v", res.Error)
	}
	// Its secret with this session's id: refused outright.
	if res := h.agentOf(other).ToolWait(ctx, info.SessionID, d.Handle, short); res.OK || res.Error.Code != wire.CodeThreadAccessDenied {
		t.Fatalf("wrong secret: %+v", res.Error)
	}

	held.finish <- nil
	p.AwaitDone(turnID, 10*time.Second)
	res = h.agentOf(s).ToolWait(ctx, info.SessionID, d.Handle, short)
	if res.OK || res.Error.Code != wire.CodeToolCallNotWaitable {
		t.Fatalf("after the turn: %+v", res.Error)
	}
	if reason := res.Error.Details.(map[string]any)["reason"]; reason != "turn_ended" {
		t.Fatalf("reason %v", reason)
	}
}

// A handler's progress is checked: each bad field is named.
func TestToolProgressRejectsBadReports(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	info, _ := h.session(p, true)
	for _, bad := range []struct {
		params wire.ToolProgressParams
		want   string
	}{
		{wire.ToolProgressParams{SessionID: info.SessionID}, "toolRequestId is required"},
		{wire.ToolProgressParams{SessionID: info.SessionID, ToolRequestID: "tr_x", Progress: -1}, "params.progress"},
		{wire.ToolProgressParams{SessionID: info.SessionID, ToolRequestID: "tr_x", Total: -2}, "params.total"},
		{wire.ToolProgressParams{SessionID: info.SessionID, ToolRequestID: "tr_x", Message: strings.Repeat("m", 1000+1)}, "params.message"},
	} {
		_, err := p.Call(wire.MethodToolProgress, bad.params)
		if err == nil || err.Code != wire.CodeInvalidInput || !strings.Contains(err.Message, bad.want) {
			t.Errorf("%+v: %v", bad.params, err)
		}
	}
	_, err := p.Call(wire.MethodToolProgress, wire.ToolProgressParams{SessionID: info.SessionID, ToolRequestID: "tr_nope", Progress: 1})
	if err == nil || err.Code != wire.CodeToolRequestNotPending {
		t.Fatalf("unknown call: %v", err)
	}
}
