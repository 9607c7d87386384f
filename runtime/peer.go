package runtime

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The peer check: Core accepts a connection only when the process on the
// other end runs as Core's own user. Origin and Host checks stop web pages;
// they cannot stop another local user's program, which may send any
// headers it likes. The kernel knows who owns the client's socket, so Core
// asks it (peer_linux.go) once per connection.

// Peer is what Core knows about the process at the other end of a request's
// connection.
type Peer struct {
	UID     int  // the peer socket's owner; -1 when Known is false
	Known   bool // the platform could tell the uid
	Allowed bool // the peer may use Core: same uid, or --allow-other-users
	Reason  string
}

type peerKey struct{}

// peerSlot holds one connection's verdict, computed on its first request
// and shared by every request on that keep-alive connection.
type peerSlot struct {
	once sync.Once
	peer Peer
}

// connContext is the http.Server's ConnContext: it gives each connection a
// slot for its peer verdict.
func connContext(ctx context.Context, _ net.Conn) context.Context {
	return context.WithValue(ctx, peerKey{}, &peerSlot{})
}

// PeerOf returns the verdict for r's connection. Core's handler refuses
// disallowed peers before any route runs, so a handler never needs to call
// this to be safe; it is exported for code that wants to log or show who
// the peer is (a debug endpoint, an MCP bridge). Requests that arrive
// through a server without Core's ConnContext (httptest) are looked up
// directly.
func (c *Core) PeerOf(r *http.Request) Peer {
	if slot, ok := r.Context().Value(peerKey{}).(*peerSlot); ok {
		slot.once.Do(func() { slot.peer = c.judgePeer(r) })
		return slot.peer
	}
	return c.judgePeer(r)
}

// judgePeer finds the peer's uid and decides.
func (c *Core) judgePeer(r *http.Request) Peer {
	remote, err1 := net.ResolveTCPAddr("tcp", r.RemoteAddr)
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	p := Peer{UID: -1}
	if err1 != nil || local == nil {
		p.Reason = "the connection's addresses are unknown"
	} else if l, ok := local.(*net.TCPAddr); !ok {
		p.Reason = "not a TCP connection"
	} else if !remote.IP.IsLoopback() {
		p.Reason = fmt.Sprintf("the peer %s is not on loopback, so its user cannot be known", remote.IP)
	} else {
		uid, err := socketOwner(remote, l)
		if err != nil {
			p.Reason = err.Error()
		} else {
			p.UID, p.Known = uid, true
		}
	}
	switch {
	case c.opts.AllowOtherUsers:
		p.Allowed = true
	case p.Known:
		p.Allowed = p.UID == c.uid
		if !p.Allowed {
			p.Reason = fmt.Sprintf("the peer runs as uid %d; Core runs as uid %d", p.UID, c.uid)
		}
	case !peerCheckSupported:
		p.Allowed = true // the platform cannot tell; said at start-up and in docs/security.md
	default:
		p.Allowed = false
	}
	return p
}

// checkPeer refuses, with 403 PEER_NOT_ALLOWED, every request whose
// connection belongs to another user. It wraps Core's whole handler, so
// routes added later are covered without doing anything.
func (c *Core) checkPeer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := c.PeerOf(r)
		if !p.Allowed {
			c.refusals.note("peer", fmt.Sprint(p.UID), "refused a connection from another user", "uid", p.UID, "reason", p.Reason,
				"hint", "only Core's own user may connect; --allow-other-users lifts this for a deliberate shared setup")
			writeJSON(w, http.StatusForbidden, wire.AgentResult{Error: wire.Errorf(wire.CodePeerNotAllowed,
				"this Pedelec Core accepts connections only from processes of its own user: %s", p.Reason).
				WithDetails(map[string]any{"uid": p.UID, "coreUid": c.uid})})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// PeerCheckNote is what start-up logs about the peer check on this platform.
func (c *Core) PeerCheckNote() (ok bool, note string) {
	switch {
	case c.opts.AllowOtherUsers:
		return false, "--allow-other-users is set: any local user's program may use this Core, start sessions and run agents as this user"
	case !peerCheckSupported:
		return false, "this platform gives Pedelec no way to learn which user opened a connection; any local user's program may use this Core (see docs/security.md)"
	}
	return true, fmt.Sprintf("only processes of uid %d may connect", c.uid)
}
