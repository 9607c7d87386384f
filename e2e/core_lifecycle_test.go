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

// awaitPendingCall starts a turn whose call the page does not answer, and
// returns once the call is pending.
func awaitPendingCall(t *testing.T, p *wspage.Page, sessionID string) (turnID string, call wire.ToolCallData) {
	t.Helper()
	turnID = p.SendText(sessionID, `call update_counter {"delta": 7}`)
	ev := p.AwaitEvent(10*time.Second, "tool_call", func(e wire.Event) bool { return e.Event == wire.EventToolCall })
	json.Unmarshal(ev.Data.(json.RawMessage), &call)
	return turnID, call
}

// A second message while a turn runs is SESSION_BUSY; after the end of the
// session everything is SESSION_ENDED and nothing is left behind.
func TestBusyThenEndMidTurn(t *testing.T) {
	srv := testenv.Serve(t, nil)
	p := wspage.Dial(t, srv.WSURL, "")
	info := scriptSession(t, p, true)
	turn, _ := awaitPendingCall(t, p, info.SessionID)
	if len(testenv.ProcessesWithEnv(wire.EnvThreadID+"="+info.SessionID)) == 0 {
		t.Fatal("no provider process carries the session's thread id while its turn runs")
	}
	if _, err := p.Call(wire.MethodSendText, wire.SendTextParams{SessionID: info.SessionID, Text: "hello"}); err == nil || err.Code != wire.CodeSessionBusy {
		t.Fatalf("send_text during a turn: %+v", err)
	}
	if _, err := p.Call(wire.MethodPrepare, wire.SessionParams{SessionID: info.SessionID}); err == nil || err.Code != wire.CodeSessionBusy {
		t.Fatalf("prepare during a turn: %+v", err)
	}
	p.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: info.SessionID})
	done := p.AwaitDone(turn, 5*time.Second)
	if done.OK || done.Error.Code != wire.CodeSessionEnded {
		t.Fatalf("done after end: %+v", done)
	}
	p.AwaitEvent(5*time.Second, "ended", func(e wire.Event) bool { return e.Event == wire.EventEnded })
	p.AwaitEvent(5*time.Second, "settled session_ended", func(e wire.Event) bool {
		return e.Event == wire.EventToolCallSettled && strings.Contains(string(e.Data.(json.RawMessage)), "session_ended")
	})
	noSessionLeftovers(t, srv, info.SessionID)
	if _, err := p.Call(wire.MethodSendText, wire.SendTextParams{SessionID: info.SessionID, Text: "again"}); err == nil || err.Code != wire.CodeSessionEnded {
		t.Fatalf("send_text after end: %+v", err)
	}
}

// autoEndOnDisconnect (default): closing the page ends the session, fails
// the pending call and kills the provider.
func TestDisconnectEndsSession(t *testing.T) {
	srv := testenv.Serve(t, nil)
	p := wspage.Dial(t, srv.WSURL, "")
	info := scriptSession(t, p, true)
	awaitPendingCall(t, p, info.SessionID)
	p.Close()
	noSessionLeftovers(t, srv, info.SessionID)
	p2 := wspage.Dial(t, srv.WSURL, "")
	if _, err := p2.Call(wire.MethodResumeSession, wire.SessionParams{SessionID: info.SessionID}); err == nil || err.Code != wire.CodeSessionEnded {
		t.Fatalf("resume after auto end: %+v", err)
	}
	testenv.Await(t, 5*time.Second, "an end-by-disconnect log line", func() bool { return strings.Contains(srv.Logs(), "reason=disconnect") })
}

// autoEndOnDisconnect false: the session survives, and the pending call is
// delivered again to the page that resumes it, within its deadline.
func TestDisconnectKeepsSessionAndRedelivers(t *testing.T) {
	srv := testenv.Serve(t, nil)
	p := wspage.Dial(t, srv.WSURL, "")
	info := scriptSession(t, p, false)
	turn, call := awaitPendingCall(t, p, info.SessionID)
	lastSeq := p.Events()[len(p.Events())-1].Seq
	p.Close()
	time.Sleep(200 * time.Millisecond)
	if len(testenv.ProcessesWithEnv(wire.EnvThreadID+"="+info.SessionID)) == 0 {
		t.Fatal("the provider died with the page although autoEndOnDisconnect is false")
	}

	p2 := wspage.Dial(t, srv.WSURL, "")
	var resumed wire.SessionInfo
	json.Unmarshal(p2.MustCall(wire.MethodResumeSession, wire.SessionParams{SessionID: info.SessionID}), &resumed)
	if resumed.Status != wire.StatusWaitingToolResult || resumed.Seq < lastSeq {
		t.Fatalf("resumed = %+v (last seq seen %d)", resumed, lastSeq)
	}
	ev := p2.AwaitEvent(5*time.Second, "re-delivered tool_call", func(e wire.Event) bool { return e.Event == wire.EventToolCall })
	var again wire.ToolCallData
	json.Unmarshal(ev.Data.(json.RawMessage), &again)
	if again.ToolRequestID != call.ToolRequestID || !again.Redelivered || ev.Seq <= lastSeq || again.Deadline != call.Deadline {
		t.Fatalf("re-delivery = %+v seq %d, original %+v", again, ev.Seq, call)
	}
	p2.MustCall(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Result: json.RawMessage(`{"value":7}`)})
	if d := p2.AwaitDone(turn, 10*time.Second); !d.OK || !strings.Contains(p2.Chat(turn), `{"value":7}`) {
		t.Fatalf("turn after resume: %+v chat %q", d, p2.Chat(turn))
	}
	p2.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: info.SessionID})
	noSessionLeftovers(t, srv, info.SessionID)
}

// prepare warms the provider once: its chat is not delivered, and the next
// turn sends only the user's message.
func TestPrepare(t *testing.T) {
	srv := testenv.Serve(t, nil)
	p := wspage.Dial(t, srv.WSURL, "")
	info := scriptSession(t, p, true)
	var started wire.TurnStarted
	json.Unmarshal(p.MustCall(wire.MethodPrepare, wire.SessionParams{SessionID: info.SessionID}), &started)
	d := p.AwaitDone(started.TurnID, 10*time.Second)
	if !d.OK || !d.Prepare {
		t.Fatalf("prepare done = %+v", d)
	}
	if chat := p.Chat(started.TurnID); chat != "" {
		t.Fatalf("prepare delivered chat %q", chat)
	}
	// A second prepare is a no-op that still completes.
	json.Unmarshal(p.MustCall(wire.MethodPrepare, wire.SessionParams{SessionID: info.SessionID}), &started)
	if d := p.AwaitDone(started.TurnID, 5*time.Second); !d.OK || !d.Prepare {
		t.Fatalf("second prepare = %+v", d)
	}
	turn := p.SendText(info.SessionID, "say hi")
	if p.AwaitDone(turn, 10*time.Second); p.Chat(turn) != "hi\n" {
		t.Fatalf("chat after prepare = %q", p.Chat(turn))
	}
}

// A disconnected session that nobody resumes ends after --resume-window,
// taking its provider process and work directory with it.
func TestResumeWindowExpires(t *testing.T) {
	srv := testenv.Serve(t, []string{"--resume-window", "500ms"})
	p := wspage.Dial(t, srv.WSURL, "")
	info := scriptSession(t, p, false)
	awaitPendingCall(t, p, info.SessionID)
	p.Close()
	noSessionLeftovers(t, srv, info.SessionID)
	testenv.Await(t, 5*time.Second, "the expiry log line", func() bool { return strings.Contains(srv.Logs(), "resume_window_expired") })
}
