// Package console is Core's console (issue 22): the feed of what Core's
// sessions are doing (a snapshot, then deltas, as Server-Sent Events), the
// view of one session read from its event log and its notes, the page that
// carries the approver token, and one session's record as a download.
//
// It never imports the root runtime package: Core offers itself through
// Host and each session through Source (runtime/session_console.go), and
// keeps a Signal and, per session, the Notes this package defines.
package console

import (
	"context"
	"io/fs"
	"net/http"

	"github.com/kaoruisaac/pedelec/runtime/approvals"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Host is Core as the console sees it.
type Host interface {
	// Sessions are Core's live and recently ended sessions, oldest first.
	Sessions() []Source
	// Session finds one, for its record; the error is Core's own
	// (THREAD_NOT_FOUND).
	Session(id string) (Source, error)
	// Approvals are the pending requests and approved origins, nil while
	// Core has no approvals book.
	Approvals() *wire.ApprovalsState
	// Changed is closed at the next change the console may show (Core's
	// Signal.Wait).
	Changed() <-chan struct{}
	// URL is Core's own, http://127.0.0.1:PORT.
	URL() string
}

// Source is one session as the console sees it.
type Source interface {
	ID() string
	// Key is cheap: the feed compares it with what it sent, and asks for
	// State only when it changed.
	Key() Key
	// State is copied under the session's lock; View reads it without.
	State() State
}

// Key changes whenever what the console shows of a session may have: every
// event advances Seq (a call, its settling, chat, a status), and attaching
// or ending does not always emit one.
type Key struct {
	Seq      int64
	Notes    int64 // Notes.Version
	Status   wire.Status
	Attached bool
	Ended    bool
}

// Server mounts the console's routes on Core's mux.
type Server struct {
	Host Host
	// Guard's Read lets only the user's browser tab and CLI read
	// (docs/security.md, "The console").
	Guard *approvals.Guard
	// Files are the page's (web/console); nil serves no page.
	Files fs.FS
	// Token is the approver token the page carries.
	Token string
	// Stop ends every feed when Core stops.
	Stop context.Context
}

// Mount adds the console: its page (when Files has it), its feed and the
// sessions' records, all behind the Guard's Read. The approvals API under
// the same wire.ApprovalsPath is runtime/approvals', behind the Guard's API.
func (s *Server) Mount(mux *http.ServeMux) {
	mux.Handle("GET "+wire.ConsoleFeedPath, s.Guard.Read(http.HandlerFunc(s.serveFeed)))
	mux.Handle("GET "+wire.ConsoleRecordPath+"{id}/record", s.Guard.Read(http.HandlerFunc(s.serveRecord)))
	if s.Files != nil {
		mux.Handle("GET "+wire.ConsolePath, s.Guard.Read(page(s.Files, s.Token)))
	}
}
