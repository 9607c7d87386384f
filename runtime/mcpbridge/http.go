package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPHandler serves a Mirror over MCP's Streamable HTTP transport: the
// SDK's handler, stateful (Mcp-Session-Id, a GET stream for
// notifications, DELETE), with what Pedelec adds around it:
//
//   - A POST body is read here, at most maxBody bytes (413 past it), and a
//     batch of more than MaxBatchMessages is refused whole (400, JSON-RPC
//     -32600).
//   - The sessions kept are bounded. A client that goes away without
//     DELETE leaves its session behind (until its pings go unanswered);
//     past maxHTTPSessions, opening one ends the session idle longest (no
//     request or stream open), whose client gets 404 on its next request,
//     which the spec answers by initializing again.
//   - A client that drops the POST carrying a call cancels the call, as
//     notifications/cancelled does: the SDK would let it run on to its
//     timeout, holding the page's handler for an answer nobody reads.
//   - DELETE, Close (Core stopping) and eviction cancel the session's
//     calls before the SDK closes it (sessions.go says why).
//
// Authentication, Origin, Host and peer checks are Core's, in front.
type HTTPHandler struct {
	mirror      *Mirror
	server      *mcp.Server
	sdk         *mcp.StreamableHTTPHandler
	maxBody     int64
	maxSessions int

	mu  sync.Mutex
	use map[string]*sessionUse // by Mcp-Session-Id
}

// sessionUse is what HTTPHandler knows of one session's requests.
type sessionUse struct {
	open int       // requests in progress, the GET stream included
	last time.Time // when one last began or ended, or the session was first seen
}

// maxHTTPSessions bounds the MCP sessions kept over HTTP: far above the
// MCP clients one user runs at once.
const maxHTTPSessions = 256

const (
	sessionIDHeader       = "Mcp-Session-Id"
	protocolVersionHeader = "Mcp-Protocol-Version"
)

// NewHTTPHandler serves m over Streamable HTTP; a POST body larger than
// maxBody bytes (if > 0) is refused with 413.
func NewHTTPHandler(m *Mirror, maxBody int64) *HTTPHandler {
	h := &HTTPHandler{mirror: m, server: m.server, maxBody: maxBody, maxSessions: maxHTTPSessions, use: map[string]*sessionUse{}}
	limit := maxBody
	if limit <= 0 {
		limit = -1 // read whole here already; the SDK need not bound it again
	}
	h.sdk = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return m.server }, &mcp.StreamableHTTPOptions{
		// Core checks Host itself, with the names the user allowed
		// (--allow-host); the SDK's check knows only loopback names.
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        limit,
		Logger:                     m.sdkLog,
	})
	return h
}

func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(sessionIDHeader)
	var body []byte
	if r.Method == http.MethodPost {
		var ok bool
		if body, ok = h.readBody(w, r); !ok {
			return
		}
		if answer := checkBatch(body); answer != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(answer)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if id == "" && !h.makeRoom() {
			// Every session kept has a request open (a notification
			// stream, a call): none may be evicted, and the limit holds.
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"too many MCP sessions: %d are kept, each with a request open; close one (DELETE, or end its stream) and try again"}}`, h.maxSessions)
			return
		}
	}
	if id != "" {
		defer h.begin(id)()
	}
	var deleting *mcp.ServerSession
	if r.Method == http.MethodDelete && id != "" {
		if deleting = h.session(id); deleting != nil {
			h.mirror.cancelCalls(deleting) // else the SDK's Close waits for them
			defer h.mirror.forget(deleting)
		}
	}
	h.sdk.ServeHTTP(w, r)
	switch {
	case r.Method == http.MethodPost && id == "":
		if opened := w.Header().Get(sessionIDHeader); opened != "" {
			h.begin(opened)() // a new session is as fresh as a used one
		}
	case r.Method == http.MethodPost && r.Context().Err() != nil:
		// The POST ended because its client went away (or Core is
		// stopping), not because every call was answered.
		h.cancelCalls(r, body)
	case r.Method == http.MethodDelete:
		h.mu.Lock()
		delete(h.use, id)
		h.mu.Unlock()
	}
}

func (h *HTTPHandler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body := r.Body
	if h.maxBody > 0 {
		body = http.MaxBytesReader(w, r.Body, h.maxBody)
	}
	data, err := io.ReadAll(body)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		http.Error(w, fmt.Sprintf("request body exceeds %d bytes", tooBig.Limit), http.StatusRequestEntityTooLarge)
		return nil, false
	case err != nil:
		http.Error(w, "failed to read body", http.StatusBadRequest)
		return nil, false
	}
	return data, true
}

// begin marks a request on session id as begun; the returned func marks
// it ended.
func (h *HTTPHandler) begin(id string) (end func()) {
	h.mu.Lock()
	u := h.use[id]
	if u == nil {
		if len(h.use) >= 2*h.maxSessions {
			h.forgetEndedLocked() // ids of ended or unknown sessions
		}
		u = &sessionUse{}
		h.use[id] = u
	}
	u.open++
	u.last = time.Now()
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		u.open--
		u.last = time.Now()
		h.mu.Unlock()
	}
}

// makeRoom ends the session idle longest when the sessions kept are at
// the limit, before a POST that may open one; false when all of them are
// in use, so there is no room.
func (h *HTTPHandler) makeRoom() bool {
	var live []*mcp.ServerSession
	for ss := range h.server.Sessions() {
		live = append(live, ss)
	}
	if len(live) < h.maxSessions {
		return true
	}
	now := time.Now()
	h.mu.Lock()
	var (
		idlest *mcp.ServerSession
		since  time.Time
	)
	for _, ss := range live {
		u := h.use[ss.ID()]
		if u == nil { // not seen yet (still opening): as fresh as can be
			u = &sessionUse{last: now}
			h.use[ss.ID()] = u
		}
		if u.open == 0 && (idlest == nil || u.last.Before(since)) {
			idlest, since = ss, u.last
		}
	}
	h.mu.Unlock()
	if idlest == nil {
		return false
	}
	h.mirror.endSession(idlest) // the SDK forgets it: its client gets 404
	return true
}

// forgetEndedLocked drops what is known of sessions that are not live.
func (h *HTTPHandler) forgetEndedLocked() {
	live := map[string]bool{}
	for ss := range h.server.Sessions() {
		live[ss.ID()] = true
	}
	for id, u := range h.use {
		if !live[id] && u.open == 0 {
			delete(h.use, id)
		}
	}
}

// cancelCalls sends the session, as its client would have,
// notifications/cancelled for each call the POST body carried. One
// already answered is not in flight any more, and the SDK ignores it.
func (h *HTTPHandler) cancelCalls(r *http.Request, body []byte) {
	for _, id := range callIDs(body) {
		note := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"the client closed its request"}}`, id)
		req, err := http.NewRequestWithContext(context.WithoutCancel(r.Context()), http.MethodPost, r.URL.String(), bytes.NewReader(note))
		if err != nil {
			return
		}
		for _, k := range []string{sessionIDHeader, protocolVersionHeader} {
			req.Header[k] = r.Header.Values(k)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		h.sdk.ServeHTTP(discard{header: http.Header{}}, req)
	}
}

// callIDs are the ids of the calls in a POST body: one message or a batch.
func callIDs(body []byte) []json.RawMessage {
	type message struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	var msgs []message
	if json.Unmarshal(body, &msgs) != nil {
		var one message
		if json.Unmarshal(body, &one) != nil {
			return nil
		}
		msgs = []message{one}
	}
	var ids []json.RawMessage
	for _, m := range msgs {
		if m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

// discard is the ResponseWriter of a request made here, whose answer
// (202) nobody reads.
type discard struct{ header http.Header }

func (d discard) Header() http.Header         { return d.header }
func (d discard) Write(p []byte) (int, error) { return len(p), nil }
func (d discard) WriteHeader(int)             {}

// Close ends every session (Core shutting down): their calls are
// cancelled and their streams end.
func (h *HTTPHandler) Close() {
	var wg sync.WaitGroup
	for ss := range h.server.Sessions() {
		wg.Go(func() { h.mirror.endSession(ss) })
	}
	wg.Wait()
}

// session is the live session with id, nil if none.
func (h *HTTPHandler) session(id string) *mcp.ServerSession {
	for ss := range h.server.Sessions() {
		if ss.ID() == id {
			return ss
		}
	}
	return nil
}
