package runtime

import (
	"context"
	"encoding/json"
	"sort"
	"sync"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// mcpHub tracks the sessions whose agent is an external MCP client
// (provider "mcp") and wakes whoever watches their tool set: Core's own
// /mcp server and every `pedelec mcp` long-polling the bridge.
type mcpHub struct {
	id     string          // this Core process, so a watcher notices a restart
	ctx    context.Context // done when Core shuts down
	cancel context.CancelFunc

	// mu is taken after Core.mu (createSession numbers a session under
	// it) and holds nothing else (core.go: the lock order).
	mu       sync.Mutex
	version  int64
	changed  chan struct{} // closed and replaced on every change
	ordinals map[string]int
	next     int
}

func newMCPHub() *mcpHub {
	ctx, cancel := context.WithCancel(context.Background())
	return &mcpHub{id: newID("c_"), ctx: ctx, cancel: cancel, changed: make(chan struct{}), ordinals: map[string]int{}}
}

// ordinal numbers a new mcp session (1, 2, ...); it names the session's
// tool prefix while several are live, so it never changes for a session.
func (h *mcpHub) ordinal(sessionID string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.next++
	h.ordinals[sessionID] = h.next
	return h.next
}

// bump records a change in the set of mcp sessions and wakes the watchers.
func (h *mcpHub) bump() {
	h.mu.Lock()
	h.version++
	close(h.changed)
	h.changed = make(chan struct{})
	h.mu.Unlock()
}

func (h *mcpHub) state() (int64, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.version, h.changed
}

// isExternal: the session's agent is an MCP client outside Core.
func (s *Session) isExternal() bool { return provider.IsExternal(s.provider) }

// mcpSessionsChanged is called when a session starts or ends; it matters
// to the mcp sessions' watchers and to the session's own MCP endpoint.
func (c *Core) mcpSessionsChanged(s *Session) {
	if s.isEnded() {
		c.sessionMCPEnded(s) // its own MCP endpoint goes, whatever its provider (session_mcp_endpoint.go)
	}
	if !s.isExternal() {
		return
	}
	if s.isEnded() {
		c.mcp.mu.Lock()
		delete(c.mcp.ordinals, s.id)
		c.mcp.mu.Unlock()
	}
	c.mcp.bump()
}

// MCPSnapshot is the live mcp sessions and their tools, oldest first.
func (c *Core) MCPSnapshot() wire.MCPSnapshot {
	version, _ := c.mcp.state()
	c.mu.Lock()
	live := make([]*Session, 0, len(c.sessions))
	for _, s := range c.sessions {
		if s.isExternal() {
			live = append(live, s)
		}
	}
	c.mu.Unlock()
	c.mcp.mu.Lock()
	ordinals := make(map[*Session]int, len(live))
	for _, s := range live {
		ordinals[s] = c.mcp.ordinals[s.id]
	}
	c.mcp.mu.Unlock()
	sort.Slice(live, func(i, j int) bool { return ordinals[live[i]] < ordinals[live[j]] })
	snap := wire.MCPSnapshot{Core: c.mcp.id, Version: version, Sessions: []wire.MCPSession{}}
	for _, s := range live {
		if s.isEnded() {
			continue
		}
		ms := c.mcpSessionOf(s, ordinals[s])
		snap.Sessions = append(snap.Sessions, ms)
	}
	return snap
}

// mcpSessionOf is s and its tools as an MCP client is shown them.
func (c *Core) mcpSessionOf(s *Session, ordinal int) wire.MCPSession {
	ms := wire.MCPSession{SessionID: s.id, Ordinal: ordinal, Origin: s.origin, Tools: []wire.MCPTool{}}
	for _, t := range s.skills().Tools {
		mt := wire.MCPTool{
			Name: t.Name, Description: t.Description, ArgsSchema: t.ArgumentsSchema(),
			TimeoutMs: toolTimeoutMs(t.TimeoutMs, c.opts.ToolTimeout), AsksConsent: t.AsksConsent(),
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

// WatchMCP returns the snapshot as soon as it differs from (core, after),
// or the current one when ctx ends first (a long-poll's time limit).
func (c *Core) WatchMCP(ctx context.Context, core string, after int64) wire.MCPSnapshot {
	for {
		version, changed := c.mcp.state()
		if core != c.mcp.id || version != after {
			return c.MCPSnapshot()
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return c.MCPSnapshot()
		case <-c.mcp.ctx.Done():
			return c.MCPSnapshot()
		}
	}
}

// CallMCPTool runs one MCP client's call through the broker: the same
// validation, timeout, status changes and late-result rules as tool-call.
// ctx ending (the client cancelled) settles the call as "cancelled", which
// aborts the handler's ctx.signal in the page.
func (c *Core) CallMCPTool(ctx context.Context, sessionID, tool string, args json.RawMessage) (json.RawMessage, error) {
	s, err := c.mcpSession(sessionID)
	if err != nil {
		return nil, err
	}
	result, werr := s.callTool(ctx, tool, args)
	if werr != nil {
		return nil, werr
	}
	return result, nil
}

// AnswerMCPTool is CallMCPTool as the MCP client is answered: a result
// over the inline limit becomes a file (result_file.go), which the mirror
// turns into a resource link.
func (c *Core) AnswerMCPTool(ctx context.Context, sessionID, tool string, args json.RawMessage, progress func(wire.Progress)) wire.AgentResult {
	result, err := c.callMCPWatched(ctx, sessionID, tool, args, progress)
	if err != nil {
		return wire.AgentResult{Error: wire.AsError(err)}
	}
	s, werr := c.session(sessionID)
	if werr != nil { // gone since: the result stays inline
		return wire.AgentResult{OK: true, Result: result}
	}
	// A tool with an outputSchema answers inline: MCP clients check a
	// result's structuredContent against the schema they were given, so
	// a link in its place would fail the call in the client.
	if def, ok := s.tools().Tool(tool); ok && def.HasOutputSchema() {
		return wire.AgentResult{OK: true, Result: result}
	}
	return s.answer(tool, result, nil)
}

// callTurnLocked is the turn a new call belongs to: the running turn, or,
// for an external agent, none (an MCP client calls whenever it likes).
func (s *Session) callTurnLocked(now time.Time) (id string, startedAt time.Time, ok bool) {
	if s.turn != nil {
		return s.turn.id, s.turn.startedAt, true
	}
	if s.isExternal() {
		return "", now, true
	}
	return "", time.Time{}, false
}
