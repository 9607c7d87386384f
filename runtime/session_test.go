package runtime

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

func TestSessionTurnsResumeTheProviderThread(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	info, _ := h.session(p, true)
	if info.Provider != "held" || info.Model != "held-model" || info.Status != wire.StatusIdle || !slices.Equal(info.Tools, []string{"echo", "slow", "none"}) {
		t.Errorf("session info = %+v", info)
	}

	turnID, ht := h.send(p, info.SessionID, "first message")
	if ht.turn.ResumeID != "" || ht.turn.Model != "held-model" || ht.turn.Message != "first message" ||
		!strings.Contains(ht.turn.Prompt, "first message") || !strings.Contains(ht.turn.Prompt, "echo") || len(ht.turn.Prompt) <= len("first message") {
		t.Errorf("first turn = %+v", ht.turn)
	}
	// The agent knows the session by a thread id that is not the session
	// id: it shows in every user's process listing (issue 20).
	if thread := AgentThreadID(info.SessionID); !strings.Contains(ht.turn.Prompt, "--thread-id "+thread+" tool-call") ||
		strings.Contains(ht.turn.Prompt, info.SessionID) || thread == info.SessionID {
		t.Errorf("the first prompt must name the thread %s and never the session id %s:\n%s", thread, info.SessionID, ht.turn.Prompt)
	}
	// Busy while a turn runs.
	_, err := p.Call(wire.MethodSendText, wire.SendTextParams{SessionID: info.SessionID, Text: "again"})
	wantCode(t, err, wire.CodeSessionBusy)

	ht.emit(provider.Event{ProviderThreadID: "thread-1"})
	ht.emit(provider.Event{ChatDelta: "hello "})
	ht.emit(provider.Event{ChatDelta: "pa\x1b]52;c;evil\x07\u202e", Warning: "only logged"})
	ht.emit(provider.Event{ChatDelta: "ge"})
	ht.finish <- nil
	if done := p.AwaitDone(turnID, 10*time.Second); !done.OK {
		t.Fatalf("done = %+v", done)
	}
	// Control and bidirectional formatting characters never reach the page.
	if chat := p.Chat(turnID); chat != "hello pa]52;c;evilge" {
		t.Errorf("chat = %q", chat)
	}

	turn2, ht2 := h.send(p, info.SessionID, "second")
	if ht2.turn.ResumeID != "thread-1" || ht2.turn.Prompt != "second" {
		t.Errorf("second turn: resume %q, prompt %q; want thread-1 and only the message", ht2.turn.ResumeID, ht2.turn.Prompt)
	}
	ht2.finish <- nil
	p.AwaitDone(turn2, 10*time.Second)
}

func TestFailedTurnThenRecovery(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	info, _ := h.session(p, true)
	turnID, ht := h.send(p, info.SessionID, "go")
	ht.finish <- wire.Errorf(wire.CodeProviderError, "model said no")
	done := p.AwaitDone(turnID, 10*time.Second)
	if done.OK || done.Error == nil || done.Error.Code != wire.CodeProviderError || done.Error.Message != "model said no" {
		t.Errorf("done = %+v", done)
	}
	if errs := p.Errors(turnID); len(errs) != 1 || errs[0].Code != wire.CodeProviderError {
		t.Errorf("error events = %v", errs)
	}
	// A failed first turn did not deliver the rules: the next turn gets them again.
	turn2, ht2 := h.send(p, info.SessionID, "retry")
	if ht2.turn.Prompt == "retry" {
		t.Error("the retry after a failed first turn lost the rules")
	}
	ht2.finish <- nil
	p.AwaitDone(turn2, 10*time.Second)
	want := []string{"idle>running", "running>error", "error>running", "running>idle"}
	if got := statuses(t, p); !slices.Equal(got, want) {
		t.Errorf("statuses = %v, want %v", got, want)
	}
}

func TestTurnTimeoutIsProviderTimeout(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.TurnTimeout = 100 * time.Millisecond })
	p := h.page()
	info, _ := h.session(p, true)
	turnID, _ := h.send(p, info.SessionID, "go")
	if done := p.AwaitDone(turnID, 10*time.Second); done.OK || done.Error == nil || done.Error.Code != wire.CodeProviderTimeout {
		t.Errorf("done = %+v", done)
	}
}

func TestPrepareWarmsUpOnce(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	info, _ := h.session(p, true)
	var started wire.TurnStarted
	_ = json.Unmarshal(p.MustCall(wire.MethodPrepare, wire.SessionParams{SessionID: info.SessionID}), &started)
	ht := h.held()
	if !ht.turn.Warmup || !strings.Contains(ht.turn.Prompt, session.PrepareMessage) {
		t.Errorf("warm-up turn = %+v", ht.turn)
	}
	ht.emit(provider.Event{ChatDelta: "ready"})
	ht.finish <- nil
	if done := p.AwaitDone(started.TurnID, 10*time.Second); !done.OK || !done.Prepare {
		t.Errorf("done = %+v", done)
	}
	if chat := p.Chat(started.TurnID); chat != "" {
		t.Errorf("warm-up chat reached the page: %q", chat)
	}
	// Warm already: done at once, no provider turn.
	_ = json.Unmarshal(p.MustCall(wire.MethodPrepare, wire.SessionParams{SessionID: info.SessionID}), &started)
	if done := p.AwaitDone(started.TurnID, 10*time.Second); !done.OK || !done.Prepare {
		t.Errorf("second prepare done = %+v", done)
	}
	select {
	case <-h.turns:
		t.Error("a second warm-up ran a provider turn")
	default:
	}
}

func TestResumeRedeliversPendingCalls(t *testing.T) {
	h := newHarness(t, nil)
	p1 := h.page()
	info, _ := h.session(p1, false)
	_, ht := h.send(p1, info.SessionID, "go")
	pending := callAsync(ht, "echo", `{"x":5}`)
	first := toolCall(t, p1, "echo", 1)
	lastSeq := p1.Events()[len(p1.Events())-1].Seq
	p1.Close()

	p2 := h.page()
	p2.Handle("echo", func(args json.RawMessage) any { return "answered after resume" })
	var resumed wire.SessionInfo
	if err := json.Unmarshal(p2.MustCall(wire.MethodResumeSession, wire.SessionParams{SessionID: info.SessionID}), &resumed); err != nil {
		t.Fatal(err)
	}
	if resumed.Status != wire.StatusWaitingToolResult || resumed.Seq < lastSeq {
		t.Errorf("resumed = %+v (last seq seen %d)", resumed, lastSeq)
	}
	again := toolCall(t, p2, "echo", 1)
	if !again.Redelivered || again.ToolRequestID != first.ToolRequestID {
		t.Errorf("redelivered call = %+v, want %s again", again, first.ToolRequestID)
	}
	if r := awaitCall(t, pending); r.err != nil || string(r.result) != `"answered after resume"` {
		t.Errorf("call = %s, %v", r.result, r.err)
	}
	for _, e := range p2.Events() {
		if e.Seq <= lastSeq {
			t.Errorf("event after resume reuses seq %d (<= %d)", e.Seq, lastSeq)
		}
	}
}

func TestResumeChecks(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	info, _ := h.session(p, true)
	_, err := p.Call(wire.MethodResumeSession, wire.SessionParams{SessionID: "s_nope"})
	wantCode(t, err, wire.CodeThreadNotFound)
	_, err = p.Call(wire.MethodResumeSession, wire.SessionParams{})
	wantCode(t, err, wire.CodeInvalidInput)
	p.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: info.SessionID})
	awaitEvent(t, p, wire.EventEnded, "", nil)
	_, err = p.Call(wire.MethodResumeSession, wire.SessionParams{SessionID: info.SessionID})
	wantCode(t, err, wire.CodeSessionEnded)
}

func TestDisconnectEndsAutoEndSessions(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	_, s := h.session(p, true)
	p.Close()
	awaitEnded(t, s, "disconnect")
}

func TestResumeWindowExpires(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.ResumeWindow = 100 * time.Millisecond })
	p := h.page()
	_, s := h.session(p, false)
	p.Close()
	awaitEnded(t, s, "resume_window_expired")
}

// awaitEnded waits until s has ended, and checks why through a resume.
func awaitEnded(t *testing.T, s *session.Session, reason string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !s.Ended() {
		if time.Now().After(deadline) {
			t.Fatalf("session did not end (%s)", reason)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if s.Info().Status != wire.StatusEnded {
		t.Errorf("status = %s", s.Info().Status)
	}
}

func TestSessionsBelongToTheirOrigin(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.AllowOrigins = []string{"http://localhost:*"} })
	p := h.page()
	info, _ := h.session(p, true)
	other := h.otherOriginPage("http://localhost:5173")
	_, err := other.Call(wire.MethodSendText, wire.SendTextParams{SessionID: info.SessionID, Text: "hi"})
	wantCode(t, err, wire.CodeThreadAccessDenied)
}

func TestUnknownMethodsAndBadFrames(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	_, err := p.Call("fly", nil)
	wantCode(t, err, wire.CodeUnknownMethod)
	_, err = p.Call(wire.MethodSendText, map[string]any{"sessionId": 5})
	if we := wantCode(t, err, wire.CodeInvalidInput); !strings.Contains(we.Message, "params.sessionId") {
		t.Errorf("message = %q", we.Message)
	}
	_, err = p.Call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "nope", Skills: json.RawMessage(harnessSkills)})
	wantCode(t, err, wire.CodeProviderNotFound)
	_, err = p.Call(wire.MethodCreateSession, wire.CreateSessionParams{Provider: "held"})
	wantCode(t, err, wire.CodeInvalidInput)
}
