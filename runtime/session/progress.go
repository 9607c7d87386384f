package session

import (
	"time"

	"github.com/kaoruisaac/pedelec/runtime/callprogress"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// ReportProgress takes a handler's ctx.progress for one pending call
// (issue 26). It only replaces the call's latest report: whoever waits
// for the call (tool-call, an MCP client) and the console read the latest
// at their own bounded rate (callprogress), so a chatty handler costs one
// small frame each and floods nothing. It stores p as call id's latest report, or says why the
// call is not pending (as submit_tool_result does).
func (s *Session) ReportProgress(id string, p wire.Progress) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	call, ok := s.calls.get(id)
	if !ok {
		reason := s.calls.settled.reason(id)
		return wire.Errorf(wire.CodeToolRequestNotPending, "tool request %s: %s", id, notPendingMessage(reason)).
			WithDetails(map[string]any{"toolRequestId": id, "reason": reason})
	}
	call.progress.Put(p)
	if s.notes.CallProgress(id, p, time.Now(), callprogress.Every) {
		s.table.console.Bump()
	}
	return nil
}
