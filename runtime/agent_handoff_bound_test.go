package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/agentclient"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// An agent (its own secret is enough) that lets every call be handed over
// and never waits for any must not make Core keep every result until the
// turn ends: each settled, unclaimed call held its whole result (up to a
// frame, 1 MiB) in the session. Core keeps the newest unclaimed ones, as
// many as calls may wait at once, and a --wait for a dropped one says so.
func TestUnclaimedHandedOverResultsAreBounded(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.MaxPendingCalls = 4 })
	p := h.page()
	info, s := h.session(p, true)
	h.send(p, info.SessionID, "go")
	agent := h.agentOf(s)
	ctx := context.Background()
	big := json.RawMessage(`"` + strings.Repeat("r", 64<<10) + `"`)
	var handles []string
	for i := 1; i <= 20; i++ {
		d := pendingOf(t, agent.ToolCallWith(ctx, info.SessionID, "none", json.RawMessage(`{}`), agentclient.CallOptions{Budget: 30 * time.Millisecond}))
		call := toolCall(t, p, "none", i)
		p.MustCall(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Result: big})
		handles = append(handles, d.Handle)
	}
	// The last result settles on its own goroutine: give it a moment.
	kept := 0
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		kept = s.HandoffsKept()
		if kept <= 4 || time.Now().After(deadline) {
			break
		}
	}
	if kept > 4 {
		t.Fatalf("the session keeps %d unclaimed results of 64 KiB; want at most --max-pending-calls (4)", kept)
	}
	res := agent.ToolWait(ctx, info.SessionID, handles[0], agentclient.CallOptions{Budget: time.Second})
	if res.OK || res.Error.Code != wire.CodeToolCallNotWaitable || !strings.Contains(res.Error.Message, "dropped") {
		t.Fatalf("a dropped handle: %+v", res.Error)
	}
	if res := agent.ToolWait(ctx, info.SessionID, handles[19], agentclient.CallOptions{Budget: time.Second}); !res.OK || res.ResultFile == nil || res.ResultFile.SizeBytes != len(big) {
		t.Fatalf("the newest handle must still deliver: %+v", res.Error)
	}
}
