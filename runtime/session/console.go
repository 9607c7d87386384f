package session

import (
	"github.com/kaoruisaac/pedelec/runtime/console"
	"github.com/kaoruisaac/pedelec/runtime/persist"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A session as the console (runtime/console) reads it: the table bumps
// its console.Signal whenever what the console shows may have changed,
// and each session keeps console.Notes under its own lock.

// Console is the session as the console reads it.
func (s *Session) Console() console.Source { return sessionConsole{s} }

// sessionConsole is a session as the console sees it.
type sessionConsole struct{ s *Session }

func (sc sessionConsole) ID() string { return sc.s.id }

func (sc sessionConsole) Key() console.Key {
	s := sc.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return console.Key{Seq: s.seq, Notes: s.notes.Version(), Status: s.status, Attached: s.page != nil, Ended: s.ended}
}

func (sc sessionConsole) State() console.State {
	s := sc.s
	s.mu.Lock()
	defer s.mu.Unlock()
	st := console.State{Final: s.consoleFinal, ThreadID: agentThreadID(s.id)}
	st.Info = wire.ConsoleSession{
		ID: s.id, Origin: s.origin, Provider: s.provider.Name(), Model: s.model, Status: s.status,
		CreatedAt: s.createdAt.UnixMilli(), Seq: s.seq, Attached: s.page != nil, External: s.isExternal(),
		Tools: s.tools().Names(), ToolHints: s.tools().Hints(),
	}
	if st.Final != nil {
		return st
	}
	st.Events = make([]persist.Event, s.events.len())
	for i := range st.Events {
		st.Events[i] = s.events.at(i)
	}
	st.Notes = s.notes.Copy()
	return st
}

// consoleView is the session as the console shows it.
func (s *Session) consoleView() wire.ConsoleSession { return console.View(sessionConsole{s}.State()) }

// retiredConsoleView is what an ended session keeps for the console once
// Core retires it (ended.go): the view, not the events it was read from.
func (s *Session) retiredConsoleView() *wire.ConsoleSession {
	v := s.consoleView()
	v.Status = wire.StatusEnded
	return &v
}

// NoteCallApproved records who let a call that asked for consent run
// ("console", "cli", "allow_session"), for the console; the broker's
// consent step (consent.go, through the broker) calls it.
func (c *Table) NoteCallApproved(sessionID, callID, by string) {
	s, err := c.Get(sessionID)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.notes.CallApproved(callID, by)
	s.mu.Unlock()
	c.console.Bump()
}
