// Package approvals is the Book: what the user has allowed and what waits
// for the user to decide (issue 22). Two kinds of request wait in it: an
// origin that is not approved asking to create or resume a session, and a
// tool call that asks for consent first. Core asks, and waits on a Ticket;
// the approval window, the console and `pedelec approve|deny|revoke`
// decide through Core's approvals API. Origin grants outlive Core in the
// state database (a Store); "allow for the rest of this session" lives as
// long as the session.
//
// Lock: Book.mu is a leaf of Core's lock order. Nothing else is taken
// while it is held except the Store's write of a grant (the state
// database's own transaction), and the Book calls nobody back under it:
// OnRevoke and the change feed's subscribers run without it.
package approvals

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/ids"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// DefaultOriginTimeout is how long an origin's request waits for the user:
// long enough to read the approval window and switch to it from another
// tab, short enough that a forgotten page does not wait for ever.
const DefaultOriginTimeout = 2 * time.Minute

// DefaultMaxPendingOrigins bounds the sites waiting for the user at once.
// A user answers a handful; a hostile site (wildcard subdomains in
// iframes, each its own origin) or a local program forging Origin headers
// could otherwise fill the console with prompts and Core with requests.
const DefaultMaxPendingOrigins = 32

// DefaultMaxPendingPerSite bounds the pending origin requests of one site
// (registrable domain, site.go): subdomains are free for whoever owns the
// domain, so without it one site's iframes would take every place above
// and keep every other site from asking.
const DefaultMaxPendingPerSite = 4

// DefaultRejectCooldown is how long a site the user rejected may not ask
// again: long enough that it cannot reopen its approval window on every
// click the user makes on it, short enough that a site rejected by mistake
// is not locked out for the day (`pedelec approve <origin>` grants it at
// any time).
const DefaultRejectCooldown = 10 * time.Minute

// Store keeps origin grants between runs (Core's is the state database).
type Store interface {
	Grants() ([]wire.OriginGrant, error)
	SaveGrant(wire.OriginGrant) error
	DeleteGrant(origin string) error
}

// Options configure a Book. Zero values mean the defaults.
type Options struct {
	Store         Store         // nil: grants live in memory only
	OriginTimeout time.Duration // default DefaultOriginTimeout
	// MaxPendingOrigins bounds the origin requests waiting at once
	// (default DefaultMaxPendingOrigins); one more origin is refused.
	MaxPendingOrigins int
	// MaxPendingPerSite bounds them per site (default
	// DefaultMaxPendingPerSite).
	MaxPendingPerSite int
	// RejectCooldown is how long an origin the user rejected is refused
	// without asking (default DefaultRejectCooldown; negative: no wait).
	RejectCooldown time.Duration
	// OnRevoke runs, without the Book's lock, after an origin lost its
	// grant: Core ends the origin's live sessions.
	OnRevoke func(origin string)
	Now      func() time.Time // default time.Now
}

// Who decided: recorded with a grant and shown with a call's outcome.
const (
	ByConsole     = "console"
	ByCLI         = "cli"
	ByAllowOrigin = "--allow-origin"
	BySession     = "allow_session" // a call let through by an earlier "allow for this session"
)

// Outcome is how a request ended.
type Outcome struct {
	Decision wire.Decision // "" when it timed out or was cancelled
	Reason   string
	By       string
	TimedOut bool
}

// Book holds the grants and the pending requests. Its zero value is not
// usable; make one with New.
type Book struct {
	opts Options

	mu        sync.Mutex
	grants    map[string]wire.OriginGrant
	pending   map[string]*request            // request id → request
	byOrigin  map[string]*request            // origin → its pending origin request
	allowed   map[string]map[string]struct{} // session id → tools allowed for the rest of the session
	rejected  map[string]time.Time           // origin → until when it may not ask again
	ended     []wire.ApprovalOutcome         // the latest requests that stopped pending, oldest first
	listeners map[chan struct{}]struct{}
}

// request is one pending request and the calls waiting on it.
type request struct {
	wire.ApprovalRequest
	done    chan struct{} // closed when outcome is set
	outcome Outcome
	waiters int
	timer   *time.Timer
	timeout time.Duration
}

// New makes a Book and loads the Store's grants.
func New(opts Options) (*Book, error) {
	if opts.OriginTimeout <= 0 {
		opts.OriginTimeout = DefaultOriginTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxPendingOrigins <= 0 {
		opts.MaxPendingOrigins = DefaultMaxPendingOrigins
	}
	if opts.MaxPendingPerSite <= 0 {
		opts.MaxPendingPerSite = DefaultMaxPendingPerSite
	}
	if opts.RejectCooldown == 0 {
		opts.RejectCooldown = DefaultRejectCooldown
	}
	b := &Book{opts: opts, grants: map[string]wire.OriginGrant{}, pending: map[string]*request{},
		byOrigin: map[string]*request{}, allowed: map[string]map[string]struct{}{}, rejected: map[string]time.Time{},
		listeners: map[chan struct{}]struct{}{}}
	if opts.Store != nil {
		grants, err := opts.Store.Grants()
		if err != nil {
			return nil, err
		}
		for _, g := range grants {
			if o, err := NormalizeOrigin(g.Origin); err == nil {
				g.Origin = o
				b.grants[o] = g
			}
		}
	}
	return b, nil
}

// OriginTimeout is how long an origin's request waits.
func (b *Book) OriginTimeout() time.Duration { return b.opts.OriginTimeout }

// Approved reports whether origin holds a grant.
func (b *Book) Approved(origin string) bool {
	o, err := NormalizeOrigin(origin)
	if err != nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.grants[o]
	return ok
}

// Grant approves origin without a request (the CLI before the page asks).
func (b *Book) Grant(origin, by string) error {
	o, err := NormalizeOrigin(origin)
	if err != nil {
		return err
	}
	b.mu.Lock()
	err = b.grantLocked(o, by)
	b.mu.Unlock()
	if err == nil {
		b.changed()
	}
	return err
}

func (b *Book) grantLocked(origin, by string) error {
	delete(b.rejected, origin) // the user's grant ends any wait
	if _, ok := b.grants[origin]; ok {
		return nil
	}
	g := wire.OriginGrant{Origin: origin, ApprovedAt: b.opts.Now().UTC(), By: by}
	if b.opts.Store != nil {
		if err := b.opts.Store.SaveGrant(g); err != nil {
			return err
		}
	}
	b.grants[origin] = g
	return nil
}

// Ticket is a caller's place in a pending request. Every Ticket is either
// waited on until its request ends or cancelled.
type Ticket struct {
	b   *Book
	req *request
	// settled: the call was let through without asking (allow_session).
	settled *Outcome
	once    sync.Once
}

// ID is the request's id ("" for a call let through without asking).
func (t *Ticket) ID() string {
	if t.req == nil {
		return ""
	}
	return t.req.ID
}

// Request is the pending request as listed.
func (t *Ticket) Request() wire.ApprovalRequest {
	if t.req == nil {
		return wire.ApprovalRequest{}
	}
	return t.req.ApprovalRequest
}

// RequestOrigin asks the user to approve origin. Requests of one origin
// are one request: every page of the origin that asks waits on it, and
// one decision answers them all. An origin already approved gets a
// settled ticket.
func (b *Book) RequestOrigin(origin string) (*Ticket, error) {
	o, err := NormalizeOrigin(origin)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	if g, ok := b.grants[o]; ok {
		b.mu.Unlock()
		return &Ticket{b: b, settled: &Outcome{Decision: wire.DecisionApprove, By: g.By}}, nil
	}
	if err := b.cooledDownLocked(o); err != nil {
		b.mu.Unlock()
		return nil, err
	}
	req := b.byOrigin[o]
	if req == nil {
		if err := b.roomLocked(o); err != nil {
			b.mu.Unlock()
			return nil, err
		}
	}
	if req == nil {
		req = b.newRequestLocked(wire.ApprovalRequest{Kind: wire.ApprovalOrigin, Origin: o}, b.opts.OriginTimeout)
		b.byOrigin[o] = req
	}
	req.waiters++
	b.mu.Unlock()
	b.changed()
	return &Ticket{b: b, req: req}, nil
}

// Call is what a consent request shows of a tool call.
type Call struct {
	SessionID, CallID, Tool, Origin string
	Args                            json.RawMessage
	Provider                        string        // who asks: the session's agent
	Timeout                         time.Duration // the tool's timeout: how long consent is waited for
}

// RequestCall asks the user to consent to one call. A tool the user
// allowed for the rest of the session gets a settled ticket.
func (b *Book) RequestCall(c Call) *Ticket {
	b.mu.Lock()
	if _, ok := b.allowed[c.SessionID][c.Tool]; ok {
		b.mu.Unlock()
		return &Ticket{b: b, settled: &Outcome{Decision: wire.DecisionAllowSession, By: BySession}}
	}
	req := b.newRequestLocked(wire.ApprovalRequest{Kind: wire.ApprovalCall, Origin: c.Origin, SessionID: c.SessionID,
		CallID: c.CallID, Tool: c.Tool, Args: c.Args, Provider: c.Provider}, c.Timeout)
	req.waiters = 1
	b.mu.Unlock()
	b.changed()
	return &Ticket{b: b, req: req}
}

func (b *Book) newRequestLocked(ar wire.ApprovalRequest, timeout time.Duration) *request {
	now := b.opts.Now().UTC()
	ar.ID = ids.New("ap_")
	ar.CreatedAt, ar.ExpiresAt = now, now.Add(timeout)
	req := &request{ApprovalRequest: ar, done: make(chan struct{}), timeout: timeout}
	b.pending[ar.ID] = req
	req.timer = time.AfterFunc(timeout, func() {
		b.mu.Lock()
		ok := b.endLocked(req, Outcome{TimedOut: true})
		b.mu.Unlock()
		if ok {
			b.changed()
		}
	})
	return req
}

// endLocked settles req once; it reports false when it already was.
func (b *Book) endLocked(req *request, out Outcome) bool {
	if b.pending[req.ID] != req {
		return false
	}
	delete(b.pending, req.ID)
	if b.byOrigin[req.Origin] == req {
		delete(b.byOrigin, req.Origin)
	}
	req.timer.Stop()
	req.outcome = out
	close(req.done)
	if len(b.ended) >= wire.ApprovalsEndedMax {
		b.ended = slices.Delete(b.ended, 0, len(b.ended)-wire.ApprovalsEndedMax+1)
	}
	b.ended = append(b.ended, wire.ApprovalOutcome{ID: req.ID, Decision: out.Decision, By: out.By, TimedOut: out.TimedOut, At: b.opts.Now()})
	return true
}

// Done is closed when the ticket's request has ended (at once for a
// settled ticket).
func (t *Ticket) Done() <-chan struct{} {
	if t.req == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return t.req.done
}

// Outcome is how the request ended; call it after Done is closed.
func (t *Ticket) Outcome() Outcome {
	if t.settled != nil {
		return *t.settled
	}
	return t.req.outcome
}

// Err is the error a waiting caller fails with (nil when approved): the
// codes the page and the agent route on, with the user's reason.
func (t *Ticket) Err() error {
	out := t.Outcome()
	switch {
	case out.Decision == wire.DecisionApprove || out.Decision == wire.DecisionAllowSession:
		return nil
	case t.req == nil:
		return nil
	}
	r := t.req.ApprovalRequest
	ms := t.req.timeout.Milliseconds()
	if r.Kind == wire.ApprovalOrigin {
		if out.TimedOut {
			return wire.Errorf(wire.CodeApprovalTimeout, "nobody approved %s within %s", r.Origin, t.req.timeout).
				WithDetails(map[string]any{"origin": r.Origin, "timeoutMs": ms})
		}
		msg := "the user rejected " + r.Origin
		if out.Reason != "" {
			msg += ": " + out.Reason
		}
		return wire.Errorf(wire.CodeApprovalRejected, "%s", msg).WithDetails(map[string]any{"origin": r.Origin, "reason": out.Reason})
	}
	if out.TimedOut {
		return wire.Errorf(wire.CodeToolConsentTimeout, "nobody approved the call of %s within its timeout (%s); it did not run", r.Tool, t.req.timeout).
			WithDetails(map[string]any{"tool": r.Tool, "timeoutMs": ms})
	}
	msg := "the user denied the call of " + r.Tool + "; it did not run"
	if out.Reason != "" {
		msg += ". Their reason: " + out.Reason
	}
	return wire.Errorf(wire.CodeToolCallDenied, "%s", msg).WithDetails(map[string]any{"tool": r.Tool, "reason": out.Reason})
}

// Cancel gives up the ticket's place: the caller went away (the page
// closed, the turn ended). An origin request ends with its last waiter; a
// call's request ends with its call.
func (t *Ticket) Cancel() {
	if t.req == nil {
		return
	}
	t.once.Do(func() {
		b := t.b
		b.mu.Lock()
		t.req.waiters--
		ended := t.req.waiters <= 0 && b.endLocked(t.req, Outcome{})
		b.mu.Unlock()
		if ended {
			b.changed()
		}
	})
}

// Decide answers a pending request, named by its id or, for an origin, by
// the origin itself. Approving an origin that has no pending request
// grants it (`pedelec approve <origin>` before the page asks); denying
// one is APPROVAL_NOT_FOUND, as is an id that is not pending.
func (b *Book) Decide(idOrOrigin string, d wire.Decision, reason, by string) (wire.ApprovalRequest, error) {
	switch d {
	case wire.DecisionApprove, wire.DecisionDeny, wire.DecisionAllowSession:
	default:
		return wire.ApprovalRequest{}, wire.Errorf(wire.CodeInvalidInput, "decision %q is not approve, deny or allow_session", d)
	}
	b.mu.Lock()
	var req *request
	origin := ""
	if looksLikeOrigin(idOrOrigin) {
		o, err := NormalizeOrigin(idOrOrigin)
		if err != nil {
			b.mu.Unlock()
			return wire.ApprovalRequest{}, err
		}
		origin, req = o, b.byOrigin[o]
	} else {
		req = b.pending[strings.TrimSpace(idOrOrigin)]
	}
	if req == nil {
		if origin != "" && d != wire.DecisionDeny {
			err := b.grantLocked(origin, by)
			b.mu.Unlock()
			if err != nil {
				return wire.ApprovalRequest{}, err
			}
			b.changed()
			return wire.ApprovalRequest{Kind: wire.ApprovalOrigin, Origin: origin}, nil
		}
		b.mu.Unlock()
		return wire.ApprovalRequest{}, wire.Errorf(wire.CodeApprovalNotFound, "no pending request %q: it was decided, expired or never made", idOrOrigin).
			WithDetails(map[string]any{"id": idOrOrigin})
	}
	if d == wire.DecisionDeny && req.Kind == wire.ApprovalOrigin && b.opts.RejectCooldown > 0 {
		b.rejected[req.Origin] = b.opts.Now().Add(b.opts.RejectCooldown)
	}
	if d != wire.DecisionDeny {
		if req.Kind == wire.ApprovalOrigin {
			if err := b.grantLocked(req.Origin, by); err != nil {
				b.mu.Unlock()
				return wire.ApprovalRequest{}, err
			}
			d = wire.DecisionApprove
		} else if d == wire.DecisionAllowSession {
			tools := b.allowed[req.SessionID]
			if tools == nil {
				tools = map[string]struct{}{}
				b.allowed[req.SessionID] = tools
			}
			tools[req.Tool] = struct{}{}
		}
	}
	b.endLocked(req, Outcome{Decision: d, Reason: reason, By: by})
	b.mu.Unlock()
	b.changed()
	return req.ApprovalRequest, nil
}

// Revoke takes origin's grant away and runs OnRevoke for it.
func (b *Book) Revoke(origin string) error {
	o, err := NormalizeOrigin(origin)
	if err != nil {
		return err
	}
	b.mu.Lock()
	if _, ok := b.grants[o]; !ok {
		b.mu.Unlock()
		return wire.Errorf(wire.CodeApprovalNotFound, "%s is not approved", o).WithDetails(map[string]any{"origin": o})
	}
	if b.opts.Store != nil {
		if err := b.opts.Store.DeleteGrant(o); err != nil {
			b.mu.Unlock()
			return err
		}
	}
	delete(b.grants, o)
	b.mu.Unlock()
	if b.opts.OnRevoke != nil {
		b.opts.OnRevoke(o)
	}
	b.changed()
	return nil
}

// EndSession forgets a session's "allow for this session" choices.
func (b *Book) EndSession(sessionID string) {
	b.mu.Lock()
	delete(b.allowed, sessionID)
	b.mu.Unlock()
}

// Pending reports whether id names a pending request, and which.
func (b *Book) Pending(id string) (wire.ApprovalRequest, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	req, ok := b.pending[id]
	if !ok {
		return wire.ApprovalRequest{}, false
	}
	return req.ApprovalRequest, true
}

// State lists the pending requests (oldest first) and the grants.
func (b *Book) State() wire.ApprovalsState {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := wire.ApprovalsState{Pending: []wire.ApprovalRequest{}, Origins: []wire.OriginGrant{}}
	for _, r := range b.pending {
		st.Pending = append(st.Pending, r.ApprovalRequest)
	}
	for _, g := range b.grants {
		st.Origins = append(st.Origins, g)
	}
	slices.SortFunc(st.Pending, func(a, c wire.ApprovalRequest) int {
		if n := a.CreatedAt.Compare(c.CreatedAt); n != 0 {
			return n
		}
		return strings.Compare(a.ID, c.ID)
	})
	slices.SortFunc(st.Origins, func(a, c wire.OriginGrant) int { return strings.Compare(a.Origin, c.Origin) })
	st.Ended = slices.Clone(b.ended)
	return st
}

// Subscribe is the change feed: the channel gets a value (coalesced, never
// blocking the Book) after every change to State. cancel ends it.
func (b *Book) Subscribe() (changes <-chan struct{}, cancel func()) {
	ch := make(chan struct{}, 1)
	b.mu.Lock()
	b.listeners[ch] = struct{}{}
	b.mu.Unlock()
	return ch, func() {
		b.mu.Lock()
		delete(b.listeners, ch)
		b.mu.Unlock()
	}
}

func (b *Book) changed() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.listeners {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Wait waits for the request to end or ctx to be done (then the ticket is
// cancelled and ctx's error returned); nil means approved.
func (t *Ticket) Wait(ctx context.Context) error {
	select {
	case <-t.Done():
		return t.Err()
	case <-ctx.Done():
		t.Cancel()
		select {
		case <-t.Done():
			if t.Outcome().Decision != "" || t.Outcome().TimedOut {
				return t.Err()
			}
		default:
		}
		return ctx.Err()
	}
}
