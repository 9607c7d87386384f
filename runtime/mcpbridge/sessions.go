package mcpbridge

import (
	"context"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK closes a session gracefully: ServerSession.Close waits for the
// calls in flight to answer. A page's handler may take until Core's
// timeout, and an answer to a client that is gone or hung goes nowhere, so
// when Pedelec ends a session (Core stopping, DELETE, a session evicted, a
// client that stopped answering pings) it first cancels the session's
// calls, as their client closing the connection would: the page's
// ctx.signal aborts and the session closes at once. (A stdio client that
// closes stdin needs none of this: the SDK cancels then.)

// errSessionEnded is the cause of the calls' ctx ending with their
// session.
var errSessionEnded = errors.New("the MCP session ended")

// sessionCalls is one session's calls in flight.
type sessionCalls struct {
	closing bool // no call may start: one that does is cancelled at once
	calls   map[*context.CancelCauseFunc]struct{}
}

// track records a call of ss in flight until untrack; cancel ends it.
func (m *Mirror) track(ss *mcp.ServerSession, cancel context.CancelCauseFunc) (untrack func()) {
	if ss == nil {
		return func() {}
	}
	m.callsMu.Lock()
	defer m.callsMu.Unlock()
	sc := m.calls[ss]
	if sc == nil {
		sc = &sessionCalls{calls: map[*context.CancelCauseFunc]struct{}{}}
		m.calls[ss] = sc
	}
	if sc.closing {
		cancel(errSessionEnded)
	}
	sc.calls[&cancel] = struct{}{}
	return func() {
		m.callsMu.Lock()
		defer m.callsMu.Unlock()
		delete(sc.calls, &cancel)
		if len(sc.calls) == 0 && !sc.closing {
			delete(m.calls, ss)
		}
	}
}

// cancelCalls cancels ss's calls in flight and any that starts after,
// until forget.
func (m *Mirror) cancelCalls(ss *mcp.ServerSession) {
	m.callsMu.Lock()
	defer m.callsMu.Unlock()
	sc := m.calls[ss]
	if sc == nil {
		sc = &sessionCalls{calls: map[*context.CancelCauseFunc]struct{}{}}
		m.calls[ss] = sc
	}
	sc.closing = true
	for cancel := range sc.calls {
		(*cancel)(errSessionEnded)
	}
}

// forget drops what cancelCalls kept of ss, once it has closed.
func (m *Mirror) forget(ss *mcp.ServerSession) {
	m.callsMu.Lock()
	defer m.callsMu.Unlock()
	delete(m.calls, ss)
}

// endSession cancels ss's calls and closes it.
func (m *Mirror) endSession(ss *mcp.ServerSession) {
	m.cancelCalls(ss)
	_ = ss.Close()
	m.forget(ss)
}

// keepAlive pings the client of ss every m.keepAlive until the session
// ends; KeepAliveMisses unanswered pings in a row end it. It starts when
// the client says it is initialized: the revisions without initialize
// (2026-07-28 on) have no ping.
//
// Pedelec pings itself rather than through ServerOptions.KeepAlive, which
// ends a session through the graceful Close above (a hung client's calls
// would hold their pages' handlers until Core's timeout) and counts as a
// miss a ping that had nowhere to go: over HTTP a ping travels on the
// client's notification stream (GET), and a client that keeps none open,
// which the spec allows, is not gone for that.
func (m *Mirror) keepAlive(ss *mcp.ServerSession) {
	every := m.keepAliveEvery
	if every <= 0 {
		return
	}
	ended := make(chan struct{})
	go func() {
		_ = ss.Wait()
		close(ended)
	}()
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		misses := 0
		for {
			select {
			case <-ended:
				return
			case <-tick.C:
			}
			ctx, cancel := context.WithTimeout(context.Background(), every/2)
			err := ss.Ping(ctx, nil)
			cancel()
			var werr *jsonrpc.Error
			switch {
			case err == nil:
				misses = 0
			case errors.As(err, &werr) && werr.Code == codeRejected:
				// Nowhere to send it (no GET stream open): it says nothing
				// about the client.
			case errors.As(err, &werr) && werr.Code == jsonrpc.CodeMethodNotFound:
				return // a client without ping
			case errors.Is(err, mcp.ErrConnectionClosed):
				return
			default:
				if misses++; misses >= KeepAliveMisses {
					m.log.Warn("an MCP client stopped answering pings; ending its session", "session", ss.ID(), "misses", misses, "err", err)
					m.endSession(ss)
					return
				}
			}
		}
	}()
}

// The codes of two errors internal to the SDK: a message its transport had
// nowhere to send (jsonrpc2.ErrRejected), a session closed on our side
// (jsonrpc2.ErrServerClosing).
const (
	codeRejected      = -32005
	codeServerClosing = -32004
)
