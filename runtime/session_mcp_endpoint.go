package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"

	"github.com/kaoruisaac/pedelec/runtime/mcpbridge"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The per-session MCP endpoints that sessionMCP (session_mcp.go) names:
// one mcpbridge server per session, made on the agent's first request,
// closed when the session ends.

// sessionMCPs are the live sessions' MCP endpoints.
type sessionMCPs struct {
	// mu comes before Session.mu (endpoint asks whether the session has
	// ended under it) and is never held while Core.mu is taken or
	// mcpbridge is called (core.go: the lock order).
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
func (c *Core) endpoint(s *Session) *sessionEndpoint {
	reg := &c.sessionMCPs
	reg.mu.Lock()
	ep := reg.byID[s.id]
	reg.mu.Unlock()
	if ep != nil {
		return ep
	}
	// Made outside the lock: mcpbridge is never called under Core's locks.
	fresh := c.newSessionEndpoint(s)
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if ep = reg.byID[s.id]; ep != nil {
		return ep // another request made it first; fresh has no client yet
	}
	if s.isEnded() || c.isClosing() {
		// End (or Shutdown) has run, or will find nothing here: an
		// endpoint kept now would outlive the session.
		return nil
	}
	if reg.byID == nil {
		reg.byID = map[string]*sessionEndpoint{}
	}
	reg.byID[s.id] = fresh
	return fresh
}

func (c *Core) newSessionEndpoint(s *Session) *sessionEndpoint {
	// The handler's ctx.progress reaches a client that sent a progress
	// token. The session is held here, not looked up per call, so a call
	// racing the session's end gets SESSION_ENDED from the broker.
	call := func(ctx context.Context, _, tool string, args json.RawMessage, progress func(wire.Progress)) (json.RawMessage, *wire.ResultFile, error) {
		result, err := s.callToolReporting(ctx, tool, args, progress)
		out := s.answer(tool, result, err) // a large result becomes a file here too
		if out.Error != nil {
			return nil, nil, out.Error
		}
		return out.Result, out.ResultFile, nil
	}
	mirror := mcpbridge.NewMirror(c.opts.Version, call, mcpbridge.Options{Logger: c.log.With("session", s.id), Instructions: mcpbridge.SessionInstructions})
	ep := &sessionEndpoint{mirror: mirror, http: mcpbridge.NewHTTPHandler(mirror, c.opts.MaxMessageBytes),
		done: make(chan struct{}), changed: make(chan struct{})}
	mirror.Update(c.sessionMCPSnapshot(s, 0))
	return ep
}

// sessionMCPSnapshot is s alone, its tools under their own names.
func (c *Core) sessionMCPSnapshot(s *Session, version int64) wire.MCPSnapshot {
	return wire.MCPSnapshot{Core: c.mcp.id, Version: version, Sessions: []wire.MCPSession{c.mcpSessionOf(s, 1)}}
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

// sessionToolsChanged updates s's endpoint to s's tools: the MCP SDK
// sends notifications/tools/list_changed to every client, and `pedelec
// mcp` serving s hears it on its long-poll. Whatever changes a session's
// tools calls it after the change, without holding s.mu.
func (c *Core) sessionToolsChanged(s *Session) {
	c.sessionMCPs.mu.Lock()
	ep := c.sessionMCPs.byID[s.id]
	c.sessionMCPs.mu.Unlock()
	if ep == nil {
		return // no client yet: the first one lists the tools as they are
	}
	ep.bump()
	version, _, _ := ep.state()
	ep.mirror.Update(c.sessionMCPSnapshot(s, version))
}

// sessionMCPEnded closes s's endpoint; s has ended.
func (c *Core) sessionMCPEnded(s *Session) {
	c.sessionMCPs.mu.Lock()
	ep := c.sessionMCPs.byID[s.id]
	delete(c.sessionMCPs.byID, s.id)
	c.sessionMCPs.mu.Unlock()
	if ep != nil {
		ep.close()
	}
}

// closeSessionMCPs closes every endpoint: Core is stopping. The sessions
// live on for the next Core, whose agents get new secrets and URLs.
func (c *Core) closeSessionMCPs() {
	c.sessionMCPs.mu.Lock()
	all := c.sessionMCPs.byID
	c.sessionMCPs.byID = nil
	c.sessionMCPs.mu.Unlock()
	var wg sync.WaitGroup
	for _, ep := range all {
		wg.Go(ep.close)
	}
	wg.Wait()
}

// mountSessionMCP adds the per-session endpoints. Like every route they
// sit behind the Host check and the peer check (same user only); not
// behind the agent-process check of the approval endpoints, since their
// caller is the agent.
func (c *Core) mountSessionMCP(mux *http.ServeMux) {
	for _, method := range []string{"GET", "POST", "DELETE"} { // the Streamable HTTP transport's three
		mux.HandleFunc(method+" "+wire.MCPSessionPath+"{id}", c.serveSessionMCP)
	}
	mux.HandleFunc("GET "+wire.MCPSessionToolsPath, c.serveSessionMCPTools)
	context.AfterFunc(c.mcp.ctx, c.closeSessionMCPs)
}

// sessionMCPAccess checks a request to session id's endpoint and returns
// the session, or writes the refusal: a browser Origin (403
// ORIGIN_NOT_ALLOWED), a missing or wrong secret, another session's, the
// Core token or an unknown id (401 THREAD_ACCESS_DENIED, one answer for
// all, so ids cannot be probed), an ended session (404 SESSION_ENDED).
func (c *Core) sessionMCPAccess(w http.ResponseWriter, r *http.Request, id string) (*Session, bool) {
	if origin := r.Header.Get("Origin"); origin != "" {
		// No page has any business here, not even Core's own: the secret
		// is the agent's, and MCP's DNS-rebinding rule is to refuse.
		c.refusals.note("session-mcp-origin", origin, "refused a browser request to a session's MCP endpoint", "origin", origin, "path", r.URL.Path)
		writeJSON(w, http.StatusForbidden, wire.AgentResult{Error: wire.Errorf(wire.CodeOriginNotAllowed,
			"origin %s may not use a session's MCP endpoint: it is for the session's agent, which sends no Origin", origin)})
		return nil, false
	}
	s, err := c.agentSession(r, id)
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
	writeJSON(w, status, wire.AgentResult{Error: werr})
	return nil, false
}

// sessionEnded writes the answer for a session that ended while the
// request was being let in.
func sessionEnded(w http.ResponseWriter, id string) {
	writeJSON(w, http.StatusNotFound, wire.AgentResult{Error: wire.Errorf(wire.CodeSessionEnded, "session %s has ended", id)})
}

// serveSessionMCP is the Streamable HTTP endpoint of one session.
func (c *Core) serveSessionMCP(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s, ok := c.sessionMCPAccess(w, r, id)
	if !ok {
		return
	}
	ep := c.endpoint(s)
	if ep == nil {
		sessionEnded(w, id)
		return
	}
	// The session's end or Core stopping ends the request: an open
	// notification stream, a POST waiting on a call.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stopCore := context.AfterFunc(c.mcp.ctx, cancel)
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
func (c *Core) serveSessionMCPTools(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id := q.Get("thread")
	s, ok := c.sessionMCPAccess(w, r, id)
	if !ok {
		return
	}
	ep := c.endpoint(s)
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
		if q.Get("core") != c.mcp.id || version != after {
			writeJSON(w, http.StatusOK, c.sessionMCPSnapshot(s, version))
			return
		}
		select {
		case <-changed:
		case <-ep.done:
		case <-ctx.Done():
			writeJSON(w, http.StatusOK, c.sessionMCPSnapshot(s, version))
			return
		case <-c.mcp.ctx.Done():
			writeJSON(w, http.StatusOK, c.sessionMCPSnapshot(s, version))
			return
		}
	}
}
