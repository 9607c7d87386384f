package session

import (
	"context"
	"io"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/runtime/approvals"
	"github.com/kaoruisaac/pedelec/runtime/persist"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The session domain's own tests drive a Table directly: a real state
// database and Book, a recording Page and a provider whose turns stay
// open until the session ends, with no WebSocket or HTTP in between.

// openTurns is a provider whose turns run until they are cancelled.
type openTurns struct{}

func (openTurns) Name() string { return "open" }
func (openTurns) Check(context.Context) wire.ProviderInfo {
	return wire.ProviderInfo{Name: "open", Available: true, DefaultModel: "m"}
}
func (openTurns) RunTurn(ctx context.Context, _ *provider.Turn, _ func(provider.Event)) error {
	<-ctx.Done()
	return ctx.Err()
}

// newTestTable is a Table on a temporary state directory.
func newTestTable(tb testing.TB) *Table {
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
	t := NewTable(Config{StateDir: dir, Executable: "/bin/false", ToolTimeout: 10 * time.Second, TurnTimeout: time.Minute,
		ResumeWindow: time.Minute, EventLogSize: 100, MaxPendingCalls: 8, MaxArgsBytes: 1 << 16, MaxInlineResultBytes: 1 << 14,
		Limits: DefaultLimits(), Providers: provider.NewRegistry("", openTurns{}), Logger: logger, Host: quietHost{}, Persist: w, Book: book})
	tb.Cleanup(func() { t.Shutdown(context.Background(), nil) })
	return t
}

type quietHost struct{}

func (quietHost) URL() string             { return "http://127.0.0.1:1" }
func (quietHost) SessionChanged(*Session) {}
func (quietHost) ToolsChanged(*Session)   {}

// recordingPage is a page connection that keeps every frame it is sent.
type recordingPage struct {
	mu     sync.Mutex
	frames [][]byte
}

func (p *recordingPage) Origin() string { return "http://127.0.0.1:1" }
func (p *recordingPage) Send(frame []byte) {
	p.mu.Lock()
	p.frames = append(p.frames, frame)
	p.mu.Unlock()
}
func (p *recordingPage) SendReplay(*Replay) {}
func (p *recordingPage) Attach(*Session)    {}
func (p *recordingPage) Detach(*Session)    {}
func (p *recordingPage) SessionCount() int  { return 0 }
func (p *recordingPage) Closed() bool       { return false }

// sent is the frames the page was sent so far.
func (p *recordingPage) sent() [][]byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([][]byte(nil), p.frames...)
}
