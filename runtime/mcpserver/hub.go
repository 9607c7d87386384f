// Package mcpserver is Core's MCP surfaces, on runtime/mcpbridge: the
// Streamable HTTP endpoint /mcp and the bridge routes `pedelec mcp`
// long-polls and calls, which serve the sessions whose agent is an
// external MCP client (provider "mcp"), and each session's own endpoint
// (/mcp/session/<id>), through which an agent Core drives calls the page's
// tools natively. Calls are runtime/session's.
package mcpserver

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/session"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// hub wakes whoever watches the external sessions' tool set: Core's own
// /mcp server and every `pedelec mcp` long-polling the bridge.
type hub struct {
	id string // this Core process, so a watcher notices a restart

	mu      sync.Mutex // a leaf
	version int64
	changed chan struct{} // closed and replaced on every change
}

// bump records a change in the set of mcp sessions and wakes the watchers.
func (h *hub) bump() {
	h.mu.Lock()
	h.version++
	close(h.changed)
	h.changed = make(chan struct{})
	h.mu.Unlock()
}

func (h *hub) state() (int64, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.version, h.changed
}

// SessionChanged is called when a session starts or ends; it matters
// to the mcp sessions' watchers and to the session's own MCP endpoint.
func (m *Server) SessionChanged(s *session.Session) {
	if s.Ended() {
		m.sessionEnded(s) // its own MCP endpoint goes, whatever its provider (session_endpoint.go)
	}
	if s.External() {
		m.hub.bump()
	}
}

// Snapshot is the live mcp sessions and their tools, oldest first.
func (m *Server) Snapshot() wire.MCPSnapshot {
	version, _ := m.hub.state()
	snap := wire.MCPSnapshot{Core: m.hub.id, Version: version, Sessions: []wire.MCPSession{}}
	for _, s := range m.Sessions.External() {
		snap.Sessions = append(snap.Sessions, m.sessionOf(s, s.Ordinal()))
	}
	return snap
}

// sessionOf is s and its tools as an MCP client is shown them.
func (m *Server) sessionOf(s *session.Session, ordinal int) wire.MCPSession {
	ms := wire.MCPSession{SessionID: s.ID(), Ordinal: ordinal, Origin: s.Origin(), Tools: []wire.MCPTool{}}
	for _, t := range s.Skills().Tools {
		mt := wire.MCPTool{
			Name: t.Name, Description: t.Description, ArgsSchema: t.ArgumentsSchema(),
			TimeoutMs: toolTimeoutMs(t.TimeoutMs, m.Sessions.Config().ToolTimeout), AsksConsent: t.AsksConsent(),
			OutputSchema: t.OutputSchema,
		}
		if t.Annotations != nil {
			mt.Annotations, _ = json.Marshal(t.Annotations)
		}
		ms.Tools = append(ms.Tools, mt)
	}
	return ms
}

func toolTimeoutMs(ms *int64, fallback time.Duration) int64 {
	if ms != nil {
		return *ms
	}
	return fallback.Milliseconds()
}

// Watch returns the snapshot as soon as it differs from (core, after),
// or the current one when ctx ends first (a long-poll's time limit).
func (m *Server) Watch(ctx context.Context, core string, after int64) wire.MCPSnapshot {
	for {
		version, changed := m.hub.state()
		if core != m.hub.id || version != after {
			return m.Snapshot()
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return m.Snapshot()
		case <-m.ctx.Done():
			return m.Snapshot()
		}
	}
}

// Answer runs one MCP client's call of an mcp session's tool through the
// broker's one pipeline (session.Session.Call): the same validation,
// consent, timeout, status changes and late-result rules as tool-call. A
// result over the inline limit becomes a file, which the mirror turns
// into a resource link, unless the tool declares an outputSchema. ctx
// ending (the client cancelled) settles the call as "cancelled", which
// aborts the handler's ctx.signal in the page. progress, when set, gets
// the handler's progress (notifications/progress for a client that sent
// a progressToken).
func (m *Server) Answer(ctx context.Context, sessionID, tool string, args json.RawMessage, progress func(wire.Progress)) wire.AgentResult {
	s, err := m.externalSession(sessionID)
	if err != nil {
		return wire.AgentResult{Error: wire.AsError(err)}
	}
	return s.Call(ctx, session.CallRequest{Tool: tool, Args: args, For: session.ForMCP, Progress: progress})
}
