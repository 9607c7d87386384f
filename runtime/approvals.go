package runtime

import (
	"net/http"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/approvals"
	"github.com/kaoruisaac/pedelec/runtime/fieldlog"
	"github.com/kaoruisaac/pedelec/runtime/persist"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The user's approvals (runtime/approvals) as Core wires them: the Book of
// origin grants kept in the state database, the Guard in front of the
// console and the approvals API, and revoking an origin ending its
// sessions. The origin gate a page's requests pass is runtime/page's.

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
	c.guard = &approvals.Guard{Token: c.approver, RefuseAgent: approvals.AgentRefusal, SelfOrigin: c.ownOrigin, OnRefuse: func(r *http.Request, why string) {
		c.refusals.Note("console", r.Header.Get("Origin")+"|"+r.Header.Get("Sec-Fetch-Site"), "refused a console or approvals request",
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
			case <-c.ctx.Done(): // Core stopped
				return
			}
		}
	}()
	return nil
}

// endOriginSessions ends every live session of a revoked origin.
func (c *Core) endOriginSessions(origin string) {
	if n := c.sessions.EndOrigin(origin); n > 0 {
		c.log.Info("origin revoked: its sessions ended", "origin", origin, "sessions", n)
	}
}

// mountApprovals routes the approval window and the approvals API
// (runtime/approvals).
func (c *Core) mountApprovals(mux *http.ServeMux) {
	api := &approvals.API{Book: c.book, Guard: c.guard, State: c.consoleApprovals,
		ExplainRevoke: c.allowOriginRevokeError, Log: fieldlog.New(c.log)}
	api.Mount(mux)
}
