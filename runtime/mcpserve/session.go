package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
)

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

// handle answers one message, as parseMessage read it (perr its error): the
// transport parses each message once, to decide whether it may run beside
// the next ones. It returns the response to send, or nil (notifications,
// responses, calls the client cancelled).
func (ss *Session) handle(ctx context.Context, m *message, perr *Error) []byte {
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
