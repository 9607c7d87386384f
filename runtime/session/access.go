package session

import (
	"github.com/kaoruisaac/pedelec/runtime/assets"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// What Core's transports may read of a session. The fields these read
// never change after the session is made, or are read under its lock.

// ID is the session's id, which its page resumes it with.
func (s *Session) ID() string { return s.id }

// Origin is the page origin that created the session.
func (s *Session) Origin() string { return s.origin }

// Secret is the credential of the session's agent (PEDELEC_SECRET).
func (s *Session) Secret() string { return s.secret }

// Ordinal is an external session's number among them (Table.External).
func (s *Session) Ordinal() int { return s.ordinal }

// External reports whether the session's agent is an MCP client outside Core.
func (s *Session) External() bool { return s.isExternal() }

// Ended reports whether the session has ended.
func (s *Session) Ended() bool { return s.isEnded() }

// Status is the session's status now.
func (s *Session) Status() wire.Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status
}

// Attached is the page the session is attached to; nil while detached.
func (s *Session) Attached() Page {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.page
}

// Assets is the session's asset directory (runtime/assets).
func (s *Session) Assets() assets.Dir { return assets.SessionDir(s.dirs.root) }

// Log is the session's logger.
func (s *Session) Log() assets.Logger { return s.log }

// WorkDir is the provider's working directory of the session.
func (s *Session) WorkDir() string { return s.dirs.work }

// TurnID is the running turn's id; "" between turns.
func (s *Session) TurnID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.turn == nil {
		return ""
	}
	return s.turn.id
}

// Pending reports whether call id waits for the page's answer.
func (s *Session) Pending(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.calls.get(id)
	return ok
}

// HandoffsKept is how many handed-over calls the session keeps a handle of.
func (s *Session) HandoffsKept() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.handoffs.byHandle)
}

// ConsoleView is the session as the console shows it.
func (s *Session) ConsoleView() wire.ConsoleSession { return s.consoleView() }

// MCPServer is the session's MCP endpoint as its agent is given it.
func (s *Session) MCPServer() *provider.MCPServer { return s.mcpServer() }
