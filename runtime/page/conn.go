package page

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/charmbracelet/log"
	"github.com/coder/websocket"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// OutboxSize bounds the frames queued for one page. A page that falls this
// far behind is closed with a policy-violation code rather than letting
// Core's memory grow (the coder/websocket chat example's policy). A resume's
// replay takes one place, however many events it covers: the writer reads
// those from the session's log as the socket takes them (replay.go).
const OutboxSize = 1024

// writeTimeout bounds every frame write.
const writeTimeout = 10 * time.Second

// conn is one page's WebSocket.
type conn struct {
	srv    *Server
	ws     *websocket.Conn
	origin string
	base   string // Core's base URL as this page reached it (Server.URL)
	// preApproved: Core's own page, a client without Origin, or
	// --allow-origin; otherwise the Book decides (origin_gate.go).
	preApproved bool
	log         *log.Logger
	out         chan outFrame
	batch       *writeBatch // nil in tests that build a conn by hand
	// batched: the page asked for batched messages (frames.go); msg
	// is the writer's buffer for them.
	batched bool
	// proofNonce: the page's nonce for Core's proof in the hello (wire.ProofQueryParam).
	proofNonce string
	msg        []byte
	closed     chan struct{}
	once       sync.Once

	// mu guards only these two; nothing else is taken while it is held,
	// and a session's lock may be held when it is taken (session.Page).
	mu         sync.Mutex
	sessions   map[*session.Session]struct{}
	hadSession bool // a session was created or resumed here: the socket is in use

	// approvalMu (a leaf) guards heldApproval: the origin request this
	// connection keeps its place in after request_approval (origin_gate.go).
	approvalMu   sync.Mutex
	heldApproval string
}

func newConn(srv *Server, ws *websocket.Conn, origin string) *conn {
	return &conn{
		srv: srv, ws: ws, origin: origin, log: srv.Log.With("origin", origin),
		out: make(chan outFrame, OutboxSize), closed: make(chan struct{}), sessions: map[*session.Session]struct{}{},
	}
}

// Origin is the page's origin (session.Page).
func (c *conn) Origin() string { return c.origin }

// SendReplay queues a resume's replay behind what is queued (session.Page).
func (c *conn) SendReplay(r *session.Replay) { c.enqueue(outFrame{replay: r}) }

func (c *conn) Attach(s *session.Session) {
	c.mu.Lock()
	c.sessions[s] = struct{}{}
	c.hadSession = true
	c.mu.Unlock()
}

func (c *conn) Detach(s *session.Session) {
	c.mu.Lock()
	delete(c.sessions, s)
	c.mu.Unlock()
}

func (c *conn) Closed() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

// sendRaw queues one encoded frame without blocking.
func (c *conn) Send(data []byte) {
	c.enqueue(outFrame{data: data})
}

// enqueue queues one frame or replay without blocking; a page that leaves
// OutboxSize of them unread is cut off.
func (c *conn) enqueue(f outFrame) {
	select {
	case <-c.closed:
	case c.out <- f:
	default:
		c.log.Warn("page is not reading its events; closing the connection")
		c.close(websocket.StatusPolicyViolation, "too many unread events")
	}
}

func (c *conn) close(code websocket.StatusCode, reason string) {
	c.once.Do(func() {
		close(c.closed)
		if c.ws != nil { // nil only in fuzz tests of the dispatcher
			go c.ws.Close(code, reason)
		}
	})
}

// serve runs the connection until the page goes away, then detaches its
// sessions (ending those with autoEndOnDisconnect).
func (c *conn) serve(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if c.batched {
		// The hello is the socket's first message, alone: queued, the
		// writer could pack it into one array with the answer to a
		// request the page sent at once (a page that trusts no Core yet
		// does), and the page, which reads Core's proof from its first
		// message, found none and kept no key.
		wctx, stop := context.WithTimeout(ctx, writeTimeout)
		err := c.ws.Write(wctx, websocket.MessageText, c.helloFrame())
		stop()
		if err != nil {
			c.close(websocket.StatusInternalError, "write failed")
			return
		}
		c.srv.frames.Add(1)
		c.srv.messages.Add(1)
	}
	go c.writeLoop(ctx)
	go c.pingLoop(ctx)
	stopIdle := c.closeIfSessionless()
	defer stopIdle()
	for {
		c.ws.SetReadLimit(c.readLimit()) // gate_limit.go
		typ, data, err := c.ws.Read(ctx)
		if err != nil {
			if websocket.CloseStatus(err) == -1 && !errors.Is(err, context.Canceled) {
				c.log.Debug("page connection closed", "err", err)
			}
			break
		}
		if err := checkFrame(typ, data); err != nil {
			c.respond(requestID(data), nil, err)
			continue
		}
		if c.batched && isBatch(data) {
			c.handleBatch(ctx, data)
			continue
		}
		c.handleFrame(ctx, data)
	}
	c.close(websocket.StatusNormalClosure, "")
	c.mu.Lock()
	sessions := make([]*session.Session, 0, len(c.sessions))
	for s := range c.sessions {
		sessions = append(sessions, s)
	}
	c.mu.Unlock()
	for _, s := range sessions {
		s.Detached(c)
	}
}

func (c *conn) writeLoop(ctx context.Context) {
	for {
		select {
		case <-c.closed:
			return
		case <-ctx.Done():
			return
		case data := <-c.out:
			if err := c.writeQueued(ctx, data); err != nil {
				c.close(websocket.StatusInternalError, "write failed")
				return
			}
		}
	}
}

// writeQueued writes f and every frame queued behind it, as one socket
// write when the connection batches (batch.go). A replay is streamed
// from the session's log in place, so what was queued behind it follows it.
func (c *conn) writeQueued(ctx context.Context, f outFrame) error {
	if f.replay != nil {
		return c.writeReplay(ctx, f.replay)
	}
	// At most maxBatch frames, so a steady stream still leaves promptly.
	const maxBatch = 64
	frames := [][]byte{f.data}
	var next *session.Replay
	for len(frames) < maxBatch && c.batch != nil && next == nil {
		select {
		case f := <-c.out:
			if f.replay != nil {
				next = f.replay
			} else {
				frames = append(frames, f.data)
			}
			continue
		default:
		}
		break
	}
	if err := c.writeFrames(ctx, frames); err != nil || next == nil {
		return err
	}
	return c.writeReplay(ctx, next)
}

// writeFrames writes frames, held as one socket write when the connection
// batches, within writeTimeout; as one message each, or as arrays when the
// page asked for batched messages.
func (c *conn) writeFrames(ctx context.Context, frames [][]byte) error {
	c.srv.Sessions.Sync() // what the page is about to see survives a crash
	if c.batch != nil {
		c.batch.hold()
	}
	wctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	err := c.writeMessages(wctx, frames)
	if c.batch != nil {
		if rerr := c.batch.release(writeTimeout); err == nil {
			err = rerr
		}
	}
	return err
}

// respond answers request id. Events go to the page's outbox as they are
// emitted, so those a request caused come before its answer.
func (c *conn) respond(id int64, result any, err error) {
	resp := wire.Response{Type: wire.FrameResponse, ID: id, OK: err == nil, Error: wire.AsError(err), Result: result}
	if err == nil && result == nil {
		resp.Result = struct{}{}
	}
	data, merr := json.Marshal(resp)
	if merr != nil {
		c.log.Error("encode response", "err", merr)
		return
	}
	c.Send(data)
}
