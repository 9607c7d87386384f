package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The peer check: Core accepts a connection only when the process on the
// other end runs as Core's own user. Origin and Host checks stop web pages;
// they cannot stop another local user's program, which may send any
// headers it likes. The kernel knows who owns the client's socket, so Core
// asks it (peer_linux.go) the moment it accepts the connection, before any
// byte is read: the client's socket is then still held by the client, and a
// connection from another user is closed before it can hold a descriptor
// (issue 20).

// Peer is what Core knows about the process at the other end of a
// connection.
type Peer struct {
	UID     int  // the peer socket's owner; -1 when Known is false
	Known   bool // the platform could tell the uid
	Allowed bool // the peer may use Core: same uid, or --allow-other-users
	Reason  string
}

// peerCounts are the peer check's totals, for DebugPath.
type peerCounts struct {
	refused  atomic.Int64 // connections closed at accept
	admitted atomic.Int64 // requests that passed the check and reached a route
}

// peerListener judges each connection as it is accepted and closes the
// ones that may not use Core; the HTTP server only ever sees the others,
// wrapped with their verdict.
type peerListener struct {
	net.Listener
	core *Core
}

func (l peerListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		p := l.core.judgeAddrs(conn.RemoteAddr(), conn.LocalAddr())
		if p.Allowed {
			if tcp, ok := conn.(*net.TCPConn); ok {
				return &judgedTCPConn{TCPConn: tcp, peer: p}, nil
			}
			return &judgedConn{Conn: conn, peer: p}, nil
		}
		l.core.refuseConn(conn, p)
	}
}

// judgedTCPConn keeps *net.TCPConn's own methods (sendfile through
// ReadFrom, CloseWrite) for the HTTP server; judgedConn is any other kind.
type judgedTCPConn struct {
	*net.TCPConn
	peer Peer
}

type judgedConn struct {
	net.Conn
	peer Peer
}

// refuseConn closes a connection of another user at once. It first writes
// the 403 Core would have answered, without reading the request: most
// clients (curl, `pedelec tool-call`) then show PEER_NOT_ALLOWED; one that
// is still sending may see the connection reset instead. The write cannot
// wait: a new socket's send buffer is empty.
func (c *Core) refuseConn(conn net.Conn, p Peer) {
	c.peers.refused.Add(1)
	c.notePeerRefused(p)
	conn.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	conn.Write(peerRefusalResponse(c.peerRefusal(p)))
	conn.Close()
}

// peerRefusalResponse is a whole HTTP response carrying err, sent in place
// of the server's answer to a request it never read.
func peerRefusalResponse(err *wire.Error) []byte {
	body, _ := json.Marshal(wire.AgentResult{Error: err})
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s\n", len(body)+1, body)
	return b.Bytes()
}

func (c *Core) peerRefusal(p Peer) *wire.Error {
	return wire.Errorf(wire.CodePeerNotAllowed, "this Pedelec Core accepts connections only from processes of its own user: %s", p.Reason).
		WithDetails(map[string]any{"uid": p.UID, "coreUid": c.uid})
}

func (c *Core) notePeerRefused(p Peer) {
	c.refusals.note("peer", fmt.Sprint(p.UID), "refused a connection from another user", "uid", p.UID, "reason", p.Reason,
		"hint", "only Core's own user may connect; --allow-other-users lifts this for a deliberate shared setup")
}

type peerKey struct{}

// peerSlot holds one connection's verdict: the one made at accept, or,
// behind a listener that is not Core's (httptest), one computed on the
// connection's first request.
type peerSlot struct {
	once sync.Once
	peer Peer
}

// connContext is the http.Server's ConnContext: it gives each connection a
// slot holding its peer verdict.
func connContext(ctx context.Context, conn net.Conn) context.Context {
	slot := &peerSlot{}
	switch j := conn.(type) {
	case *judgedTCPConn:
		slot.once.Do(func() { slot.peer = j.peer })
	case *judgedConn:
		slot.once.Do(func() { slot.peer = j.peer })
	}
	return context.WithValue(ctx, peerKey{}, slot)
}

// PeerOf returns the verdict for r's connection. Core refuses disallowed
// peers before any route runs, so a handler never needs to call this to be
// safe; it is exported for code that wants to log or show who the peer is
// (a debug endpoint, an MCP bridge). Requests that arrive through a server
// without Core's ConnContext (httptest) are looked up directly.
func (c *Core) PeerOf(r *http.Request) Peer {
	judge := func() Peer {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		remote, err := net.ResolveTCPAddr("tcp", r.RemoteAddr)
		if err != nil {
			return c.judgeAddrs(nil, local)
		}
		return c.judgeAddrs(remote, local)
	}
	if slot, ok := r.Context().Value(peerKey{}).(*peerSlot); ok {
		slot.once.Do(func() { slot.peer = judge() })
		return slot.peer
	}
	return judge()
}

// judgeAddrs finds the uid of the peer at remote, connected to Core at
// local, and decides.
func (c *Core) judgeAddrs(remote, local net.Addr) Peer {
	p := Peer{UID: -1}
	r, okR := remote.(*net.TCPAddr)
	l, okL := local.(*net.TCPAddr)
	switch {
	case remote == nil || local == nil:
		p.Reason = "the connection's addresses are unknown"
	case !okR || !okL:
		p.Reason = "not a TCP connection"
	case !r.IP.IsLoopback():
		p.Reason = fmt.Sprintf("the peer %s is not on loopback, so its user cannot be known", r.IP)
	default:
		uid, err := socketOwner(r, l)
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
// connection belongs to another user. Behind Core's own listener such a
// connection never gets here (peerListener closes it); this covers a
// handler mounted on another server. It wraps Core's whole handler, so
// routes added later are covered without doing anything.
func (c *Core) checkPeer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := c.PeerOf(r)
		if !p.Allowed {
			c.notePeerRefused(p)
			writeJSON(w, http.StatusForbidden, wire.AgentResult{Error: c.peerRefusal(p)})
			return
		}
		c.peers.admitted.Add(1)
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
