package runtime

import (
	"context"
	"net/http"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/approvals"
	"github.com/kaoruisaac/pedelec/runtime/persist"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The origin gate (issue 22). A page whose origin is neither Core's own
// nor matched by --allow-origin (pre-approval, for scripts and CI) nor
// approved by the user may still open the WebSocket, but may only ask
// about approval: get_approval_status, request_approval, await_approval.
// Its create_session and resume_session wait for the user's decision
// (approvals.Book), and every other request is
// CREATE_SESSION_NOT_APPROVED. Revoking an origin ends its live sessions.

// Methods an unapproved origin may call.
const (
	methodGetApprovalStatus = "get_approval_status" // {approved, origin}; never asks the user
	methodRequestApproval   = "request_approval"    // asks the user (once per origin): {approved, requestId, url, ...}
	methodAwaitApproval     = "await_approval"      // waits for the decision: {approved: true} or the code
)

// approvalStatus is what get_approval_status, request_approval and
// await_approval answer.
type approvalStatus struct {
	Approved  bool       `json:"approved"`
	Origin    string     `json:"origin"`
	RequestID string     `json:"requestId,omitempty"`
	URL       string     `json:"url,omitempty"` // the approval window to open
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
	TimeoutMs int64      `json:"timeoutMs,omitempty"`
}

// grantStore keeps the Book's grants in the state database.
type grantStore struct{ db *persist.DB }

func (g grantStore) Grants() ([]wire.OriginGrant, error) {
	recs, err := g.db.Grants()
	out := make([]wire.OriginGrant, 0, len(recs))
	for _, r := range recs {
		out = append(out, wire.OriginGrant{Origin: r.Origin, ApprovedAt: time.UnixMilli(r.ApprovedAt).UTC(), By: r.By})
	}
	return out, err
}

func (g grantStore) SaveGrant(o wire.OriginGrant) error {
	return g.db.SaveGrant(persist.GrantRecord{Origin: o.Origin, ApprovedAt: o.ApprovedAt.UnixMilli(), By: o.By})
}

func (g grantStore) DeleteGrant(origin string) error { return g.db.DeleteGrant(origin) }

// openBook makes the Book on the state database recover opened.
func (c *Core) openBook(db *persist.DB) error {
	book, err := approvals.New(approvals.Options{Store: grantStore{db}, OriginTimeout: c.opts.OriginApprovalTimeout,
		RejectCooldown: c.opts.OriginRejectCooldown,
		OnRevoke:       c.endOriginSessions})
	if err != nil {
		return err
	}
	c.book = book
	c.guard = &approvals.Guard{Token: c.approver, RefuseAgent: approvals.AgentRefusal, OnRefuse: func(r *http.Request, why string) {
		c.refusals.note("console", r.Header.Get("Origin")+"|"+r.Header.Get("Sec-Fetch-Site"), "refused a console or approvals request",
			"path", r.URL.Path, "why", why, "hint", "open the console by typing its URL; pages of other origins may not use it")
	}}
	// The console shows the Book's pending requests and grants, and wakes
	// its feeds whenever they change.
	since := time.Now().UTC()
	c.consoleApprovals = func() wire.ApprovalsState {
		return approvals.WithAllowOrigins(book.State(), c.opts.AllowOrigins, since)
	}
	changes, stop := book.Subscribe()
	go func() {
		defer stop()
		for {
			select {
			case <-changes:
				c.console.Bump()
			case <-c.mcp.ctx.Done(): // Core stopped
				return
			}
		}
	}()
	return nil
}

// endOriginSessions ends every live session of a revoked origin.
func (c *Core) endOriginSessions(origin string) {
	c.mu.Lock()
	var mine []*Session
	for _, s := range c.sessions {
		if o, err := approvals.NormalizeOrigin(s.origin); err == nil && o == origin {
			mine = append(mine, s)
		}
	}
	c.mu.Unlock()
	for _, s := range mine {
		s.End(wire.EndedData{Reason: wire.EndReasonOriginRevoked})
	}
	if len(mine) > 0 {
		c.log.Info("origin revoked: its sessions ended", "origin", origin, "sessions", len(mine))
	}
}

// originApproved: the connection's origin may use Core now. Asked per
// request, so a revocation applies to open connections at once.
func (pc *conn) originApproved() bool {
	return pc.preApproved || pc.core.book.Approved(pc.origin)
}

// gateRequest runs before dispatch. It reports true when it took the
// request over (answered it, or will answer it from its own goroutine).
func (pc *conn) gateRequest(ctx context.Context, req wire.Request, index int) bool {
	switch req.Method {
	case methodGetApprovalStatus:
		pc.respond(req.ID, approvalStatus{Approved: pc.originApproved(), Origin: pc.origin}, nil)
		return true
	case methodRequestApproval:
		st, t, err := pc.requestApproval(true)
		if t != nil {
			pc.holdApproval(t)
		}
		pc.respond(req.ID, st, err)
		return true
	case methodAwaitApproval:
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
func (pc *conn) requestApproval(logIt bool) (approvalStatus, *approvals.Ticket, error) {
	if pc.originApproved() {
		return approvalStatus{Approved: true, Origin: pc.origin}, nil, nil
	}
	t, err := pc.core.book.RequestOrigin(pc.origin)
	if we := wire.AsError(err); we != nil && (we.Code == wire.CodeCreateSessionNotApproved || we.Code == wire.CodeApprovalRejected) {
		return approvalStatus{}, nil, we // too many waiting, or rejected a moment ago: the Book says so
	}
	if err != nil {
		return approvalStatus{}, nil, wire.Errorf(wire.CodeCreateSessionNotApproved, "origin %q cannot be approved: only http and https pages can", pc.origin).
			WithDetails(map[string]any{"origin": pc.origin})
	}
	r := t.Request()
	if r.ID == "" {
		return approvalStatus{Approved: true, Origin: pc.origin}, t, nil
	}
	url := pc.core.URL() + approvals.PagePath + r.ID
	if logIt {
		pc.core.log.Info("a site asks to use Pedelec: approve in the window it opened, or run `pedelec approve "+r.Origin+"`",
			"origin", r.Origin, "request", r.ID, "url", url)
	}
	return approvalStatus{Origin: pc.origin, RequestID: r.ID, URL: url, ExpiresAt: &r.ExpiresAt,
		TimeoutMs: pc.core.book.OriginTimeout().Milliseconds()}, t, nil
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
		if ctx.Err() != nil || pc.isClosed() {
			return // the page went away; nobody to answer
		}
		pc.respond(req.ID, nil, err)
		return
	}
	if h == nil {
		pc.respond(req.ID, approvalStatus{Approved: true, Origin: pc.origin}, nil)
		return
	}
	result, then, err := h(ctx, pc, req.Params)
	pc.respond(req.ID, result, err)
	if err == nil && then != nil {
		then()
	}
}

// mountApprovals routes the approval window and the approvals API
// (runtime/approvals).
func (c *Core) mountApprovals(mux *http.ServeMux) {
	api := &approvals.API{Book: c.book, Guard: c.guard, State: c.consoleApprovals,
		ExplainRevoke: c.allowOriginRevokeError, Log: newFieldLog(c.log)}
	api.Mount(mux)
}
