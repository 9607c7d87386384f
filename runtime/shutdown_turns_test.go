package runtime

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A page whose turn Core cut off while stopping (SIGTERM) sends its next
// message at once, over the socket that stays open until Core exits. A
// turn started then outlived Core's record of it: Shutdown had already
// stopped recording, so the page held a turn id whose end neither this
// Core nor the restarted one ever reported, and waited for it forever
// (the soak of issue 20: "hung 10", the page connected and resumed). The
// page must be refused instead, or, if given a turn, hear how it ended.
func TestTurnAskedForWhileCoreStopsIsRefusedNotLost(t *testing.T) {
	state := t.TempDir()
	turns := make(chan *heldTurn, 4)
	held := func(o *Options) {
		o.Providers = provider.NewRegistry("", heldProvider{turns: turns})
	}
	c1, srv1, _ := runCore(t, state, "", held)
	p := wspage.Dial(t, wsURL(srv1), srv1.URL)
	keep := false
	info := p.CreateSession(wire.CreateSessionParams{Provider: "held", Skills: json.RawMessage(harnessSkills), AutoEndOnDisconnect: &keep})

	c1.Shutdown(context.Background())
	raw, werr := p.Call(wire.MethodSendText, wire.SendTextParams{SessionID: info.SessionID, Text: "next"})
	_, werr2 := p.Call(wire.MethodPrepare, wire.SessionParams{SessionID: info.SessionID})

	if werr == nil {
		// Given a turn: its end must reach the page after the restart.
		var started wire.TurnStarted
		json.Unmarshal(raw, &started)
		last := int64(0)
		for _, e := range p.Events() {
			last = max(last, e.Seq)
		}
		srv1.Close()
		p.Close()
		_, srv2, _ := runCore(t, state, srv1.Listener.Addr().String(), held)
		p2 := wspage.Dial(t, wsURL(srv2), srv2.URL)
		p2.MustCall(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: info.SessionID, LastSeq: &last})
		p2.AwaitDone(started.TurnID, 3*time.Second)
		t.Fatalf("send_text while Core stops started turn %s; want it refused", started.TurnID)
	}
	for _, err := range []*wire.Error{werr, werr2} {
		we := wantCode(t, err, wire.CodeTurnInterrupted)
		if d, _ := we.Details.(map[string]any); d["reason"] != "shutdown" {
			t.Errorf("refusal details = %v, want reason shutdown", we.Details)
		}
	}
	select {
	case ht := <-turns:
		t.Fatalf("the provider was asked for turn %s after Core stopped", ht.turn.TurnID)
	default:
	}
}
