package provider

import (
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// The permission requests the six agents send (FACTS-acp §2-7, from their
// recordings), answered by policy: the page's tools allowed once, the rest
// rejected, whatever the options' ids; allow_kinds lets a kind through.
func TestACPPermissionPolicy(t *testing.T) {
	kind := func(k acp.ToolKind) *acp.ToolKind { return &k }
	str := func(s string) *string { return &s }
	geminiOpts := []acp.PermissionOption{
		{Kind: acp.PermissionOptionKindAllowAlways, OptionId: "proceed_always_server"},
		{Kind: acp.PermissionOptionKindAllowAlways, OptionId: "proceed_always_tool"},
		{Kind: acp.PermissionOptionKindAllowOnce, OptionId: "proceed_once"},
		{Kind: acp.PermissionOptionKindRejectOnce, OptionId: "cancel"},
	}
	codexOpts := []acp.PermissionOption{
		{Kind: acp.PermissionOptionKindAllowOnce, OptionId: "approved"},
		{Kind: acp.PermissionOptionKindAllowAlways, OptionId: "approved-for-session"},
		{Kind: acp.PermissionOptionKindRejectOnce, OptionId: "cancel"},
	}
	claudeOpts := []acp.PermissionOption{
		{Kind: acp.PermissionOptionKindAllowAlways, OptionId: "allow_always"},
		{Kind: acp.PermissionOptionKindAllowOnce, OptionId: "allow"},
		{Kind: acp.PermissionOptionKindRejectOnce, OptionId: "reject"},
	}
	cases := []struct {
		name      string
		call      acp.ToolCallUpdate
		callTitle string
		opts      []acp.PermissionOption
		allow     []string
		want      string // option id, or "cancelled"
	}{
		{"gemini mcp", acp.ToolCallUpdate{Title: str("update_counter (pedelec MCP Server)"), Kind: kind("other")}, "", geminiOpts, nil, "proceed_once"},
		{"gemini shell", acp.ToolCallUpdate{Title: str("rm -rf x"), Kind: kind("execute")}, "", geminiOpts, nil, "cancel"},
		{"gemini other server", acp.ToolCallUpdate{Title: str("stamp (evil MCP Server)"), Kind: kind("other")}, "", geminiOpts, nil, "cancel"},
		{"opencode mcp", acp.ToolCallUpdate{Title: str("pedelec_update_counter"), Kind: kind("other")}, "", claudeOpts, nil, "allow"},
		{"copilot mcp by its tool_call", acp.ToolCallUpdate{Title: str("update_counter"), Kind: kind("other")}, "pedelec-update_counter", claudeOpts, nil, "allow"},
		{"copilot shell named like us", acp.ToolCallUpdate{Title: str("pedelec-cli tool-call x"), Kind: kind("execute")}, "", claudeOpts, nil, "reject"},
		{"claude mcp", acp.ToolCallUpdate{Title: str("mcp__pedelec__update_counter"), Kind: kind("other")}, "", claudeOpts, nil, "allow"},
		{"claude write", acp.ToolCallUpdate{Title: str("Write written.txt"), Kind: kind("edit")}, "", claudeOpts, nil, "reject"},
		{"claude read allowed by kind", acp.ToolCallUpdate{Title: str("Read x"), Kind: kind("read")}, "", claudeOpts, []string{"read"}, "allow"},
		{"qwen mcp by _meta.toolName", acp.ToolCallUpdate{Title: str(`{"delta":2}`), Meta: map[string]any{"toolName": "mcp__pedelec__update_counter"}}, "", geminiOpts, nil, "proceed_once"},
		{"codex mcp elicitation", acp.ToolCallUpdate{Title: str("Approve MCP tool call"), RawInput: map[string]any{
			"server_name": "pedelec", "request": map[string]any{"_meta": map[string]any{"codex_approval_kind": "mcp_tool_call"}}}}, "", codexOpts, nil, "approved"},
		{"codex apply_patch", acp.ToolCallUpdate{Title: str("Apply patch"), Kind: kind("edit")},
			"", []acp.PermissionOption{{Kind: acp.PermissionOptionKindAllowOnce, OptionId: "approved"}, {Kind: acp.PermissionOptionKindRejectOnce, OptionId: "abort"}}, nil, "abort"},
		{"no reject option", acp.ToolCallUpdate{Title: str("rm"), Kind: kind("execute")}, "",
			[]acp.PermissionOption{{Kind: acp.PermissionOptionKindAllowOnce, OptionId: "ok"}}, nil, "cancelled"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.call.ToolCallId = "id"
			resp, why := acpPermission(acp.RequestPermissionRequest{ToolCall: c.call, Options: c.opts}, "pedelec", c.callTitle, c.allow, false)
			got := "cancelled"
			if resp.Outcome.Selected != nil {
				got = string(resp.Outcome.Selected.OptionId)
			}
			if got != c.want {
				t.Errorf("answer = %s (%s), want %s", got, why, c.want)
			}
		})
	}
	// After session/cancel every request is answered cancelled.
	resp, _ := acpPermission(acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{ToolCallId: "id", Title: str("mcp__pedelec__x")}, Options: claudeOpts}, "pedelec", "", nil, true)
	if resp.Outcome.Cancelled == nil {
		t.Errorf("a request during a cancel was answered %+v, want cancelled", resp.Outcome)
	}
}
