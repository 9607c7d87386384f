package runtime

import (
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// An agent's own tool activity (issue 25: an ACP agent's shell, reads, a
// permission Pedelec rejected) reaches the page as agent_activity events
// of the turn, and the console lists each call once, at its latest
// status, with the reason of a rejection kept.
func TestAgentActivityReachesThePageAndTheConsole(t *testing.T) {
	h := newHarness(t, nil)
	p := h.page()
	info, s := h.session(p, true)
	turnID, ht := h.send(p, info.SessionID, "look around")
	ht.emit(provider.Event{Activity: &wire.AgentActivityData{ToolCallID: "c1", Title: "ls", Kind: "read", Status: "in_progress"}})
	ht.emit(provider.Event{Activity: &wire.AgentActivityData{ToolCallID: "c1", Status: "completed"}})
	ht.emit(provider.Event{Activity: &wire.AgentActivityData{ToolCallID: "c2", Title: "rm -rf /", Kind: "execute", Status: wire.ActivityRejected, Reason: "not a page tool"}})
	ht.emit(provider.Event{Activity: &wire.AgentActivityData{ToolCallID: "c2", Status: "failed"}})

	var first wire.AgentActivityData
	eventData(t, awaitEvent(t, p, wire.EventAgentActivity, turnID, nil), &first)
	if first != (wire.AgentActivityData{ToolCallID: "c1", Title: "ls", Kind: "read", Status: "in_progress"}) {
		t.Errorf("first activity = %+v", first)
	}
	testenvAwait(t, "both calls in the console", func() bool {
		v := s.ConsoleView()
		return len(v.Turns) == 1 && len(v.Turns[0].Activity) == 2 && v.Turns[0].Activity[1].Status == wire.ActivityRejected &&
			v.Turns[0].Activity[0].Status == "completed"
	})
	a := s.ConsoleView().Turns[0].Activity
	if a[0].Title != "ls" || a[0].Kind != "read" || a[1].Title != "rm -rf /" || a[1].Reason != "not a page tool" {
		t.Errorf("console activity = %+v", a)
	}
	status := s.Status()
	if status != wire.StatusRunning {
		t.Errorf("status = %s: activity does not change it", status)
	}
	ht.finish <- nil
}
