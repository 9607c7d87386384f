package page

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// handler runs one request. It returns the result or an error (any error:
// the response turns it into {code, message, details} with wire.AsError), and
// optionally a function to run after the response is queued (a turn to
// start, pending calls to re-deliver), so the page never sees a session's
// events before the answer that introduces them.
type handler func(ctx context.Context, c *conn, params json.RawMessage) (result any, then func(), err error)

// methods is the dispatch table: every method an approved page may call,
// in this one place (the origin gate's three, which any page may call,
// are answered before it: origin_gate.go). A new method is a line here
// and its handler, in the file of its concern.
var methods = map[string]handler{
	wire.MethodListProviders:     handleListProviders,
	wire.MethodCreateSession:     handleCreateSession,
	wire.MethodResumeSession:     handleResumeSession,
	wire.MethodPrepare:           handlePrepare,
	wire.MethodSendText:          handleSendText,
	wire.MethodSubmitToolResult:  handleSubmitToolResult,
	wire.MethodEndSession:        handleEndSession,
	wire.MethodToolProgress:      handleToolProgress,      // progress.go
	wire.MethodUpdateTools:       handleUpdateTools,       // tools.go
	wire.MethodListAssets:        handleListAssets,        // assets.go
	wire.MethodAssetUploadTicket: handleAssetUploadTicket, // assets.go
	wire.MethodAssetReadTicket:   handleAssetReadTicket,   // assets.go
}

// handleFrame checks one frame once (size, shape, method) and dispatches it.
func (c *conn) handleFrame(ctx context.Context, data []byte) { c.handleRequest(ctx, data, -1) }

// handleRequest is handleFrame for the frame at index of a batched message
// (frames.go), or alone when index < 0: an error about the frame
// itself names its index, so the page knows which one was wrong.
func (c *conn) handleRequest(ctx context.Context, data []byte, index int) {
	var req wire.Request
	if err := json.Unmarshal(data, &req); err != nil {
		c.respond(requestID(data), nil, atIndex(wire.Errorf(wire.CodeInvalidInput, "frame is not a JSON request: %w", err), index))
		return
	}
	if int64(len(data)) > c.srv.MaxMessageBytes {
		c.respond(req.ID, nil, wire.Errorf(wire.CodeMessageTooLarge, "frame is %d bytes; the limit is %d", len(data), c.srv.MaxMessageBytes).
			WithDetails(map[string]any{"size": len(data), "limit": c.srv.MaxMessageBytes}))
		return
	}
	if req.Type != wire.FrameRequest {
		c.respond(req.ID, nil, atIndex(wire.Errorf(wire.CodeInvalidInput, "frame type %q is not %q", req.Type, wire.FrameRequest), index))
		return
	}
	if c.gateRequest(ctx, req, index) {
		return
	}
	h, ok := methods[req.Method]
	if !ok {
		c.respond(req.ID, nil, atIndex(wire.Errorf(wire.CodeUnknownMethod, "unknown method %q", req.Method).
			WithDetails(map[string]any{"method": req.Method, "known": knownMethods()}), index))
		return
	}
	result, then, err := h(ctx, c, req.Params)
	c.respond(req.ID, result, err)
	if err == nil && then != nil {
		then()
	}
}

func knownMethods() []string {
	out := make([]string, 0, len(methods))
	for m := range methods {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// decode reads params into v, naming the field that is wrong.
func decode(params json.RawMessage, v any) error {
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	if err := json.Unmarshal(params, v); err != nil {
		msg := err.Error()
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			msg = "params." + ute.Field + ": expected " + ute.Type.String() + ", got JSON " + ute.Value
		}
		return wire.Errorf(wire.CodeInvalidInput, "%s", msg)
	}
	return nil
}

// sessionFor decodes params into p and returns the session they name,
// after the checks every session method shares, in order: params well
// formed, an id given, check (the method's own fields; may be nil), the
// session exists, and this connection's origin owns it.
func (c *conn) sessionFor(params json.RawMessage, p any, check func() error) (*session.Session, error) {
	if err := decode(params, p); err != nil {
		return nil, err
	}
	ref := wire.SessionParams{SessionID: sessionIDOf(p)}
	if ref.SessionID == "" {
		// A params type sessionIDOf does not know: read the id on its own.
		_ = json.Unmarshal(params, &ref) // decode above proved params well formed
	}
	if strings.TrimSpace(ref.SessionID) == "" {
		return nil, wire.Errorf(wire.CodeInvalidInput, "params.sessionId is required")
	}
	if check != nil {
		if err := check(); err != nil {
			return nil, err
		}
	}
	return c.srv.Sessions.ForOrigin(ref.SessionID, c.origin)
}

// sessionIDOf reads the id out of params already decoded, so a
// submit_tool_result's result is not parsed a second time for it.
func sessionIDOf(p any) string {
	switch p := p.(type) {
	case *wire.SessionParams:
		return p.SessionID
	case *wire.SendTextParams:
		return p.SessionID
	case *wire.SubmitToolResultParams:
		return p.SessionID
	case *wire.ToolProgressParams:
		return p.SessionID
	}
	return ""
}

func handleListProviders(ctx context.Context, c *conn, _ json.RawMessage) (any, func(), error) {
	reg := c.srv.Providers
	return wire.ListProvidersResult{Providers: reg.List(ctx), DefaultProvider: reg.Default(ctx)}, nil, nil
}

func handleCreateSession(ctx context.Context, c *conn, params json.RawMessage) (any, func(), error) {
	var p wire.CreateSessionParams
	if err := decode(params, &p); err != nil {
		return nil, nil, err
	}
	s, err := c.srv.Sessions.Create(ctx, c, p)
	if err != nil {
		return nil, nil, err
	}
	return s.Info(), nil, nil
}

func handleResumeSession(_ context.Context, c *conn, params json.RawMessage) (any, func(), error) {
	var p wire.ResumeSessionParams
	s, err := c.sessionFor(params, &p, func() error {
		if p.LastSeq != nil && *p.LastSeq < 0 {
			return wire.Errorf(wire.CodeInvalidInput, "params.lastSeq must be 0 or more (the last seq this page handled)")
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	// Not `return s.resume(...)`: a nil *session.SessionInfo in `any` is not a nil result.
	info, then, err := s.Resume(c, p.LastSeq, p.Redeliver)
	if err != nil {
		return nil, nil, err
	}
	return info, then, nil
}

func handlePrepare(ctx context.Context, c *conn, params json.RawMessage) (any, func(), error) {
	return startTurnRequest(c, params, true)
}

func handleSendText(ctx context.Context, c *conn, params json.RawMessage) (any, func(), error) {
	return startTurnRequest(c, params, false)
}

func startTurnRequest(c *conn, params json.RawMessage, warmup bool) (any, func(), error) {
	var p wire.SendTextParams
	// An empty text is a turn like any other, as the original SDK forwards
	// it: the agent gets the session's prompt with an empty user message
	// (CLIs read it from a closed stdin, so nothing waits for input).
	s, err := c.sessionFor(params, &p, nil)
	if err != nil {
		return nil, nil, err
	}
	started, run, err := s.StartTurn(p.Text, warmup)
	if err != nil {
		return nil, nil, err
	}
	return started, run, nil
}

func handleSubmitToolResult(_ context.Context, c *conn, params json.RawMessage) (any, func(), error) {
	var p wire.SubmitToolResultParams
	s, err := c.sessionFor(params, &p, func() error {
		if p.ToolRequestID == "" {
			return wire.Errorf(wire.CodeInvalidInput, "params.toolRequestId is required")
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return nil, nil, s.SubmitResult(p)
}

func handleEndSession(_ context.Context, c *conn, params json.RawMessage) (any, func(), error) {
	s, err := c.sessionFor(params, &wire.SessionParams{}, nil)
	if err != nil {
		return nil, nil, err
	}
	// Ending after the response is queued keeps the order: answer, then
	// the session's last status, done and ended events.
	return nil, func() { s.End(wire.EndedData{Reason: wire.EndReasonEndSession}) }, nil
}
