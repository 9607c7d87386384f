package mcpserver

import (
	"net/http"

	"github.com/kaoruisaac/pedelec/runtime/agentserver"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

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
