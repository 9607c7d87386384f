package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// lockedBuffer is a log sink Follow's goroutine and the test share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Issue 23: `pedelec mcp` with another --state-dir than Core's finds no
// token there. When a Core answers at --core-url it says that this state
// directory is not Core's, never "Core is not running"; with nothing
// there, it says Core is not running and which flags to match.
func TestBridgeNoTokenTellsWrongStateDirFromNoCore(t *testing.T) {
	core := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" {
			w.Write([]byte(`{"ok":true,"version":"test","sessions":0}`))
			return
		}
		http.NotFound(w, r)
	}))
	defer core.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()

	for name, c := range map[string]struct {
		url       string
		want, not string
	}{
		"Core runs with another state dir": {core.URL, "this --state-dir is not the one that Core uses", "not running"},
		"no Core":                          {downURL, "Pedelec Core is not running at " + downURL, "this --state-dir is not"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			var logged lockedBuffer
			b := NewBridge(c.url, dir, log.New(&logged))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ready := make(chan struct{})
			done := make(chan struct{})
			go func() { defer close(done); b.Follow(ctx, NewMirror("test", b.Call, Options{}), ready) }()
			select {
			case <-ready:
			case <-time.After(10 * time.Second):
				t.Fatal("Follow never finished its first attempt")
			}
			cancel()
			<-done
			if got := logged.String(); !strings.Contains(got, c.want) || strings.Contains(got, c.not) || !strings.Contains(got, dir) {
				t.Errorf("logged %q; want %q and the state dir, not %q", got, c.want, c.not)
			}
			_, _, err := parts(b.Call(context.Background(), "s1", "echo", json.RawMessage(`{}`), func(wire.Progress) {}))
			werr := wire.AsError(err)
			if werr.Code != wire.CodeCoreUnreachable || !strings.Contains(werr.Message, c.want) || strings.Contains(werr.Message, c.not) {
				t.Errorf("a call: %+v", werr)
			}
		})
	}
}
