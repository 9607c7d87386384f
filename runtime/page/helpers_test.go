package page

import (
	"io"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/runtime/approvals"
	"github.com/kaoruisaac/pedelec/runtime/persist"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/session"
)

// newTestServer is a page server on a real session table with no
// provider, so no session or process starts.
func newTestServer(tb testing.TB) *Server {
	tb.Helper()
	dir := tb.TempDir()
	logger := log.New(io.Discard)
	db, err := persist.Open(filepath.Join(dir, persist.FileName), time.Second)
	if err != nil {
		tb.Fatal(err)
	}
	w := persist.NewWriter(db, logger)
	book, err := approvals.New(approvals.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	limits := session.DefaultLimits()
	table := session.NewTable(session.Config{StateDir: dir, Executable: "/bin/false", ToolTimeout: time.Second, TurnTimeout: time.Second,
		ResumeWindow: time.Second, EventLogSize: 100, MaxPendingCalls: 8, MaxArgsBytes: 1 << 16, MaxInlineResultBytes: 1 << 14,
		Limits: limits, Providers: provider.NewRegistry(""), Logger: logger, Host: noHost{}, Persist: w, Book: book})
	tb.Cleanup(func() { w.Close() })
	return &Server{Sessions: table, Book: book, Providers: provider.NewRegistry(""), Log: logger,
		MaxMessageBytes: 1 << 20, SessionlessTimeout: time.Minute, PingInterval: time.Minute, URL: func(*http.Request) string { return "http://127.0.0.1:1" }}
}

type noHost struct{}

func (noHost) URL() string                     { return "http://127.0.0.1:1" }
func (noHost) SessionChanged(*session.Session) {}
func (noHost) ToolsChanged(*session.Session)   {}
