package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"

	"github.com/kaoruisaac/pedelec/runtime/mcpbridge"
	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The per-session MCP endpoints that a session names to its agent
// (runtime/session's mcp.go):
// one mcpbridge server per session, made on the agent's first request,
// closed when the session ends.

// sessionEndpoints are the live sessions' MCP endpoints.
type sessionEndpoints struct {
	// mu asks a session whether it has ended, and Core whether it is
	// closing, under it (both take no lock of this package's and return
	// at once); it is never held while mcpbridge is called. A
	// sessionEndpoint's mu and hub.mu are leaves.
	mu   sync.Mutex
	byID map[string]*sessionEndpoint
}

// sessionEndpoint is one session's MCP server and what its watchers wait on.
type sessionEndpoint struct {
	mirror *mcpbridge.Mirror
	http   *mcpbridge.HTTPHandler
	done   chan struct{} // closed when the endpoint closes

	mu      sync.Mutex // a leaf
	version int64      // grows with every change of the session's tools
	changed chan struct{}
	closed  bool
}

// endpoint is s's endpoint, made on first use; nil once s has ended.
func (m *Server) endpoint(s *session.Session) *sessionEndpoint {
	reg := &m.endpoints
	reg.mu.Lock()
	ep := reg.byID[s.ID()]
	reg.mu.Unlock()
	if ep != nil {
		return ep
	}
	// Made outside the lock: mcpbridge is never called under it.
	fresh := m.newSessionEndpoint(s)
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if ep = reg.byID[s.ID()]; ep != nil {
		return ep // another request made it first; fresh has no client yet
	}
	if s.Ended() || m.Sessions.Closing() {
		// End (or Shutdown) has run, or will find nothing here: an
		// endpoint kept now would outlive the session.
		return nil
	}
	if reg.byID == nil {
		reg.byID = map[string]*sessionEndpoint{}
	}
	reg.byID[s.ID()] = fresh
	return fresh
}

func (m *Server) newSessionEndpoint(s *session.Session) *sessionEndpoint {
	// The handler's ctx.progress reaches a client that sent a progress
	// token. The session is held here, not looked up per call, so a call
	// racing the session's end gets SESSION_ENDED from the broker.
	call := func(ctx context.Context, _, tool string, args json.RawMessage, progress func(wire.Progress)) wire.AgentResult {
		return s.Call(ctx, session.CallRequest{Tool: tool, Args: args, For: session.ForMCP, Progress: progress})
	}
	mirror := mcpbridge.NewMirror(m.Version, call, mcpbridge.Options{Logger: m.Log.With("session", s.ID()), Instructions: mcpbridge.SessionInstructions})
	ep := &sessionEndpoint{mirror: mirror, http: mcpbridge.NewHTTPHandler(mirror, m.MaxMessageBytes),
		done: make(chan struct{}), changed: make(chan struct{})}
	mirror.Update(m.sessionSnapshot(s, 0))
	return ep
}

// sessionSnapshot is s alone, its tools under their own names.
func (m *Server) sessionSnapshot(s *session.Session, version int64) wire.MCPSnapshot {
	return wire.MCPSnapshot{Core: m.hub.id, Version: version, Sessions: []wire.MCPSession{m.sessionOf(s, 1)}}
}

// state is the endpoint's version and what closes when it changes.
func (ep *sessionEndpoint) state() (version int64, changed <-chan struct{}, closed bool) {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return ep.version, ep.changed, ep.closed
}

// bump records a change of the tools and wakes the long-polls.
func (ep *sessionEndpoint) bump() {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	ep.version++
	close(ep.changed)
	ep.changed = make(chan struct{})
}

// close ends every MCP session of the endpoint (their calls cancelled,
// their streams closed) and wakes the long-polls, once.
func (ep *sessionEndpoint) close() {
	ep.mu.Lock()
	if ep.closed {
		ep.mu.Unlock()
		return
	}
	ep.closed = true
	close(ep.done)
	ep.mu.Unlock()
	ep.http.Close()
}

// ToolsChanged updates s's endpoint to s's tools: the MCP SDK
// sends notifications/tools/list_changed to every client, and `pedelec
// mcp` serving s hears it on its long-poll. Whatever changes a session's
// tools calls it after the change, without holding s.mu.
func (m *Server) ToolsChanged(s *session.Session) {
	m.endpoints.mu.Lock()
	ep := m.endpoints.byID[s.ID()]
	m.endpoints.mu.Unlock()
	if ep == nil {
		return // no client yet: the first one lists the tools as they are
	}
	ep.bump()
	version, _, _ := ep.state()
	ep.mirror.Update(m.sessionSnapshot(s, version))
}

// sessionEnded closes s's endpoint; s has ended.
func (m *Server) sessionEnded(s *session.Session) {
	m.endpoints.mu.Lock()
	ep := m.endpoints.byID[s.ID()]
	delete(m.endpoints.byID, s.ID())
	m.endpoints.mu.Unlock()
	if ep != nil {
		ep.close()
	}
}

// closeSessionEndpoints closes every endpoint: Core is stopping. The
// sessions live on for the next Core, whose agents get new secrets and URLs.
func (m *Server) closeSessionEndpoints() {
	m.endpoints.mu.Lock()
	all := m.endpoints.byID
	m.endpoints.byID = nil
	m.endpoints.mu.Unlock()
	var wg sync.WaitGroup
	for _, ep := range all {
		wg.Go(ep.close)
	}
	wg.Wait()
}

// mountSessionEndpoints adds the per-session endpoints. Like every route they
// sit behind the Host check and the peer check (same user only); not
// behind the agent-process check of the approval endpoints, since their
// caller is the agent.
func (m *Server) mountSessionEndpoints(mux *http.ServeMux) {
	for _, method := range []string{"GET", "POST", "DELETE"} { // the Streamable HTTP transport's three
		mux.HandleFunc(method+" "+wire.MCPSessionPath+"{id}", m.serveSessionMCP)
	}
	mux.HandleFunc("GET "+wire.MCPSessionToolsPath, m.serveSessionMCPTools)
	context.AfterFunc(m.ctx, m.closeSessionEndpoints)
}

// sessionMCPAccess checks a request to session id's endpoint and returns
// the session, or writes the refusal: a browser Origin (403
// ORIGIN_NOT_ALLOWED), a missing or wrong secret, another session's, the
// Core token or an unknown id (401 THREAD_ACCESS_DENIED, one answer for
// all, so ids cannot be probed), an ended session (404 SESSION_ENDED).
func (m *Server) sessionMCPAccess(w http.ResponseWriter, r *http.Request, id string) (*session.Session, bool) {
	if origin := r.Header.Get("Origin"); origin != "" {
		// No page has any business here, not even Core's own: the secret
		// is the agent's, and MCP's DNS-rebinding rule is to refuse.
		m.Refusals.Note("session-mcp-origin", origin, "refused a browser request to a session's MCP endpoint", "origin", origin, "path", r.URL.Path)
		wire.WriteJSON(w, http.StatusForbidden, wire.AgentResult{Error: wire.Errorf(wire.CodeOriginNotAllowed,
			"origin %s may not use a session's MCP endpoint: it is for the session's agent, which sends no Origin", origin)})
		return nil, false
	}
	secret, bearer := wire.BearerToken(r)
	s, err := m.Sessions.AgentSession(id, secret, bearer)
	if err == nil {
		return s, true
	}
	werr := wire.AsError(err)
	status := http.StatusUnauthorized
	switch werr.Code {
	case wire.CodeSessionEnded:
		status = http.StatusNotFound
	case wire.CodeThreadAccessDenied:
		w.Header().Set("WWW-Authenticate", `Bearer realm="pedelec-session"`)
	default:
		status = http.StatusBadRequest
	}
	wire.WriteJSON(w, status, wire.AgentResult{Error: werr})
	return nil, false
}

// sessionEnded writes the answer for a session that ended while the
// request was being let in.
func sessionEnded(w http.ResponseWriter, id string) {
	wire.WriteJSON(w, http.StatusNotFound, wire.AgentResult{Error: wire.Errorf(wire.CodeSessionEnded, "session %s has ended", id)})
}

// serveSessionMCP is the Streamable HTTP endpoint of one session.
func (m *Server) serveSessionMCP(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s, ok := m.sessionMCPAccess(w, r, id)
	if !ok {
		return
	}
	ep := m.endpoint(s)
	if ep == nil {
		sessionEnded(w, id)
		return
	}
	// The session's end or Core stopping ends the request: an open
	// notification stream, a POST waiting on a call.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stopCore := context.AfterFunc(m.ctx, cancel)
	defer stopCore()
	go func() {
		select {
		case <-ep.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	ep.http.ServeHTTP(w, r.WithContext(ctx))
	if _, _, closed := ep.state(); closed {
		// An MCP session opened as the endpoint closed would outlive it.
		ep.http.Close()
	}
}

// serveSessionMCPTools answers the long-poll of `pedelec mcp` serving one
// session: the session's tools as soon as they differ from the version
// the caller has (?core=&after=), or after mcpLongPoll; SESSION_ENDED
// (404) as soon as the session ends.
func (m *Server) serveSessionMCPTools(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id := q.Get("thread")
	s, ok := m.sessionMCPAccess(w, r, id)
	if !ok {
		return
	}
	ep := m.endpoint(s)
	if ep == nil {
		sessionEnded(w, id)
		return
	}
	after, _ := strconv.ParseInt(q.Get("after"), 10, 64)
	ctx, cancel := context.WithTimeout(r.Context(), mcpLongPoll)
	defer cancel()
	for {
		version, changed, closed := ep.state()
		if closed {
			sessionEnded(w, id)
			return
		}
		if q.Get("core") != m.hub.id || version != after {
			wire.WriteJSON(w, http.StatusOK, m.sessionSnapshot(s, version))
			return
		}
		select {
		case <-changed:
		case <-ep.done:
		case <-ctx.Done():
			wire.WriteJSON(w, http.StatusOK, m.sessionSnapshot(s, version))
			return
		case <-m.ctx.Done():
			wire.WriteJSON(w, http.StatusOK, m.sessionSnapshot(s, version))
			return
		}
	}
}

// Endpoints is how many sessions' endpoints are open.
func (m *Server) Endpoints() int {
	m.endpoints.mu.Lock()
	defer m.endpoints.mu.Unlock()
	return len(m.endpoints.byID)
}

// OpenEndpoint makes s's endpoint as its agent's first request would; it
// reports false once s has ended.
func (m *Server) OpenEndpoint(s *session.Session) bool { return m.endpoint(s) != nil }

// ID is this Core process's id in the snapshots MCP watchers get.
func (m *Server) ID() string { return m.hub.id }
