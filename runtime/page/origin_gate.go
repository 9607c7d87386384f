package page

import (
	"context"

	"github.com/kaoruisaac/pedelec/runtime/approvals"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The origin gate (issue 22). A page whose origin is neither Core's own
// nor matched by --allow-origin (pre-approval, for scripts and CI) nor
// approved by the user may still open the WebSocket, but may only ask
// about approval: get_approval_status, request_approval, await_approval.
// Its create_session and resume_session wait for the user's decision
// (approvals.Book), and every other request is
// CREATE_SESSION_NOT_APPROVED. Revoking an origin ends its live sessions.

// originApproved: the connection's origin may use Core now. Asked per
// request, so a revocation applies to open connections at once.
func (pc *conn) originApproved() bool {
	return pc.preApproved || pc.srv.Book.Approved(pc.origin)
}

// gateRequest runs before dispatch. It reports true when it took the
// request over (answered it, or will answer it from its own goroutine).
func (pc *conn) gateRequest(ctx context.Context, req wire.Request, index int) bool {
	switch req.Method {
	case wire.MethodGetApprovalStatus:
		pc.respond(req.ID, wire.OriginApprovalStatus{Approved: pc.originApproved(), Origin: pc.origin}, nil)
		return true
	case wire.MethodRequestApproval:
		st, t, err := pc.requestApproval(true)
		if t != nil {
			pc.holdApproval(t)
		}
		pc.respond(req.ID, st, err)
		return true
	case wire.MethodAwaitApproval:
		go pc.awaitApproval(ctx, req, nil)
		return true
	}
	if pc.originApproved() {
		return false
	}
	switch req.Method {
	case wire.MethodCreateSession, wire.MethodResumeSession:
		// Waits for the user off the read loop, then runs as if approved.
		go pc.awaitApproval(ctx, req, methods[req.Method])
		return true
	}
	pc.respond(req.ID, nil, atIndex(wire.Errorf(wire.CodeCreateSessionNotApproved,
		"origin %s is not approved to use this Pedelec Core: createSession or resumeSession asks the user first", pc.origin).
		WithDetails(map[string]any{"origin": pc.origin}), index))
	return true
}

// requestApproval asks the user for this connection's origin (joining the
// origin's pending request) and logs how to answer from the terminal.
func (pc *conn) requestApproval(logIt bool) (wire.OriginApprovalStatus, *approvals.Ticket, error) {
	if pc.originApproved() {
		return wire.OriginApprovalStatus{Approved: true, Origin: pc.origin}, nil, nil
	}
	t, err := pc.srv.Book.RequestOrigin(pc.origin)
	if we := wire.AsError(err); we != nil && (we.Code == wire.CodeCreateSessionNotApproved || we.Code == wire.CodeApprovalRejected) {
		return wire.OriginApprovalStatus{}, nil, we // too many waiting, or rejected a moment ago: the Book says so
	}
	if err != nil {
		return wire.OriginApprovalStatus{}, nil, wire.Errorf(wire.CodeCreateSessionNotApproved, "origin %q cannot be approved: only http and https pages can", pc.origin).
			WithDetails(map[string]any{"origin": pc.origin})
	}
	r := t.Request()
	if r.ID == "" {
		return wire.OriginApprovalStatus{Approved: true, Origin: pc.origin}, t, nil
	}
	url := pc.base + approvals.PagePath + r.ID
	if logIt {
		pc.srv.Log.Info("a site asks to use Pedelec: approve in the window it opened, or run `pedelec approve "+r.Origin+"`",
			"origin", r.Origin, "request", r.ID, "url", url)
	}
	return wire.OriginApprovalStatus{Origin: pc.origin, RequestID: r.ID, URL: url, ExpiresAt: &r.ExpiresAt,
		TimeoutMs: pc.srv.Book.OriginTimeout().Milliseconds()}, t, nil
}

// holdApproval keeps this connection's place in its origin's request after
// request_approval answered: between that answer and await_approval the
// page opens the approval window, and the request must not end meanwhile.
// The place is given up when the request ends or the connection closes, so
// a page that goes away leaves nothing pending; a connection that asks
// again for the same request keeps one place, not one per ask.
func (pc *conn) holdApproval(t *approvals.Ticket) {
	id := t.ID()
	pc.approvalMu.Lock()
	again := pc.heldApproval == id
	if !again {
		pc.heldApproval = id
	}
	pc.approvalMu.Unlock()
	if again || id == "" {
		t.Cancel()
		return
	}
	go func() {
		select {
		case <-pc.closed:
		case <-t.Done():
		}
		t.Cancel()
		pc.approvalMu.Lock()
		if pc.heldApproval == id {
			pc.heldApproval = ""
		}
		pc.approvalMu.Unlock()
	}()
}

// awaitApproval waits for the origin's decision, then answers the request
// (await_approval) or runs it (create_session, resume_session, with h).
func (pc *conn) awaitApproval(ctx context.Context, req wire.Request, h handler) {
	_, t, err := pc.requestApproval(h != nil) // await_approval follows a logged request_approval
	if err == nil && t != nil {
		wctx, cancel := context.WithCancel(ctx)
		go func() {
			select {
			case <-pc.closed:
				cancel()
			case <-wctx.Done():
			}
		}()
		err = t.Wait(wctx)
		cancel()
	}
	if err != nil {
		if ctx.Err() != nil || pc.Closed() {
			return // the page went away; nobody to answer
		}
		pc.respond(req.ID, nil, err)
		return
	}
	if h == nil {
		pc.respond(req.ID, wire.OriginApprovalStatus{Approved: true, Origin: pc.origin}, nil)
		return
	}
	result, then, err := h(ctx, pc, req.Params)
	pc.respond(req.ID, result, err)
	if err == nil && then != nil {
		then()
	}
}
