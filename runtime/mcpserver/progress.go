package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/kaoruisaac/pedelec/runtime/agentserver"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// callWatched is CallTool with the handler's progress passed to progress
// (at most four reports a second, the latest winning) while the call
// runs: MCP clients that sent a progressToken get them as
// notifications/progress (runtime/mcpbridge/progress.go). progress may be
// nil.
func (m *Server) callWatched(ctx context.Context, sessionID, tool string, args json.RawMessage, progress func(wire.Progress)) (json.RawMessage, error) {
	if progress == nil {
		return m.CallTool(ctx, sessionID, tool, args)
	}
	s, err := m.externalSession(sessionID)
	if err != nil {
		return nil, err
	}
	return s.CallToolReporting(ctx, tool, args, progress)
}

// serveCallStream is serveCall for a bridge that asked for progress
// ("stream": true): the answer is NDJSON, as on the agent endpoint.
func (m *Server) serveCallStream(w http.ResponseWriter, r *http.Request, req wire.MCPCallRequest) {
	sw := agentserver.NewStream(w)
	sw.Finish(m.Answer(r.Context(), req.SessionID, req.Tool, req.Args, sw.Progress))
}

// externalSession is the mcp session sessionID: an MCP client may call
// only those (another session's tools belong to its own agent).
func (m *Server) externalSession(sessionID string) (*session.Session, error) {
	s, werr := m.Sessions.Get(sessionID)
	if werr != nil {
		return nil, werr
	}
	if !s.External() {
		return nil, wire.Errorf(wire.CodeThreadAccessDenied, "session %s is not an mcp session; its tools belong to its own agent", sessionID).
			WithDetails(map[string]any{"sessionId": sessionID})
	}
	return s, nil
}
