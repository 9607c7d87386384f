// Package peercred is the peer check: Core accepts a connection only when
// the process on the other end runs as Core's own user. Origin and Host
// checks stop web pages; they cannot stop another local user's program,
// which may send any headers it likes. The kernel knows who owns the
// client's socket, so the check asks it (owner_linux.go) the moment Core
// accepts the connection, before any byte is read: the client's socket is
// then still held by the client, and a connection from another user is
// closed before it can hold a descriptor (issue 20).
//
// Core wraps its listener with Check.Listener, gives its server
// ConnContext, and wraps its handler with Check.Handler; what it does with
// a refusal (log it, count it) is its own, told through Options.OnRefused.
package peercred

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

// Peer is what Core knows about the process at the other end of a
// connection.
type Peer struct {
	UID     int  // the peer socket's owner; -1 when Known is false
	Known   bool // the platform could tell the uid
	Allowed bool // the peer may use Core: same uid, or --allow-other-users
	Reason  string
}

// Options configure a Check.
type Options struct {
	// UID is Core's own user: the only one the check lets in.
	UID int
	// AllowOtherUsers turns the check off (--allow-other-users): programs
	// of any local user may connect.
	AllowOtherUsers bool
	// OnRefused, if set, is told of every refused connection or request,
	// so Core can log it; it runs on the accepting goroutine, so it must
	// not block.
	OnRefused func(Peer)
}

// Check is the peer check of one Core, with its totals.
type Check struct {
	opts     Options
	refused  atomic.Int64 // connections closed at accept
	admitted atomic.Int64 // requests that passed the check and reached a route
}

// New makes the check Options describe.
func New(opts Options) *Check { return &Check{opts: opts} }

// Refused is the number of connections closed as they were accepted.
func (c *Check) Refused() int64 { return c.refused.Load() }

// Admitted is the number of requests that passed the check and reached a
// route.
func (c *Check) Admitted() int64 { return c.admitted.Load() }

// Listener wraps l so that each connection is judged as it is accepted and
// the ones that may not use Core are closed; the HTTP server only ever
// sees the others, carrying their verdict for ConnContext.
func (c *Check) Listener(l net.Listener) net.Listener {
	return listener{Listener: l, check: c}
}

type listener struct {
	net.Listener
	check *Check
}

func (l listener) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		p := l.check.judgeAddrs(conn.RemoteAddr(), conn.LocalAddr())
		if p.Allowed {
			if tcp, ok := conn.(*net.TCPConn); ok {
				return &judgedTCPConn{TCPConn: tcp, peer: p}, nil
			}
			return &judgedConn{Conn: conn, peer: p}, nil
		}
		l.check.refuseConn(conn, p)
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
func (c *Check) refuseConn(conn net.Conn, p Peer) {
	c.refused.Add(1)
	c.noteRefused(p)
	conn.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
	conn.Write(refusalResponse(c.refusal(p)))
	conn.Close()
}

// refusalResponse is a whole HTTP response carrying err, sent in place of
// the server's answer to a request it never read.
func refusalResponse(err *wire.Error) []byte {
	body, _ := json.Marshal(wire.AgentResult{Error: err})
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s\n", len(body)+1, body)
	return b.Bytes()
}

func (c *Check) refusal(p Peer) *wire.Error {
	return wire.Errorf(wire.CodePeerNotAllowed, "this Pedelec Core accepts connections only from processes of its own user: %s", p.Reason).
		WithDetails(map[string]any{"uid": p.UID, "coreUid": c.opts.UID})
}

func (c *Check) noteRefused(p Peer) {
	if c.opts.OnRefused != nil {
		c.opts.OnRefused(p)
	}
}

type peerKey struct{}

// peerSlot holds one connection's verdict: the one made at accept, or,
// behind a listener that is not the check's (httptest), one computed on
// the connection's first request.
type peerSlot struct {
	once sync.Once
	peer Peer
}

// ConnContext is the http.Server's ConnContext: it gives each connection a
// slot holding its peer verdict.
func ConnContext(ctx context.Context, conn net.Conn) context.Context {
	slot := &peerSlot{}
	switch j := conn.(type) {
	case *judgedTCPConn:
		slot.once.Do(func() { slot.peer = j.peer })
	case *judgedConn:
		slot.once.Do(func() { slot.peer = j.peer })
	}
	return context.WithValue(ctx, peerKey{}, slot)
}

// Of returns the verdict for r's connection. Requests that arrive through
// a server without ConnContext (httptest) are looked up directly.
func (c *Check) Of(r *http.Request) Peer {
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
func (c *Check) judgeAddrs(remote, local net.Addr) Peer {
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
		p.Allowed = p.UID == c.opts.UID
		if !p.Allowed {
			p.Reason = fmt.Sprintf("the peer runs as uid %d; Core runs as uid %d", p.UID, c.opts.UID)
		}
	case !supported:
		p.Allowed = true // the platform cannot tell; said at start-up and in docs/security.md
	default:
		p.Allowed = false
	}
	return p
}

// Handler refuses, with 403 PEER_NOT_ALLOWED, every request whose
// connection belongs to another user. Behind the check's own listener such
// a connection never gets here (Listener closes it); this covers a handler
// mounted on another server. It wraps Core's whole handler, so routes
// added later are covered without doing anything.
func (c *Check) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := c.Of(r)
		if !p.Allowed {
			c.noteRefused(p)
			wire.WriteJSON(w, http.StatusForbidden, wire.AgentResult{Error: c.refusal(p)})
			return
		}
		c.admitted.Add(1)
		next.ServeHTTP(w, r)
	})
}

// Note is what start-up logs about the check on this platform.
func (c *Check) Note() (ok bool, note string) {
	switch {
	case c.opts.AllowOtherUsers:
		return false, "--allow-other-users is set: any local user's program may use this Core, start sessions and run agents as this user"
	case !supported:
		return false, "this platform gives Pedelec no way to learn which user opened a connection; any local user's program may use this Core (see docs/security.md)"
	}
	return true, fmt.Sprintf("only processes of uid %d may connect", c.opts.UID)
}
