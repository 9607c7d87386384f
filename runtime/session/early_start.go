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
	pt := s.earlyTurn()
	if pt == nil {
		return false
	}
	if !es.StartEarly(pt, lastActive, s.earlyStartFailed) {
		return false
	}
	s.log.Debug("agent starting ahead of the first turn")
	s.closeIfEndedMeanwhile()
	return true
}

// restartAgentForTools lets an agent that learns the session's tools only
// at its start (Qwen Code) start again now that the page changed them,
// between turns; a turn running now has the agent, and the next turn's own
// check restarts it then (provider/acp.go).
func (s *Session) restartAgentForTools() {
	tr, ok := s.provider.(provider.ToolsRestarter)
	if !ok {
		return
	}
	if pt := s.earlyTurn(); pt != nil && tr.RestartForTools(pt, s.earlyStartFailed) {
		s.log.Debug("agent starting again for the session's new tools")
		s.closeIfEndedMeanwhile()
	}
}

// earlyTurn is the provider turn of a start ahead of a turn (no prompt),
// or nil when the session ended, Core is closing, or a turn runs (it has
// its agent, or is starting it).
func (s *Session) earlyTurn() *provider.Turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended || s.turn != nil || s.table.isClosing() {
		return nil
	}
	pt := &provider.Turn{
		SessionID: s.id, ResumeID: s.providerThread, Model: s.model,
		WorkDir: s.dirs.work, Env: s.dirs.env(s.table.host.URL(), s.table.cfg.CoreKey, s.id, s.secret),
		Tools: s.skills().Tools,
	}
	if s.takesMCP() {
		pt.MCP = s.mcpServer()
	}
	return pt
}

// closeIfEndedMeanwhile: End or Shutdown closed the provider's session
// before a start was registered: close it again, so no agent outlives them.
func (s *Session) closeIfEndedMeanwhile() {
	if s.isEnded() || s.table.isClosing() {
		s.closeProviderSession()
	}
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
