package mcpserve

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// MCP's Streamable HTTP transport (revisions 2025-03-26 to 2025-11-25),
// server side, stateful, as the go-sdk's StreamableHTTPHandler served it:
//
//   - POST carries client messages. Without Mcp-Session-Id it opens a
//     session, kept (and its id returned in Mcp-Session-Id) when it holds a
//     successful initialize. Calls are answered on a text/event-stream, one
//     event per answer, closed when all are answered; a POST of only
//     notifications or responses gets 202 Accepted.
//   - GET opens the session's stream for server notifications
//     (notifications/tools/list_changed). While none is open they are
//     dropped: a client lists again when it connects.
//   - DELETE ends the session and cancels its calls.
//
// Left out, as the go-sdk without an EventStore: resuming a stream with
// Last-Event-ID (400). Left out, as not needed by a server that sends no
// requests: server-to-client requests.
//
// A client that goes away without DELETE leaves its session behind, so
// their number is bounded: past maxHTTPSessions, opening one ends the
// session idle longest (no request or stream open). Its client gets 404
// on its next request, which the spec answers by initializing again.
type StreamableHTTP struct {
	srv         *Server
	maxBody     int64
	maxSessions int

	mu       sync.Mutex
	sessions map[string]*httpSession
}

// maxHTTPSessions bounds the MCP sessions kept over HTTP: far above the
// MCP clients one user runs at once.
const maxHTTPSessions = 256

const (
	sessionIDHeader       = "Mcp-Session-Id"
	protocolVersionHeader = "Mcp-Protocol-Version"
	lastEventIDHeader     = "Last-Event-Id"
)

// httpSession is one Mcp-Session-Id's session and its GET stream.
type httpSession struct {
	id      string
	ss      *Session
	done    chan struct{} // closed when the session ends
	endOnce sync.Once

	mu       sync.Mutex
	listener chan []byte // the open GET stream, nil if none
	open     int         // requests in progress, the GET stream included
	lastUsed time.Time   // when the last request began or ended
}

// use marks a request on the session as begun; the returned func marks
// it ended.
func (hs *httpSession) use() (done func()) {
	hs.mu.Lock()
	hs.open++
	hs.lastUsed = time.Now()
	hs.mu.Unlock()
	return func() {
		hs.mu.Lock()
		hs.open--
		hs.lastUsed = time.Now()
		hs.mu.Unlock()
	}
}

// idleSince is when the session last had a request open; ok is false
// while one is.
func (hs *httpSession) idleSince() (since time.Time, ok bool) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.lastUsed, hs.open == 0
}

// NewStreamableHTTP serves s over Streamable HTTP. A POST body larger than
// maxBody bytes (if > 0) is refused with 413.
func NewStreamableHTTP(s *Server, maxBody int64) *StreamableHTTP {
	return &StreamableHTTP{srv: s, maxBody: maxBody, maxSessions: maxHTTPSessions, sessions: map[string]*httpSession{}}
}

func (h *StreamableHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		h.servePOST(w, r)
	case http.MethodGet:
		h.serveGET(w, r)
	case http.MethodDelete:
		h.serveDELETE(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

// newSession opens a session for the request at hand, marked in use until
// that request calls done.
func (h *StreamableHTTP) newSession() (hs *httpSession, done func()) {
	hs = &httpSession{id: rand.Text(), done: make(chan struct{})}
	done = hs.use() // before others can see it, so it is not the one evicted
	hs.ss = h.srv.NewSession(hs.deliver)
	h.mu.Lock()
	var evict *httpSession
	if len(h.sessions) >= h.maxSessions {
		evict = h.idlest()
	}
	h.sessions[hs.id] = hs
	h.mu.Unlock()
	if evict != nil {
		h.end(evict)
	}
	return hs, done
}

// idlest is the session idle longest, nil if every one is in use. h.mu
// is held.
func (h *StreamableHTTP) idlest() *httpSession {
	var (
		oldest *httpSession
		at     time.Time
	)
	for _, hs := range h.sessions {
		if since, idle := hs.idleSince(); idle && (oldest == nil || since.Before(at)) {
			oldest, at = hs, since
		}
	}
	return oldest
}

// session finds the session r names; on failure it has answered r.
func (h *StreamableHTTP) session(w http.ResponseWriter, r *http.Request) (*httpSession, bool) {
	id := r.Header.Get(sessionIDHeader)
	if id == "" {
		http.Error(w, "Bad Request: "+r.Method+" requires an Mcp-Session-Id header", http.StatusBadRequest)
		return nil, false
	}
	h.mu.Lock()
	hs := h.sessions[id]
	h.mu.Unlock()
	if hs == nil { // the spec's answer for an ended or unknown session
		http.Error(w, "session not found", http.StatusNotFound)
		return nil, false
	}
	return hs, true
}

func (h *StreamableHTTP) end(hs *httpSession) {
	hs.endOnce.Do(func() {
		h.mu.Lock()
		delete(h.sessions, hs.id)
		h.mu.Unlock()
		hs.ss.Close()
		close(hs.done)
	})
}

// deliver hands a server notification to the open GET stream, if any.
func (hs *httpSession) deliver(msg []byte) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.listener == nil {
		return
	}
	select {
	case hs.listener <- msg:
	default: // a client this far behind gets the next list_changed
	}
}

// checkVersionHeader refuses a MCP-Protocol-Version this server does not
// speak. A stateless revision (2026-07-28 on) gets the JSON-RPC error that
// lists the ones it does, so the client falls back to initialize.
func checkVersionHeader(w http.ResponseWriter, r *http.Request, id json.RawMessage) bool {
	v := r.Header.Get(protocolVersionHeader)
	if v == "" || slices.Contains(protocolVersions, v) {
		return true
	}
	if v >= firstStatelessVersion && r.Method == http.MethodPost {
		data, _ := json.Marshal(unsupportedVersionData{Supported: protocolVersions, Requested: v})
		writeRPCError(w, http.StatusBadRequest, id, &Error{Code: CodeUnsupportedProtocolVersion,
			Message: fmt.Sprintf("protocol version %q is not supported by this server", v), Data: data})
		return false
	}
	http.Error(w, fmt.Sprintf("Bad Request: Unsupported protocol version (supported versions: %s)", strings.Join(protocolVersions, ",")), http.StatusBadRequest)
	return false
}

func (h *StreamableHTTP) servePOST(w http.ResponseWriter, r *http.Request) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		http.Error(w, "Content-Type must be 'application/json'", http.StatusUnsupportedMediaType)
		return
	}
	if jsonOK, sseOK := accepts(r.Header.Values("Accept")); !jsonOK || !sseOK {
		http.Error(w, "Accept must contain both 'application/json' and 'text/event-stream'", http.StatusBadRequest)
		return
	}
	if r.Header.Get(lastEventIDHeader) != "" {
		http.Error(w, "can't send Last-Event-ID for POST request", http.StatusBadRequest)
		return
	}
	var hs *httpSession
	if r.Header.Get(sessionIDHeader) != "" {
		var ok bool
		if hs, ok = h.session(w, r); !ok {
			return
		}
		defer hs.use()()
	}
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	msgs, batch, perr := splitPayload(body)
	if perr != nil {
		writeRPCError(w, http.StatusBadRequest, nil, perr)
		return
	}
	parsed := make([]*message, len(msgs))
	for i, raw := range msgs {
		m, err := parseMessage(raw)
		if err != nil {
			writeRPCError(w, http.StatusBadRequest, m.ID, err)
			return
		}
		parsed[i] = m
	}
	if !checkVersionHeader(w, r, parsed[0].ID) {
		return
	}
	if v := cmpVersion(r.Header.Get(protocolVersionHeader)); batch && v >= noBatchesSince {
		http.Error(w, fmt.Sprintf("JSON-RPC batching is not supported in %s and later (request version: %s)", noBatchesSince, v), http.StatusBadRequest)
		return
	}

	initialize := slices.ContainsFunc(parsed, func(m *message) bool { return m.Method == methodInitialize })
	if hs == nil {
		// A session for this POST; kept only if it initializes (a client
		// probing with server/discover or ping leaves nothing behind).
		var done func()
		hs, done = h.newSession()
		defer done()
		defer func() {
			if !hs.ss.initialized() {
				h.end(hs)
			}
		}()
	}
	if !slices.ContainsFunc(parsed, (*message).isCall) {
		for _, m := range parsed {
			hs.ss.handle(r.Context(), m, nil)
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}

	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Connection", "keep-alive")
	if initialize {
		w.Header().Set(sessionIDHeader, hs.id)
	}
	w.WriteHeader(http.StatusOK)
	var (
		mu     sync.Mutex
		wg     sync.WaitGroup
		budget batchBudget
	)
	send := func(id json.RawMessage, answer []byte) {
		answer = budget.fit(id, answer)
		if answer == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		writeEvent(w, answer)
	}
	// The calls end with the POST (the client gone, Core stopping) or the
	// session (DELETE).
	for _, m := range parsed {
		if !m.concurrent() {
			send(m.ID, hs.ss.handle(r.Context(), m, nil))
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			send(m.ID, hs.ss.handle(r.Context(), m, nil))
		}()
	}
	wg.Wait()
}

func (h *StreamableHTTP) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
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
	case len(bytes.TrimSpace(data)) == 0:
		http.Error(w, "POST requires a non-empty body", http.StatusBadRequest)
		return nil, false
	}
	return data, true
}

func (h *StreamableHTTP) serveGET(w http.ResponseWriter, r *http.Request) {
	if _, sseOK := accepts(r.Header.Values("Accept")); !sseOK {
		http.Error(w, "Accept must contain 'text/event-stream' for GET requests", http.StatusBadRequest)
		return
	}
	if !checkVersionHeader(w, r, nil) {
		return
	}
	hs, ok := h.session(w, r)
	if !ok {
		return
	}
	if r.Header.Get(lastEventIDHeader) != "" { // no event store: nothing to replay
		http.Error(w, "stream replay unsupported", http.StatusBadRequest)
		return
	}
	defer hs.use()()
	listener := make(chan []byte, 16)
	hs.mu.Lock()
	busy := hs.listener != nil
	if !busy {
		hs.listener = listener
	}
	hs.mu.Unlock()
	if busy {
		http.Error(w, "stream ID conflicts with ongoing stream", http.StatusConflict)
		return
	}
	defer func() {
		hs.mu.Lock()
		hs.listener = nil
		hs.mu.Unlock()
	}()

	w.Header().Set("Cache-Control", "no-cache, no-transform")
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	// A comment, so the headers leave now even through a buffering proxy.
	fmt.Fprint(w, ": ok\n\n")
	_ = http.NewResponseController(w).Flush()
	for {
		select {
		case msg := <-listener:
			if writeEvent(w, msg) != nil {
				return
			}
		case <-r.Context().Done():
			return
		case <-hs.done:
			return
		}
	}
}

func (h *StreamableHTTP) serveDELETE(w http.ResponseWriter, r *http.Request) {
	if !checkVersionHeader(w, r, nil) {
		return
	}
	hs, ok := h.session(w, r)
	if !ok {
		return
	}
	h.end(hs)
	w.WriteHeader(http.StatusNoContent)
}

// Close ends every session (Core shutting down).
func (h *StreamableHTTP) Close() {
	h.mu.Lock()
	all := make([]*httpSession, 0, len(h.sessions))
	for _, hs := range h.sessions {
		all = append(all, hs)
	}
	h.mu.Unlock()
	for _, hs := range all {
		h.end(hs)
	}
}

// cmpVersion is the version a request speaks for the transport's rules:
// its header, else 2025-03-26 (a client that sends none predates the
// header, which came with 2025-06-18).
func cmpVersion(header string) string {
	if header == "" {
		return "2025-03-26"
	}
	return header
}

// writeEvent writes one SSE event and flushes it.
func writeEvent(w http.ResponseWriter, data []byte) error {
	var b bytes.Buffer
	b.Grow(len("event: message\ndata: \n\n") + len(data))
	b.WriteString("event: message\ndata: ")
	b.Write(data)
	b.WriteString("\n\n")
	if _, err := w.Write(b.Bytes()); err != nil {
		return err
	}
	return http.NewResponseController(w).Flush()
}

func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, err *Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(encodeResponse(id, nil, err))
}

// accepts reads Accept headers as the go-sdk did: wildcards count.
func accepts(values []string) (jsonOK, sseOK bool) {
	for _, value := range values {
		for _, token := range strings.Split(value, ",") {
			base, _, _ := strings.Cut(token, ";")
			switch strings.ToLower(strings.TrimSpace(base)) {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				sseOK = true
			case "*/*":
				jsonOK, sseOK = true, true
			}
		}
	}
	return jsonOK, sseOK
}
