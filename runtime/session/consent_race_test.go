package session

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Consent is decided once (issue 35, item 2). A call of a tool that asks
// for consent, made while no turn runs, must not reach the page unasked
// when a turn starts between the broker's look at the turn and the call's
// delivery. The hook stops the call right after its consent step, and the
// test starts a turn there: the interleaving is forced, not hoped for.
func TestConsentIsNotSkippedWhenATurnStartsMidCall(t *testing.T) {
	tbl := newTestTable(t)
	page := &recordingPage{}
	ctx := context.Background()
	s, err := tbl.Create(ctx, page, wire.CreateSessionParams{Provider: "open", Skills: json.RawMessage(`{"guidance":"g","tools":[
		{"name":"wipe","description":"Wipes.","argsSchema":{"type":"object","properties":{},"required":[]},"needsApproval":true}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	testHookCallDecided = func(c *Session) {
		if c != s {
			return
		}
		testHookCallDecided = nil
		_, run, err := s.StartTurn("go", false)
		if err != nil {
			t.Error(err)
		} else {
			run()
		}
		close(started)
	}
	t.Cleanup(func() { testHookCallDecided = nil })

	done := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, "wipe", json.RawMessage(`{}`))
		done <- err
	}()
	<-started // a turn runs now
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if sentToolCall(page) && len(tbl.book.State().Pending) == 0 {
			s.End(wire.EndedData{Reason: wire.EndReasonEndSession})
			t.Fatal("the call of a tool that asks for consent reached the page, and nobody was asked")
		}
		select {
		case err := <-done:
			if werr := wire.AsError(err); werr == nil || werr.Code != wire.CodeNoActiveTurn {
				t.Fatalf("a call made between turns got %v, want %s", err, wire.CodeNoActiveTurn)
			}
			if sentToolCall(page) {
				t.Fatal("a refused call reached the page")
			}
			return
		default:
		}
	}
	t.Fatal("the call neither came back nor reached the page")
}

// sentToolCall reports whether the page was sent a tool_call event.
func sentToolCall(p *recordingPage) bool {
	for _, f := range p.sent() {
		if bytes.Contains(f, []byte(`"event":"`+wire.EventToolCall+`"`)) {
			return true
		}
	}
	return false
}
