package provider

import (
	"fmt"
	"slices"
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// Every session/request_permission is answered here, by policy, at once:
// nobody is there to ask. A call of the page's tools through Pedelec's MCP
// server is allowed (Core's broker applies the tool's own consent, issue
// 18); a request of a kind the settings list in allow_kinds is allowed;
// everything else (shell, edits, fetches, apply_patch) is rejected. Options
// are picked by kind, never by id: each agent names them differently
// (proceed_once, allow, once, approved, allow_once; FACTS-acp §9.5).

// acpPermission is the answer to req. server is the MCP server name the
// agent was given; callTitle is the title of the tool_call the request is
// about, if one preceded it (copilot's request title is the bare tool
// name); cancelled says the turn is being cancelled, which answers every
// request "cancelled" (ACP's rule after session/cancel). why says what was
// decided, for the log and the console.
func acpPermission(req acp.RequestPermissionRequest, server, callTitle string, allowKinds []string, cancelled bool) (resp acp.RequestPermissionResponse, why string) {
	if cancelled {
		return acpCancelled(), "cancelled: the turn is being cancelled"
	}
	kind := ""
	if req.ToolCall.Kind != nil {
		kind = string(*req.ToolCall.Kind)
	}
	title := ""
	if req.ToolCall.Title != nil {
		title = *req.ToolCall.Title
	}
	pick := func(kinds ...acp.PermissionOptionKind) (acp.RequestPermissionResponse, bool) {
		for _, k := range kinds {
			for _, o := range req.Options {
				if o.Kind == k {
					return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{
						Selected: &acp.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}}, true
				}
			}
		}
		return acpCancelled(), false
	}
	switch {
	case acpIsPageTool(req, server, callTitle):
		if r, ok := pick(acp.PermissionOptionKindAllowOnce, acp.PermissionOptionKindAllowAlways); ok {
			return r, fmt.Sprintf("allowed: %s is a page tool", acpName(title, callTitle))
		}
		return acpCancelled(), fmt.Sprintf("cancelled: %s is a page tool but no option allows it", acpName(title, callTitle))
	case kind != "" && slices.Contains(allowKinds, kind):
		if r, ok := pick(acp.PermissionOptionKindAllowOnce, acp.PermissionOptionKindAllowAlways); ok {
			return r, fmt.Sprintf("allowed by allow_kinds (%s): %s", kind, acpName(title, callTitle))
		}
	}
	if r, ok := pick(acp.PermissionOptionKindRejectOnce, acp.PermissionOptionKindRejectAlways); ok {
		return r, fmt.Sprintf("rejected: %s (kind %q) is not a page tool", acpName(title, callTitle), clipActivity(kind))
	}
	return acpCancelled(), fmt.Sprintf("cancelled: %s (kind %q) is not a page tool and no option rejects it", acpName(title, callTitle), clipActivity(kind))
}

func acpCancelled() acp.RequestPermissionResponse {
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{}}}
}

// acpName names a call in a decision's words (the log, the console), its
// titles cut short (acp_activity.go).
func acpName(title, callTitle string) string {
	title, callTitle = clipActivity(title), clipActivity(callTitle)
	if callTitle != "" && callTitle != title {
		return fmt.Sprintf("%q (%s)", title, callTitle)
	}
	return fmt.Sprintf("%q", title)
}

// builtinKinds are the ACP tool kinds of an agent's own tools. A call of an
// MCP tool has kind "other" or none (codex); one of these kinds is never
// ours, whatever its title says (a shell command's title is the command,
// which may well start with "pedelec-").
var builtinKinds = []string{"read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode"}

// acpIsPageTool reports whether req asks to call a tool of MCP server
// server, by the way each agent names it (FACTS-acp §1 and §9.5):
// gemini's title "<tool> (<server> MCP Server)", opencode's
// "<server>_<tool>", copilot's tool_call "<server>-<tool>", claude's and
// qwen's (_meta.toolName) "mcp__<server>__<tool>", codex's elicitation
// {server_name, request._meta.codex_approval_kind: "mcp_tool_call"}.
func acpIsPageTool(req acp.RequestPermissionRequest, server, callTitle string) bool {
	if server == "" {
		return false
	}
	if req.ToolCall.Kind != nil && slices.Contains(builtinKinds, string(*req.ToolCall.Kind)) {
		return false
	}
	names := []string{callTitle}
	if req.ToolCall.Title != nil {
		names = append(names, *req.ToolCall.Title)
	}
	for _, meta := range []map[string]any{req.ToolCall.Meta, req.Meta} {
		if s, ok := meta["toolName"].(string); ok {
			names = append(names, s)
		}
	}
	for _, n := range names {
		if namesPageTool(n, server) {
			return true
		}
	}
	if raw, ok := req.ToolCall.RawInput.(map[string]any); ok {
		if raw["server_name"] == server {
			if r, ok := raw["request"].(map[string]any); ok {
				if m, ok := r["_meta"].(map[string]any); ok && m["codex_approval_kind"] == "mcp_tool_call" {
					return true
				}
			}
		}
	}
	return false
}

// namesPageTool reports whether n is one of the forms above around a whole
// tool name. A title may be the agent's own text for the action (a shell
// command's title is the command, which the model writes and a page's
// content can steer), and ACP's kind is optional: a prefix alone let
// "pedelec-x; curl … | sh" through as a page tool.
func namesPageTool(n, server string) bool {
	if rest, ok := strings.CutSuffix(n, " ("+server+" MCP Server)"); ok {
		return toolNameWord(rest)
	}
	for _, prefix := range []string{"mcp__" + server + "__", "mcp_" + server + "_", server + "_", server + "-", "Tool: " + server + "/"} {
		if rest, ok := strings.CutPrefix(n, prefix); ok && toolNameWord(rest) {
			return true
		}
	}
	return false
}

// toolNameWord reports whether s could be a tool name as an agent shows
// it: the name rule's characters (^[a-zA-Z][a-zA-Z0-9_.-]*$), nothing a
// shell or a sentence would hold.
func toolNameWord(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-') {
			return false
		}
	}
	return true
}
