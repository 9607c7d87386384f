package runtime

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/kaoruisaac/pedelec/runtime/callprogress"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// callMCPWatched is CallMCPTool with the handler's progress passed to
// progress (at most four reports a second, the latest winning) while the
// call runs: MCP clients that sent a progressToken get them as
// notifications/progress (runtime/mcpbridge/progress.go). progress may be
// nil.
func (c *Core) callMCPWatched(ctx context.Context, sessionID, tool string, args json.RawMessage, progress func(wire.Progress)) (json.RawMessage, error) {
	if progress == nil {
		return c.CallMCPTool(ctx, sessionID, tool, args)
	}
	s, err := c.mcpSession(sessionID)
	if err != nil {
		return nil, err
	}
	return s.callToolReporting(ctx, tool, args, progress)
}

// callToolReporting is callTool with the handler's progress passed to
// progress while the call runs (at most four reports a second, the latest
// winning), and none after the result.
func (s *Session) callToolReporting(ctx context.Context, tool string, args json.RawMessage, progress func(wire.Progress)) (json.RawMessage, error) {
	if progress == nil {
		return s.callTool(ctx, tool, args)
	}
	w := &callWatch{box: callprogress.New()}
	pumpCtx, stop := context.WithCancel(ctx)
	pumped := make(chan struct{})
	go func() {
		defer close(pumped)
		callprogress.Pump(pumpCtx, w.box, callprogress.Every, progress)
	}()
	result, err := s.callToolWatched(ctx, tool, args, w)
	stop()
	<-pumped // no report after the result
	return result, err
}

// serveMCPCallStream is serveMCPCall for a bridge that asked for progress
// ("stream": true): the answer is NDJSON, as on the agent endpoint.
func (c *Core) serveMCPCallStream(w http.ResponseWriter, r *http.Request, req wire.MCPCallRequest) {
	sw := newStreamAnswer(w)
	sw.finish(c.AnswerMCPTool(r.Context(), req.SessionID, req.Tool, req.Args, sw.progress))
}

// mcpSession is the mcp session sessionID: an MCP client may call only
// those (another session's tools belong to its own agent).
func (c *Core) mcpSession(sessionID string) (*Session, error) {
	s, werr := c.session(sessionID)
	if werr != nil {
		return nil, werr
	}
	if !s.isExternal() {
		return nil, wire.Errorf(wire.CodeThreadAccessDenied, "session %s is not an mcp session; its tools belong to its own agent", sessionID).
			WithDetails(map[string]any{"sessionId": sessionID})
	}
	return s, nil
}
