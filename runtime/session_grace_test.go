package runtime

import (
	"encoding/json"
	"testing"

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
