package runtime

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A malformed refusal is the page's mistake: INVALID_INPUT names the
// field, and the call stays pending for a good answer. A good refusal
// settles it as TOOL_REFUSED with the page's code.
func TestRefusalIsCheckedThenSettles(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	info, s := h.session(p, true)
	h.send(p, info.SessionID, "go")
	done := make(chan error, 1)
	go func() {
		_, err := s.callTool(context.Background(), "echo", json.RawMessage(`{"x":1}`))
		done <- err
	}()
	call := toolCall(t, p, "echo", 1)
	submit := func(r *wire.Refusal) *wire.Error {
		_, err := p.Call(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Refusal: r})
		return err
	}
	for _, bad := range []wire.Refusal{{Code: "sold out", Message: "m"}, {Code: "", Message: "m"}, {Code: "X", Message: " "}} {
		if err := submit(&bad); err == nil || err.Code != wire.CodeInvalidInput {
			t.Errorf("refusal %+v: %+v", bad, err)
		}
	}
	if err := submit(&wire.Refusal{Code: "NOT_SIGNED_IN", Message: "Sign in first.", Retryable: true}); err != nil {
		t.Fatal(err)
	}
	werr := wantCode(t, <-done, wire.CodeToolRefused)
	if d, _ := werr.Details.(map[string]any); d["reason"] != "NOT_SIGNED_IN" || d["retryable"] != true || d["tool"] != "echo" {
		t.Errorf("details = %+v", werr.Details)
	}
	if d := settled(t, p, call.ToolRequestID); d.Outcome != wire.OutcomeResult {
		t.Errorf("settled = %+v", d)
	}
}
