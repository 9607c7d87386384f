package provider

import (
	"fmt"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// An agent's tool calls, each new and with a long title and id: the client
// remembers at most maxCallsSeen, each cut short, and what it shows is cut
// the same way; a page tool is still told by its whole name.
func TestACPToolCallsKeptBounded(t *testing.T) {
	c := newACPClient("evil", "pedelec", nil)
	var shown []Event
	c.begin(&acpTurn{emit: func(ev Event) { shown = append(shown, ev) }})
	long := strings.Repeat("t", 64<<10)
	for i := range 3 * maxCallsSeen {
		c.SessionUpdate(t.Context(), acp.SessionNotification{SessionId: "s", Update: acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{
			ToolCallId: acp.ToolCallId(fmt.Sprint(i) + long), Title: long, Kind: acp.ToolKindOther}}})
	}
	if n := len(c.calls); n > maxCallsSeen {
		t.Fatalf("%d calls remembered, want at most %d", n, maxCallsSeen)
	}
	for k, seen := range c.calls {
		if len(k) > maxActivityText+4 || len(seen.title) > maxActivityText+4 {
			t.Fatalf("a call remembered whole: id %d bytes, title %d", len(k), len(seen.title))
		}
	}
	for _, ev := range shown {
		if a := ev.Activity; a != nil && (len(a.Title) > maxActivityText+4 || len(a.ToolCallID) > maxActivityText+4) {
			t.Fatalf("an activity shown whole: title %d bytes", len(a.Title))
		}
	}
	// A page tool's call is still one.
	title := "mcp__pedelec__record"
	c.SessionUpdate(t.Context(), acp.SessionNotification{SessionId: "s", Update: acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{ToolCallId: "page-1", Title: title}}})
	if !c.calls["page-1"].page {
		t.Fatalf("the page tool's call is not known as one after the flood")
	}
	if got := clipActivity("é" + strings.Repeat("é", maxActivityText)); !strings.HasSuffix(got, "…") || len(got) > maxActivityText+3 {
		t.Fatalf("clipActivity: %d bytes", len(got))
	}
}
