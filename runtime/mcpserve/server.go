package mcpserve

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"sort"
	"sync"
	"time"
)

// ToolFunc runs one tools/call. ctx ends when the client cancels the call
// (notifications/cancelled), goes away, or the session ends.
type ToolFunc func(ctx context.Context, args json.RawMessage) *CallToolResult

// Server is an MCP server that offers tools, hand-written on the standard
// library (docs/decisions.md says why). Transports (stdio.go,
// streamable_http.go) feed it messages through Sessions.
type Server struct {
	info         Implementation
	instructions string

	mu       sync.Mutex
	tools    map[string]serverTool
	sessions map[*Session]struct{}
	pending  *time.Timer // the debounced list_changed, if one is due
}

type serverTool struct {
	tool Tool
	call ToolFunc
}

// pageSize is how many tools one tools/list page holds (the go-sdk's
// default), so a client that pages gets the same pages as before.
const pageSize = 1000

// listChangedDelay coalesces a burst of tool changes (a page's tools are
// removed and added one Update) into one notification, as the go-sdk did.
const listChangedDelay = 10 * time.Millisecond

// NewServer makes a server with no tools.
func NewServer(info Implementation, instructions string) *Server {
	return &Server{info: info, instructions: instructions, tools: map[string]serverTool{}, sessions: map[*Session]struct{}{}}
}

// AddTool adds (or replaces) a tool, and tells connected clients.
func (s *Server) AddTool(t Tool, call ToolFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tools[t.Name] = serverTool{tool: t, call: call}
	s.changedLocked()
}

// RemoveTools removes tools by name, and tells connected clients if any was
// there.
func (s *Server) RemoveTools(names ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	removed := false
	for _, name := range names {
		if _, ok := s.tools[name]; ok {
			delete(s.tools, name)
			removed = true
		}
	}
	if removed {
		s.changedLocked()
	}
}

func (s *Server) changedLocked() {
	if len(s.sessions) == 0 {
		return // nobody to tell; a client that connects later lists anyway
	}
	if s.pending != nil {
		s.pending.Reset(listChangedDelay)
		return
	}
	s.pending = time.AfterFunc(listChangedDelay, s.notifyListChanged)
}

func (s *Server) notifyListChanged() {
	s.mu.Lock()
	s.pending = nil
	sessions := make([]*Session, 0, len(s.sessions))
	for ss := range s.sessions {
		sessions = append(sessions, ss)
	}
	s.mu.Unlock()
	msg := encodeNotification(notificationToolsChanged, nil)
	for _, ss := range sessions {
		if ss.initialized() {
			ss.notify(msg)
		}
	}
}

// listTools returns one page of tools, sorted by name. The cursor is the
// last name of the previous page, opaque to the client.
func (s *Server) listTools(cursor string) (*listToolsResult, error) {
	after := ""
	if cursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil || len(raw) == 0 {
			return nil, errorf(CodeInvalidParams, "invalid cursor %q", cursor)
		}
		after = string(raw)
	}
	s.mu.Lock()
	names := make([]string, 0, len(s.tools))
	for name := range s.tools {
		if name > after {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	res := &listToolsResult{Tools: []Tool{}} // [] rather than null
	for i, name := range names {
		if i == pageSize {
			res.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(res.Tools[i-1].Name))
			break
		}
		res.Tools = append(res.Tools, s.tools[name].tool)
	}
	s.mu.Unlock()
	return res, nil
}

func (s *Server) tool(name string) (serverTool, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tools[name]
	return t, ok
}

// Session is one client's connection: its negotiated version and its calls
// in flight. notify delivers a server notification to the client (a
// transport may drop it when it has nowhere to send it).
type Session struct {
	srv    *Server
	notify func([]byte)

	mu      sync.Mutex
	version string // negotiated by initialize; "" before
	calls   map[string]context.CancelCauseFunc
	closed  bool
}

// errCancelledByClient is the cause of a call's ctx ending through
// notifications/cancelled: the spec says no response is sent then.
var errCancelledByClient = errors.New("the client cancelled the request")

// errSessionClosed ends the calls of a session that closes.
var errSessionClosed = errors.New("the MCP session ended")

// NewSession starts a session; Close it when the connection ends.
func (s *Server) NewSession(notify func([]byte)) *Session {
	ss := &Session{srv: s, notify: notify, calls: map[string]context.CancelCauseFunc{}}
	s.mu.Lock()
	s.sessions[ss] = struct{}{}
	s.mu.Unlock()
	return ss
}

// Close ends the session and cancels its calls in flight.
func (ss *Session) Close() {
	ss.srv.mu.Lock()
	delete(ss.srv.sessions, ss)
	ss.srv.mu.Unlock()
	ss.mu.Lock()
	ss.closed = true
	for _, cancel := range ss.calls {
		cancel(errSessionClosed)
	}
	ss.mu.Unlock()
}

func (ss *Session) initialized() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.version != ""
}

// Version is the negotiated protocol version, "" before initialize.
func (ss *Session) Version() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.version
}

// handle answers one message; it returns the response to send, or nil
// (notifications, responses, calls the client cancelled). Calls may run
// concurrently; the transport decides.
func (ss *Session) handle(ctx context.Context, raw json.RawMessage) []byte {
	m, perr := parseMessage(raw)
	if perr != nil {
		return encodeResponse(m.ID, nil, perr)
	}
	if m.Method == "" {
		return nil // a response to a request this server never sends
	}
	if m.isNotification() {
		ss.notification(m)
		return nil
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return encodeResponse(m.ID, nil, errorf(CodeInvalidRequest, "the session has ended"))
	}
	if _, dup := ss.calls[m.idKey()]; dup {
		ss.mu.Unlock()
		return encodeResponse(m.ID, nil, errorf(CodeInvalidRequest, "request id %s is already in flight", m.ID))
	}
	ss.calls[m.idKey()] = cancel
	ss.mu.Unlock()
	defer func() {
		ss.mu.Lock()
		delete(ss.calls, m.idKey())
		ss.mu.Unlock()
	}()

	result, err := ss.call(ctx, m)
	if errors.Is(context.Cause(ctx), errCancelledByClient) {
		return nil
	}
	return encodeResponse(m.ID, result, err)
}

// call runs one request's method.
func (ss *Session) call(ctx context.Context, m *message) (any, error) {
	switch m.Method {
	case methodInitialize:
		return ss.initialize(m.Params)
	case methodPing:
		return struct{}{}, nil
	case methodToolsList, methodToolsCall:
	default:
		return nil, errorf(CodeMethodNotFound, "method %q not found", m.Method)
	}
	if !ss.initialized() {
		return nil, errorf(CodeInvalidRequest, "method %q is invalid before initialize", m.Method)
	}
	if m.Method == methodToolsList {
		var p listToolsParams
		if err := decodeParams(m.Params, &p, false); err != nil {
			return nil, err
		}
		return ss.srv.listTools(p.Cursor)
	}
	var p callToolParams
	if err := decodeParams(m.Params, &p, true); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, errorf(CodeInvalidParams, `tools/call needs "name"`)
	}
	t, ok := ss.srv.tool(p.Name)
	if !ok {
		return nil, errorf(CodeInvalidParams, "unknown tool %q", p.Name)
	}
	res := t.call(ctx, p.Arguments)
	if res.Content == nil {
		res.Content = []Content{} // [] rather than null
	}
	return res, nil
}

func (ss *Session) initialize(params json.RawMessage) (any, error) {
	var p initializeParams
	if err := decodeParams(params, &p, true); err != nil {
		return nil, err
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.version != "" {
		return nil, errorf(CodeInvalidRequest, "duplicate initialize")
	}
	ss.version = negotiate(p.ProtocolVersion)
	res := &initializeResult{Instructions: ss.srv.instructions, ProtocolVersion: ss.version, ServerInfo: ss.srv.info}
	res.Capabilities.Tools.ListChanged = true
	return res, nil
}

// notification handles a client notification. Unknown ones are ignored,
// as JSON-RPC wants (nobody hears an error).
func (ss *Session) notification(m *message) {
	if m.Method != notificationCancelled {
		return // notifications/initialized and the rest need nothing
	}
	var p cancelledParams
	if json.Unmarshal(m.Params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	ss.mu.Lock()
	cancel := ss.calls[string(p.RequestID)]
	ss.mu.Unlock()
	if cancel != nil {
		cancel(errCancelledByClient)
	}
}

// decodeParams unmarshals a request's params into v: a JSON object, or
// absent when !required.
func decodeParams(params json.RawMessage, v any, required bool) error {
	if len(params) == 0 || string(params) == "null" {
		if required {
			return errorf(CodeInvalidParams, `"params" must be provided`)
		}
		return nil
	}
	if err := json.Unmarshal(params, v); err != nil {
		return errorf(CodeInvalidParams, "invalid params: %v", err)
	}
	return nil
}
