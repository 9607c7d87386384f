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
}

// consoleHost is Core as the console sees it.
type consoleHost struct{ c *Core }

func (h consoleHost) Sessions() []console.Source {
	all := h.c.sessions.All()
	out := make([]console.Source, len(all))
	for i, s := range all {
		out[i] = s.Console()
	}
	return out
}

func (h consoleHost) Session(id string) (console.Source, error) {
	s, err := h.c.session(id)
	if err != nil {
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
