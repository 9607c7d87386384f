package session

import (
	"context"
	"encoding/json"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/approvals"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/schema"
)

// Call consent (issue 22, item 2). A call of a tool whose definition asks
// for consent (schema.Tool.AsksConsent: needsApproval, destructiveHint or
// consequentialHint) waits for the user between validation and the page:
// the session's status is waiting_approval, the request is in the Book
// (the console, `pedelec approvals`), and `pedelec serve` logs how to
// answer. The page never sees the call until the user approves it, so a
// denied or unanswered call's handler never runs, and nothing the page
// does can approve it (docs/security.md).

// consentWait is one call waiting for the user.
type consentWait struct {
	callID, tool, approvalID string
	ticket                   *approvals.Ticket
	// stop gets why the session stopped waiting (it ended, its turn
	// ended, Core stops): buffered, so failing never blocks.
	stop chan error
}

// consentWaits are a session's calls waiting for consent, oldest first,
// guarded by the session's mu.
type consentWaits []*consentWait

// removeCall takes the call's wait out, if it is there.
func (w *consentWaits) removeCall(callID string) {
	for i, c := range *w {
		if c.callID == callID {
			*w = append((*w)[:i], (*w)[i+1:]...)
			return
		}
	}
}

// failAll stops every wait with err (failPendingLocked's counterpart).
func (w consentWaits) failAll(err error) {
	for _, c := range w {
		select {
		case c.stop <- err:
		default:
		}
	}
}

// waitingOn lists the calls for a waiting_approval status.
func (w consentWaits) waitingOn() []wire.PendingTool {
	out := make([]wire.PendingTool, 0, len(w))
	for _, c := range w {
		out = append(out, wire.PendingTool{ToolRequestID: c.callID, Tool: c.tool, ApprovalID: c.approvalID})
	}
	return out
}

// askConsentLocked asks the user about one validated call of a tool that
// asks for consent, under s.mu, once the broker found the call may run.
// A call the user allowed for the rest of the session is let through at
// once: who allowed it, and no ticket. Otherwise the call waits for the
// user (waiting_approval), and awaitConsent waits on the wait returned.
func (s *Session) askConsentLocked(def schema.Tool, callID string, args json.RawMessage, timeout time.Duration) (by string, wait *consentWait) {
	t := s.table.book.RequestCall(approvals.Call{SessionID: s.id, CallID: callID, Tool: def.Name, Origin: s.origin, Args: args, Timeout: timeout, Provider: s.provider.Name()})
	if t.ID() == "" { // allowed for the rest of this session
		return t.Outcome().By, nil
	}
	wait = &consentWait{callID: callID, tool: def.Name, approvalID: t.ID(), ticket: t, stop: make(chan error, 1)}
	s.consent = append(s.consent, wait)
	s.refreshStatusAndSaveLocked()
	s.log.Info("a tool call waits for your consent: approve it in the console ("+s.table.host.URL()+wire.ConsolePath+") or run `pedelec approve "+
		t.ID()+"` (`pedelec deny "+t.ID()+" --reason ...` refuses it)", "tool", def.Name, "toolRequestId", callID, "approval", t.ID(), "timeout", timeout)
	return "", wait
}

// awaitConsent waits, without s.mu, for the user's decision on the call
// askConsentLocked asked about. It returns who let the call run, or the
// error the agent gets instead: TOOL_CALL_DENIED with the user's reason,
// TOOL_CONSENT_TIMEOUT after the tool's timeout, or why the session
// stopped waiting (it ended, its turn ended, Core stops).
func (s *Session) awaitConsent(ctx context.Context, cw *consentWait) (string, error) {
	t, tool, callID := cw.ticket, cw.tool, cw.callID
	var err error
	select {
	case <-t.Done():
		err = t.Err()
	case <-ctx.Done():
		t.Cancel()
		err = wire.Errorf(wire.CodeToolCallCancelled, "the caller of %s stopped waiting while the call waited for the user's consent", tool).
			WithDetails(map[string]any{"toolRequestId": callID})
	case err = <-cw.stop:
		t.Cancel()
	}
	if err != nil {
		s.mu.Lock()
		s.consent.removeCall(callID)
		s.refreshStatusAndSaveLocked()
		s.mu.Unlock()
		s.log.Info("a tool call did not get consent; it did not run", "tool", tool, "toolRequestId", callID, "err", err)
		return "", err
	}
	// Approved: the broker takes the wait out as the call joins the
	// pending calls, so the status moves on once.
	return t.Outcome().By, nil
}
