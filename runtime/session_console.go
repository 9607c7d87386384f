package runtime

import (
	"cmp"
	"io/fs"
	"net/http"
	"slices"

	"github.com/kaoruisaac/pedelec/runtime/console"
	"github.com/kaoruisaac/pedelec/runtime/persist"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The console (runtime/console) as Core offers it: Core bumps its
// console.Signal whenever what the console shows may have changed, each
// session keeps console.Notes under its own lock, and these adapters let
// the console read Core's sessions and approvals.

// mountConsole adds the console's page (when files has it), feed and
// records to mux, behind the approvals Guard's Read.
func (c *Core) mountConsole(mux *http.ServeMux, files fs.FS) {
	srv := &console.Server{Host: consoleHost{c}, Guard: c.guard, Files: files, Token: c.approver, Stop: c.mcp.ctx}
	srv.Mount(mux)
}

// consoleHost is Core as the console sees it.
type consoleHost struct{ c *Core }

func (h consoleHost) Sessions() []console.Source {
	h.c.mu.Lock()
	all := make([]*Session, 0, len(h.c.sessions))
	for _, s := range h.c.sessions {
		all = append(all, s)
	}
	h.c.mu.Unlock()
	slices.SortFunc(all, func(a, b *Session) int {
		return cmp.Or(a.createdAt.Compare(b.createdAt), cmp.Compare(a.id, b.id))
	})
	out := make([]console.Source, len(all))
	for i, s := range all {
		out[i] = sessionConsole{s}
	}
	return out
}

func (h consoleHost) Session(id string) (console.Source, error) {
	s, err := h.c.session(id)
	if err != nil {
		return nil, err
	}
	return sessionConsole{s}, nil
}

func (h consoleHost) Approvals() *wire.ApprovalsState {
	if h.c.consoleApprovals == nil {
		return nil
	}
	st := h.c.consoleApprovals()
	return &st
}

func (h consoleHost) Changed() <-chan struct{} { return h.c.console.Wait() }
func (h consoleHost) URL() string              { return h.c.coreURL }

// sessionConsole is a session as the console sees it.
type sessionConsole struct{ s *Session }

func (sc sessionConsole) ID() string { return sc.s.id }

func (sc sessionConsole) Key() console.Key {
	s := sc.s
	s.mu.Lock()
	defer s.mu.Unlock()
	return console.Key{Seq: s.seq, Notes: s.notes.Version(), Status: s.status, Attached: s.conn != nil, Ended: s.ended}
}

func (sc sessionConsole) State() console.State {
	s := sc.s
	s.mu.Lock()
	defer s.mu.Unlock()
	st := console.State{Final: s.consoleFinal}
	st.Info = wire.ConsoleSession{
		ID: s.id, Origin: s.origin, Provider: s.provider.Name(), Model: s.model, Status: s.status,
		CreatedAt: s.createdAt.UnixMilli(), Seq: s.seq, Attached: s.conn != nil, External: s.isExternal(),
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

// noteCallApproved records who let a call that asked for consent run
// ("console", "cli", "allow_session"), for the console; the broker's
// consent step (broker_consent.go) calls it.
func (c *Core) noteCallApproved(sessionID, callID, by string) {
	s, err := c.session(sessionID)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.notes.CallApproved(callID, by)
	s.mu.Unlock()
	c.console.Bump()
}
