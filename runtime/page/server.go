// Package page is Core's side of a page's WebSocket (/ws): the
// connection with its bounded outbox and batched writes, the dispatch
// table of the methods a page calls, the origin gate in front of it, and
// a resumed page's replay. It reaches sessions only through the methods
// of runtime/session, and is each session's session.Page.
package page

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/log"
	"github.com/coder/websocket"
	"github.com/kaoruisaac/pedelec/runtime/approvals"
	"github.com/kaoruisaac/pedelec/runtime/assets"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Server is the page WebSocket endpoint. Core fills in every field
// before it serves; none changes after.
type Server struct {
	Sessions  *session.Table
	Book      *approvals.Book   // origin grants: who may use Core (origin_gate.go)
	Transfers *assets.Transfers // asset transfer tickets (assets.go)
	Providers *provider.Registry
	Log       *log.Logger

	MaxMessageBytes    int64         // bounds every frame
	SessionlessTimeout time.Duration // closes a socket that starts no session (bounds.go)
	PingInterval       time.Duration // how often a page is pinged (bounds.go)

	// URL is Core's base URL as the page of r reached it, where the page
	// finds the approval window (through a port forward too).
	URL func(r *http.Request) string
	// OriginAllowed is Core's rule for origins that need no approval
	// (Core's own page, no Origin, --allow-origin).
	OriginAllowed func(r *http.Request) (origin string, ok bool)
	// RefuseOrigin answers a page whose origin no one could approve.
	RefuseOrigin func(w http.ResponseWriter, origin string)
	// Prove signs a page's nonce with Core's key, for the hello
	// (runtime/coreauth): how a page knows it talks to the Core it trusts.
	Prove func(nonce string) (wire.CoreProof, error)

	// messages and frames count what Core has written to pages: WebSocket
	// messages, and the frames in them (Counts).
	messages, frames atomic.Int64
}

// Counts are the WebSocket messages written to pages so far and the
// frames in them (a batched message carries several).
func (srv *Server) Counts() (messages, frames int64) { return srv.messages.Load(), srv.frames.Load() }

// ServeHTTP upgrades a page's request to its WebSocket and serves it
// until the page goes away.
func (srv *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	origin, preApproved := srv.OriginAllowed(r)
	if !preApproved {
		// Not Core's own page nor --allow-origin: it may connect to ask the
		// user (origin_gate.go), if it has an origin the user could approve.
		if _, err := approvals.NormalizeOrigin(origin); err != nil {
			srv.RefuseOrigin(w, origin)
			return
		}
	}
	// The origin was checked above with Pedelec's own rules.
	batch := &writeBatch{}
	ws, err := websocket.Accept(batchingResponseWriter{w, batch}, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		srv.Log.Warn("websocket accept", "err", err)
		return
	}
	pc := newConn(srv, ws, origin)
	pc.base = srv.URL(r)
	pc.batch = batch
	pc.preApproved = preApproved
	pc.batched = r.URL.Query().Get(wire.BatchQueryParam) == "1"
	pc.proofNonce = r.URL.Query().Get(wire.ProofQueryParam)
	pc.serve(context.WithoutCancel(r.Context()))
}
