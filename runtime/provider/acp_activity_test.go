package provider

import (
	"context"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The agent's own tool calls become Event.Activity, one per new status;
// a call of the page's tools (by each agent's way of naming it) does not,
// nor does its permission, while a rejected shell command's does, with
// the reason.
func TestACPClientActivity(t *testing.T) {
	c := newACPClient("gemini", "pedelec", nil)
	var got []wire.AgentActivityData
	c.begin(&acpTurn{emit: func(ev Event) {
		if ev.Activity != nil {
			got = append(got, *ev.Activity)
		}
	}})
	ctx := context.Background()
	update := func(u acp.SessionUpdate) {
		if err := c.SessionUpdate(ctx, acp.SessionNotification{SessionId: "s", Update: u}); err != nil {
			t.Fatal(err)
		}
	}
	status := func(s acp.ToolCallStatus) *acp.ToolCallStatus { return &s }
	str := func(s string) *string { return &s }
	kind := func(k acp.ToolKind) *acp.ToolKind { return &k }

	// opencode-style: tool_call, then updates; one is the page's tool.
	update(acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{ToolCallId: "read1", Title: "ls .", Kind: acp.ToolKindRead, Status: acp.ToolCallStatusPending}})
	update(acp.SessionUpdate{ToolCallUpdate: &acp.SessionToolCallUpdate{ToolCallId: "read1"}}) // content only: no step
	update(acp.SessionUpdate{ToolCallUpdate: &acp.SessionToolCallUpdate{ToolCallId: "read1", Status: status(acp.ToolCallStatusCompleted)}})
	update(acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{ToolCallId: "mcp1", Title: "pedelec_update_counter", Kind: acp.ToolKindOther}})
	update(acp.SessionUpdate{ToolCallUpdate: &acp.SessionToolCallUpdate{ToolCallId: "mcp1", Status: status(acp.ToolCallStatusCompleted)}})

	// gemini-style: the permission request is the first sight of a call.
	opts := []acp.PermissionOption{{Kind: acp.PermissionOptionKindAllowOnce, OptionId: "proceed_once"}, {Kind: acp.PermissionOptionKindRejectOnce, OptionId: "cancel"}}
	if _, err := c.RequestPermission(ctx, acp.RequestPermissionRequest{Options: opts, ToolCall: acp.ToolCallUpdate{ToolCallId: "mcp2", Title: str("update_counter (pedelec MCP Server)"), Kind: kind(acp.ToolKindOther)}}); err != nil {
		t.Fatal(err)
	}
	update(acp.SessionUpdate{ToolCallUpdate: &acp.SessionToolCallUpdate{ToolCallId: "mcp2", Status: status(acp.ToolCallStatusCompleted)}})
	resp, err := c.RequestPermission(ctx, acp.RequestPermissionRequest{Options: opts, ToolCall: acp.ToolCallUpdate{ToolCallId: "sh1", Title: str("touch /tmp/x"), Kind: kind(acp.ToolKindExecute)}})
	if err != nil || resp.Outcome.Selected == nil || resp.Outcome.Selected.OptionId != "cancel" {
		t.Fatalf("shell permission answered %+v, %v", resp.Outcome, err)
	}
	c.end()

	want := []wire.AgentActivityData{
		{ToolCallID: "read1", Title: "ls .", Kind: "read", Status: "pending"},
		{ToolCallID: "read1", Title: "ls .", Kind: "read", Status: "completed"},
		{ToolCallID: "sh1", Title: "touch /tmp/x", Kind: "execute", Status: wire.ActivityRejected},
	}
	if len(got) != len(want) {
		t.Fatalf("activity = %+v, want %+v", got, want)
	}
	for i := range want {
		g := got[i]
		if i == 2 {
			if g.Reason == "" {
				t.Errorf("the rejection has no reason: %+v", g)
			}
			g.Reason = ""
		}
		if g != want[i] {
			t.Errorf("activity[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}
