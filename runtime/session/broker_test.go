package session

import (
	"strconv"
	"testing"
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
