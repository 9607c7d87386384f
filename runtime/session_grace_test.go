package runtime

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/provider"

	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A page that follows its session across a navigation (the SDK's
// followPage) creates it with autoEndOnDisconnect and a disconnect grace:
// the next page resumes it within the grace and gets the call in flight
// again; a page that never comes back (a closed tab) ends it as a
// disconnect once the grace passed.
func TestDisconnectGraceKeepsTheSessionForTheNextPage(t *testing.T) {
	h := newHarness(t, nil)
	p1 := h.page()
	autoEnd := true
	info := p1.CreateSession(wire.CreateSessionParams{Provider: "held", Skills: json.RawMessage(harnessSkills), AutoEndOnDisconnect: &autoEnd, DisconnectGraceMs: 60_000})
	if !info.AutoEndOnDisconnect || info.DisconnectGraceMs != 60_000 {
		t.Fatalf("created %+v", info)
	}
	_, ht := h.send(p1, info.SessionID, "go")
	pending := callAsync(ht, "echo", `{"x":1}`)
	first := toolCall(t, p1, "echo", 1)
	p1.Close() // the page navigates while its handler runs

	p2 := h.page()
	p2.Handle("echo", func(json.RawMessage) any { return "answered by the next page" })
	p2.MustCall(wire.MethodResumeSession, wire.SessionParams{SessionID: info.SessionID})
	if again := toolCall(t, p2, "echo", 1); again.ToolRequestID != first.ToolRequestID || !again.Redelivered {
		t.Errorf("redelivered %+v, want %s", again, first.ToolRequestID)
	}
	if r := awaitCall(t, pending); r.err != nil || string(r.result) != `"answered by the next page"` {
		t.Errorf("call = %s, %v", r.result, r.err)
	}
}

func TestDisconnectGraceEndsAClosedTabsSession(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	autoEnd := true
	info := p.CreateSession(wire.CreateSessionParams{Provider: "held", Skills: json.RawMessage(harnessSkills), AutoEndOnDisconnect: &autoEnd, DisconnectGraceMs: 200})
	s, err := h.core.session(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	awaitEnded(t, s, "disconnect")
}

func TestDisconnectGraceChecks(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	no, yes := false, true
	for _, params := range []wire.CreateSessionParams{
		{AutoEndOnDisconnect: &yes, DisconnectGraceMs: -1},
		{AutoEndOnDisconnect: &yes, DisconnectGraceMs: session.MaxDisconnectGrace.Milliseconds() + 1},
		{AutoEndOnDisconnect: &no, DisconnectGraceMs: 1000},
	} {
		params.Provider, params.Skills = "held", json.RawMessage(harnessSkills)
		_, err := p.Call(wire.MethodCreateSession, params)
		wantCode(t, err, wire.CodeInvalidInput)
	}
}

// The grace is part of the durable record: after Core restarts, a
// following page's session waits its grace (not the resume window) for
// the page to come back, and keeps it for the navigations after that.
func TestDisconnectGraceSurvivesARestart(t *testing.T) {
	state := t.TempDir()
	long := func(o *Options) { o.ResumeWindow = time.Hour }
	_, srv1, stop1 := runCore(t, state, "", long)
	p := wspage.Dial(t, wsURL(srv1), srv1.URL)
	autoEnd := true
	kept := p.CreateSession(wire.CreateSessionParams{Provider: "held", Skills: json.RawMessage(harnessSkills), AutoEndOnDisconnect: &autoEnd, DisconnectGraceMs: 60_000})
	closed := p.CreateSession(wire.CreateSessionParams{Provider: "held", Skills: json.RawMessage(harnessSkills), AutoEndOnDisconnect: &autoEnd, DisconnectGraceMs: 200})
	stop1()
	p.Close()

	c2, srv2, _ := runCore(t, state, srv1.Listener.Addr().String(), long)
	s, err := c2.session(kept.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if info := s.Info(); !info.AutoEndOnDisconnect || info.DisconnectGraceMs != 60_000 {
		t.Fatalf("restored %+v, want the grace kept", info)
	}
	// A tab closed while Core was down: its grace passes, it ends as a
	// disconnect (the resume window is an hour).
	gone, err := c2.session(closed.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	awaitEnded(t, gone, "the grace after the restart")

	// The page reconnects, then navigates: the next page resumes it.
	p2 := wspage.Dial(t, wsURL(srv2), srv2.URL)
	p2.MustCall(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: kept.SessionID})
	p2.Close()
	p3 := wspage.Dial(t, wsURL(srv2), srv2.URL)
	if _, werr := p3.Call(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: kept.SessionID}); werr != nil {
		t.Fatalf("the next page's resume after the restart: %v", werr)
	}
	if s.Ended() {
		t.Fatal("the session ended at the navigation after the restart")
	}
}

// The next page of a following session resumes with the last seq the
// previous page handled and redeliver: it gets the chat the agent wrote
// while no page was loaded, from the log, and the call the previous page
// was running, once, after it; a call made while no page was loaded comes
// in the replay only.
func TestNextPageGetsWhatHappenedWhileNoPageWasLoaded(t *testing.T) {
	h := newHarness(t, nil)
	p1 := h.page()
	autoEnd := true
	info := p1.CreateSession(wire.CreateSessionParams{Provider: "held", Skills: json.RawMessage(harnessSkills), AutoEndOnDisconnect: &autoEnd, DisconnectGraceMs: 60_000})
	turnID, ht := h.send(p1, info.SessionID, "go")
	running := callAsync(ht, "echo", `{"x":1}`)
	first := toolCall(t, p1, "echo", 1)
	var lastSeq int64
	for _, e := range p1.Events() {
		lastSeq = max(lastSeq, e.Seq)
	}
	p1.Close() // the page navigates while its handler runs
	s, err := h.core.session(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	for s.Attached() != nil {
		time.Sleep(5 * time.Millisecond)
	}
	ht.emit(provider.Event{ChatDelta: "written while no page was loaded\n"})
	gap := callAsync(ht, "echo", `{"x":2}`)
	for !s.Pending(first.ToolRequestID) || s.Info().Seq <= lastSeq+1 {
		time.Sleep(5 * time.Millisecond)
	}

	p2 := h.page()
	p2.Handle("echo", func(args json.RawMessage) any { return map[string]any{"next page": json.RawMessage(args)} })
	p2.MustCall(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: info.SessionID, LastSeq: &lastSeq, Redeliver: true})
	if r := awaitCall(t, running); r.err != nil || string(r.result) != `{"next page":{"x":1}}` {
		t.Errorf("the call the previous page ran = %s, %v", r.result, r.err)
	}
	if r := awaitCall(t, gap); r.err != nil || string(r.result) != `{"next page":{"x":2}}` {
		t.Errorf("the call made while no page was loaded = %s, %v", r.result, r.err)
	}
	ht.finish <- nil
	p2.AwaitDone(turnID, 10*time.Second)
	if chat := p2.Chat(turnID); chat != "written while no page was loaded\n" {
		t.Errorf("the next page's chat = %q", chat)
	}
	calls := map[string]int{}
	for _, e := range p2.Events() {
		if e.Event == wire.EventToolCall {
			var d wire.ToolCallData
			eventData(t, e, &d)
			calls[d.ToolRequestID]++
			if d.ToolRequestID == first.ToolRequestID && !d.Redelivered {
				t.Errorf("the previous page's call came without redelivered")
			}
		}
	}
	if len(calls) != 2 || calls[first.ToolRequestID] != 1 {
		t.Errorf("tool_calls on the next page: %v, want each once", calls)
	}
}

// A page may resume past the seq Core knows (events a crashed Core never
// wrote down), but not without bound: a lastSeq near the int64 maximum
// would make the session's next event number wrap negative.
func TestResumeRefusesALastSeqFarAheadOfTheSession(t *testing.T) {
	h := newHarness(t, nil)
	p1 := h.page()
	autoEnd := true
	info := p1.CreateSession(wire.CreateSessionParams{Provider: "held", Skills: json.RawMessage(harnessSkills), AutoEndOnDisconnect: &autoEnd, DisconnectGraceMs: 60_000})
	p1.Close()
	p2 := h.page()
	huge := int64(math.MaxInt64)
	_, werr := p2.Call(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: info.SessionID, LastSeq: &huge, Redeliver: true})
	if werr == nil || werr.Code != wire.CodeInvalidInput || !strings.Contains(werr.Message, "lastSeq") {
		t.Fatalf("resume with lastSeq %d = %v, want INVALID_INPUT naming lastSeq", huge, werr)
	}
	s, err := h.core.session(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if seq := s.Info().Seq; seq < 0 || seq > 1000 {
		t.Fatalf("the session's seq after the refused resume = %d", seq)
	}
	// A lastSeq a little ahead is still taken: the seq goes on after it.
	ahead := s.Info().Seq + 5
	p2.MustCall(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: info.SessionID, LastSeq: &ahead, Redeliver: true})
	if seq := s.Info().Seq; seq < ahead {
		t.Fatalf("the session's seq after resuming at %d = %d", ahead, seq)
	}
}
