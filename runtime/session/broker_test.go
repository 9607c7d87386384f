package session

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

func TestPendingCallsKeepOrderAndRememberHowCallsSettled(t *testing.T) {
	var p pendingCalls
	a, b, c := &pendingCall{id: "a", tool: "ta"}, &pendingCall{id: "b", tool: "tb"}, &pendingCall{id: "c", tool: "tc"}
	p.add(a)
	p.add(b)
	p.add(c)
	if !p.remove(b, "timeout") || p.remove(b, "result") {
		t.Fatal("a call settles exactly once")
	}
	if got := p.waitingOn(); len(got) != 2 || got[0].ToolRequestID != "a" || got[1].ToolRequestID != "c" || p.len() != 2 {
		t.Errorf("waitingOn = %+v", got)
	}
	if _, ok := p.get("b"); ok || p.settled.reason("b") != "timeout" || p.settled.reason("zz") != "unknown" {
		t.Errorf("settled: b=%q", p.settled.reason("b"))
	}
	// The log is bounded: the oldest reasons are forgotten.
	for i := range 600 {
		p.settled.add("x"+strconv.Itoa(i), "result")
	}
	if p.settled.reason("b") != "unknown" || len(p.settled.order) > 512 {
		t.Errorf("settled log keeps %d entries; b=%q", len(p.settled.order), p.settled.reason("b"))
	}
}

// slowPage is a recordingPage that takes its time over each frame, as a
// busy page connection's queue does: what the session appends to the
// journal before a frame is queued is then visibly later than the frame.
type slowPage struct{ recordingPage }

func (p *slowPage) Send(frame []byte) {
	time.Sleep(20 * time.Millisecond)
	p.recordingPage.Send(frame)
}

// The caller learns how its call settled only after the settle is in the
// journal: the tool_call_settled event and the status change back (each
// appended before it is queued for the page; the record without the call
// is appended after the status change's event). Told first, it answered its client while the page's connection
// still appended them; Core killed in between restarted with the call
// pending and settled it again, as interrupted.
func TestCallerHearsAfterTheSettleIsJournaled(t *testing.T) {
	tbl := newTestTable(t)
	page := &slowPage{}
	s, err := tbl.Create(context.Background(), page, wire.CreateSessionParams{Provider: "open", Skills: json.RawMessage(`{"guidance":"g","tools":[
		{"name":"read","description":"Reads.","argsSchema":{"type":"object","properties":{},"required":[]}}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	_, run, err := s.StartTurn("go", false)
	if err != nil {
		t.Fatal(err)
	}
	run()
	// What the page had been sent the moment the caller had its answer.
	type answered struct {
		out    wire.AgentResult
		frames [][]byte
	}
	done := make(chan answered, 1)
	go func() {
		out := s.Call(context.Background(), CallRequest{Tool: "read", Args: json.RawMessage(`{}`), For: ForAgent})
		done <- answered{out, page.sent()}
	}()
	var id string
	for deadline := time.Now().Add(10 * time.Second); id == "" && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		for _, f := range page.sent() {
			if m := toolRequestIDIn.FindSubmatch(f); m != nil && bytes.Contains(f, []byte(`"event":"`+wire.EventToolCall+`"`)) {
				id = string(m[1])
			}
		}
	}
	if id == "" {
		t.Fatal("the page never got the call")
	}
	if err := s.SubmitResult(wire.SubmitToolResultParams{ToolRequestID: id, Result: json.RawMessage(`1`)}); err != nil {
		t.Fatal(err)
	}
	got := <-done
	if !got.out.OK {
		t.Fatalf("call: %+v", got.out)
	}
	last := string(got.frames[len(got.frames)-1])
	if !strings.Contains(last, `"status":"running"`) || !strings.Contains(string(got.frames[len(got.frames)-2]), wire.EventToolCallSettled) {
		t.Fatalf("the caller had its answer before the settle was journaled; the page had then been sent %d frames, the last %s", len(got.frames), last)
	}
}
