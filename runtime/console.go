package runtime

import (
	"io/fs"
	"net/http"

	"github.com/kaoruisaac/pedelec/runtime/console"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The console (runtime/console) as Core mounts it: Core's sessions (each
// read as session.Session.Console) and approvals, behind the approvals
// Guard.

// mountConsole adds the console's page (when files has it), feed and
// records to mux, behind the approvals Guard's Read.
func (c *Core) mountConsole(mux *http.ServeMux, files fs.FS) {
	srv := &console.Server{Host: consoleHost{c}, Guard: c.guard, Files: files, Token: c.approver, Stop: c.ctx}
	srv.Mount(mux)
	// What Core's own pages (the demo) tell a user to run to connect an MCP
	// client: Core knows its own state directory. Only Core's pages read it.
	mux.Handle("GET "+wire.ConsoleConnectPath, c.guard.Read(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		cmd := c.opts.MCPCommand
		if cmd == "" {
			cmd = "pedelec mcp"
		}
		wire.WriteJSON(w, http.StatusOK, wire.ConsoleConnect{CoreURL: c.coreURL, MCPCommand: cmd})
	})))
}

// consoleHost is Core as the console sees it.
type consoleHost struct{ c *Core }

// Sessions are the history's ended sessions (earlier runs' included) that
// Core no longer holds, then Core's own; the console orders them by time.
func (h consoleHost) Sessions() []console.Source {
	all := h.c.sessions.All()
	held := make(map[string]bool, len(all))
	for _, s := range all {
		held[s.ID()] = true
	}
	out := h.c.history.Sources(func(id string) bool { return held[id] })
	for _, s := range all {
		out = append(out, s.Console())
	}
	return out
}

func (h consoleHost) Session(id string) (console.Source, error) {
	s, err := h.c.session(id)
	if err != nil {
		if past, ok := h.c.history.Find(id); ok {
			return past, nil
		}
		return nil, err
	}
	return s.Console(), nil
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
