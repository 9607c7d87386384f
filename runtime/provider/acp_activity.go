package provider

import (
	"unicode/utf8"

	acp "github.com/coder/acp-go-sdk"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// An ACP agent tells its client about each call of its own tools
// (tool_call, then tool_call_update with a new status) and asks before
// some of them (session/request_permission). Those steps become
// Event.Activity, which Core passes to the page's status and the console
// (wire.EventAgentActivity): what the agent is doing besides calling the
// page's tools. A call of the page's tools is left out: Core's own
// tool_call event already shows it, with its arguments and result.

// What Core keeps of the agent's own words about a call is bounded: an
// agent can send any number of tool_calls, each with a new id and a title
// of megabytes, and each is handled at once, so no queue bound sees them.
// Kept whole, 3000 titles of 256 KiB sent between turns held 1.3 GB of
// Core until the session ended, and in a turn every title went whole into
// Core's log and the page's events.
const (
	// maxActivityText bounds a title, kind or call id as Core keeps, shows
	// and logs it. A page tool's name in any agent's form is far shorter
	// (toolNameWord: 128), so a title cut here was never one.
	maxActivityText = 512
	// maxCallsSeen bounds the calls remembered at once; past it one is
	// forgotten for each new one (a permission request about it is then
	// judged on its own title, as for a call never announced).
	maxCallsSeen = 1024
)

// clipActivity is s cut to maxActivityText bytes at a character boundary,
// marked with an ellipsis; a copy, so the agent's message is not held.
func clipActivity(s string) string {
	if len(s) <= maxActivityText {
		return s
	}
	cut := maxActivityText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// callKey is the key a call is remembered under.
func callKey(id acp.ToolCallId) acp.ToolCallId { return acp.ToolCallId(clipActivity(string(id))) }

// rememberLocked stores seen for id, its words cut short, forgetting
// another call if the map is full, and returns what it stored; c.mu is
// held.
func (c *acpClient) rememberLocked(id acp.ToolCallId, seen acpCallSeen) acpCallSeen {
	k := callKey(id)
	if _, ok := c.calls[k]; !ok && len(c.calls) >= maxCallsSeen {
		for old := range c.calls {
			delete(c.calls, old)
			break
		}
	}
	seen.title, seen.kind = clipActivity(seen.title), clipActivity(seen.kind)
	c.calls[k] = seen
	return seen
}

// acpCallSeen is what the client remembers of one tool call of the turn.
type acpCallSeen struct {
	title, kind string
	page        bool // a call of the page's tools through the MCP server
}

// seeCall remembers a tool_call's title and kind and reports whether
// it is one of the page's tools.
func (c *acpClient) seeCall(tc *acp.SessionUpdateToolCall) acpCallSeen {
	title, kind := tc.Title, tc.Kind
	req := acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{ToolCallId: tc.ToolCallId, Title: &title, Kind: &kind, Meta: tc.Meta, RawInput: tc.RawInput}}
	seen := acpCallSeen{title: tc.Title, kind: string(tc.Kind), page: acpIsPageTool(req, c.server, "")}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rememberLocked(tc.ToolCallId, seen)
}

// seeUpdate is the remembered call a tool_call_update is about, its title
// and kind updated from it (gemini's first sight of a call may be its
// permission request or an update).
func (c *acpClient) seeUpdate(u *acp.SessionToolCallUpdate) acpCallSeen {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen, known := c.calls[callKey(u.ToolCallId)]
	if u.Title != nil && *u.Title != "" {
		seen.title = *u.Title // whole for the check below, cut when stored
	}
	if u.Kind != nil {
		seen.kind = string(*u.Kind)
	}
	if !known || u.Title != nil || u.Kind != nil {
		req := acp.RequestPermissionRequest{ToolCall: acp.ToolCallUpdate{ToolCallId: u.ToolCallId, Title: &seen.title, Meta: u.Meta, RawInput: u.RawInput}}
		if seen.kind != "" {
			k := acp.ToolKind(seen.kind)
			req.ToolCall.Kind = &k
		}
		seen.page = seen.page || acpIsPageTool(req, c.server, "")
	}
	return c.rememberLocked(u.ToolCallId, seen)
}

// remember notes the call a permission request is about (gemini's first
// sight of a call is its request), so its later updates are judged alike.
func (c *acpClient) remember(req acp.RequestPermissionRequest, seen acpCallSeen, page bool) {
	if req.ToolCall.Title != nil && *req.ToolCall.Title != "" && seen.title == "" {
		seen.title = *req.ToolCall.Title
	}
	if req.ToolCall.Kind != nil && seen.kind == "" {
		seen.kind = string(*req.ToolCall.Kind)
	}
	seen.page = seen.page || page
	c.mu.Lock()
	c.rememberLocked(req.ToolCall.ToolCallId, seen)
	c.mu.Unlock()
}

// activity is the Event for one step of call id, none for a page tool.
func activity(id acp.ToolCallId, seen acpCallSeen, status, reason string) (Event, bool) {
	if seen.page {
		return Event{}, false
	}
	return Event{Activity: &wire.AgentActivityData{ToolCallID: string(callKey(id)), Title: clipActivity(seen.title), Kind: clipActivity(seen.kind), Status: status, Reason: reason}}, true
}

// permissionActivity is the Event for Pedelec's answer to req: a page
// tool allowed shows as the page's tool_call instead; anything else (a
// shell command rejected, a kind allow_kinds lets through) shows here.
func permissionActivity(req acp.RequestPermissionRequest, resp acp.RequestPermissionResponse, page bool, seen acpCallSeen, why string) (Event, bool) {
	allowed := false
	if sel := resp.Outcome.Selected; sel != nil {
		for _, o := range req.Options {
			if o.OptionId == sel.OptionId {
				allowed = o.Kind == acp.PermissionOptionKindAllowOnce || o.Kind == acp.PermissionOptionKindAllowAlways
			}
		}
	}
	if page && allowed {
		return Event{}, false
	}
	if req.ToolCall.Title != nil && *req.ToolCall.Title != "" {
		seen.title = *req.ToolCall.Title
	}
	if req.ToolCall.Kind != nil {
		seen.kind = string(*req.ToolCall.Kind)
	}
	status := wire.ActivityRejected
	if allowed {
		status = wire.ActivityAllowed
	}
	seen.page = false
	return activity(req.ToolCall.ToolCallId, seen, status, why)
}
