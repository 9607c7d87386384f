package session

import (
	"time"

	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// startAgentEarly lets a provider that can (an ACP agent) start the
// session's agent now, ahead of its first turn: at createSession, at
// resumeSession, and for the sessions a restarted Core restored, with the
// time the session was last active (the provider starts none for a
// session its idle policy would already have stopped). The provider owns
// the start (provider/acp_early.go); the session hears only of a failure.
func (s *Session) startAgentEarly(lastActive time.Time) bool {
	es, ok := s.provider.(provider.EarlyStarter)
	if !ok {
		return false
	}
	s.mu.Lock()
	if s.ended || s.turn != nil || s.table.isClosing() {
		s.mu.Unlock()
		return false // a running turn has its agent, or is starting it
	}
	pt := &provider.Turn{
		SessionID: s.id, ResumeID: s.providerThread, Model: s.model,
		WorkDir: s.dirs.work, Env: s.dirs.env(s.table.host.URL(), s.table.cfg.CoreKey, s.id, s.secret),
		Tools: s.skills().Tools,
	}
	if s.takesMCP() {
		pt.MCP = s.mcpServer()
	}
	s.mu.Unlock()
	if !es.StartEarly(pt, lastActive, s.earlyStartFailed) {
		return false
	}
	s.log.Debug("agent starting ahead of the first turn")
	if s.isEnded() || s.table.isClosing() {
		// End or Shutdown closed the provider's session before this start
		// was registered: close it again, so no agent outlives them.
		s.closeProviderSession()
	}
	return true
}

// earlyStartFailed reports an agent that did not start, before any turn:
// the session goes to error and the page gets the error (the agent's
// stderr in its details); the next turn starts the agent again. A turn
// already waiting for the start reports its own outcome instead.
func (s *Session) earlyStartFailed(err error) {
	werr := wire.AsError(err)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log.Warn("the agent did not start", "code", werr.Code, "message", werr.Message)
	if s.ended || s.turn != nil {
		return
	}
	s.lastTurnFailed = true
	s.refreshStatusLocked()
	s.emitLocked(wire.EventError, "", wire.ErrorData{Error: werr})
}

// StartRestoredAgents starts the agents of the sessions Restore brought
// back; Core calls it once it answers (their MCP endpoints must be up
// when the agents open them). Each goes with the time its session was
// last written.
func (t *Table) StartRestoredAgents() {
	var restored []*Session
	for _, s := range t.All() {
		if !s.restoredActive.IsZero() {
			restored = append(restored, s)
		}
	}
	started := 0
	for _, s := range restored {
		if s.startAgentEarly(s.restoredActive) {
			started++
		}
	}
	if len(restored) > 0 {
		t.log.Info("restored sessions' agents starting", "started", started, "restored", len(restored))
	}
}
