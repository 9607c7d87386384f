package session

import (
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

func TestTransitionTable(t *testing.T) {
	all := wire.Statuses
	allowed := map[[2]wire.Status]bool{
		{"idle", "running"}: true, {"idle", "ended"}: true, {"idle", "waiting_tool_result"}: true,
		{"running", "waiting_tool_result"}: true, {"running", "idle"}: true, {"running", "error"}: true, {"running", "ended"}: true,
		{"waiting_tool_result", "running"}: true, {"waiting_tool_result", "idle"}: true, {"waiting_tool_result", "error"}: true, {"waiting_tool_result", "ended"}: true,
		{"error", "running"}: true, {"error", "ended"}: true,
		// the agent started at createSession did not start: reported before any turn
		{"idle", "error"}: true,
		// issue 22: a call waits for the user's consent, then goes to the page (or fails)
		{"idle", "waiting_approval"}: true, {"running", "waiting_approval"}: true, {"waiting_tool_result", "waiting_approval"}: true,
		{"waiting_approval", "running"}: true, {"waiting_approval", "waiting_tool_result"}: true, {"waiting_approval", "idle"}: true,
		{"waiting_approval", "error"}: true, {"waiting_approval", "ended"}: true,
	}
	for _, from := range all {
		if _, ok := transitions[from]; !ok {
			t.Errorf("status %s has no row in the table", from)
		}
		for _, to := range all {
			if from == to {
				continue
			}
			if got := canTransition(from, to); got != allowed[[2]wire.Status{from, to}] {
				t.Errorf("%s -> %s: allowed=%v, want %v", from, to, got, !got)
			}
		}
	}
	if checkTransition("ended", "running") == nil {
		t.Error("an ended session must never run again")
	}
}
