package agentclient

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/coreauth"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A tool call reaches Core as one authenticated POST and Core's answer,
// however it is framed, comes back whole.
func TestToolCallOneConnection(t *testing.T) {
	dir := t.TempDir()
	id, err := coreauth.LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, chunked := range []bool{false, true} {
		srv := httptest.NewServer(proving(id, func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			var req wire.AgentToolCallRequest
			if r.Method != http.MethodPost || r.URL.Path != wire.AgentToolCallPath || r.Header.Get("Authorization") != "Bearer s3cret" ||
				json.Unmarshal(body, &req) != nil || req.ThreadID != "t1" || req.Tool != "echo" || string(req.Args) != `{"n":1}` {
				http.Error(w, "bad request: "+string(body), http.StatusBadRequest)
				return
			}
			answer := `{"ok":true,"result":{"n":1,"pad":"` + strings.Repeat("x", 10000) + `"}}`
			if chunked {
				w.Write([]byte(answer[:100]))
				w.(http.Flusher).Flush()
				w.Write([]byte(answer[100:]))
				return
			}
			w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
			w.Write([]byte(answer))
		}))
		c, err := FromEnv(env{wire.EnvCoreURL: srv.URL + "/", wire.EnvSecret: "s3cret", wire.EnvCoreKey: id.Key()}.get, "")
		if err != nil {
			t.Fatal(err)
		}
		res := c.ToolCall(context.Background(), "t1", "echo", json.RawMessage(`{"n":1}`))
		srv.Close()
		if !res.OK || !strings.HasPrefix(string(res.Result), `{"n":1,"pad":"xxx`) || len(res.Result) != 10016 {
			t.Fatalf("chunked=%v: got %+v (%d bytes of result)", chunked, res.Error, len(res.Result))
		}
	}
}

// The agent gives up: TOOL_CALL_CANCELLED, promptly; no Core at the
// address: CORE_UNREACHABLE.
func TestToolCallUnreachableAndCancelled(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		select { // a tool that never answers
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	c := &Client{BaseURL: srv.URL, Secret: "s"}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	res := c.ToolCall(ctx, "t1", "slow", json.RawMessage(`{}`))
	if res.OK || res.Error.Code != wire.CodeToolCallCancelled || !strings.Contains(res.Error.Message, "context canceled") {
		t.Fatalf("cancelled call: %+v", res.Error)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("cancelled call returned after %v", d)
	}

	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	c = &Client{BaseURL: closed.URL, Secret: "s"}
	if res := c.ToolSpec(context.Background(), "t1", "x"); res.OK || res.Error.Code != wire.CodeCoreUnreachable {
		t.Fatalf("no Core: %+v", res.Error)
	}
}

// proving serves Core's proof beside h, as Core does.
func proving(id *coreauth.Identity, h http.HandlerFunc) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET "+wire.CoreProofPath, id)
	mux.Handle("/", h)
	return mux
}

type env map[string]string

func (e env) get(k string) string { return e[k] }

// A call cancelled while it connects says it was cancelled, as one
// cancelled while it waits does (under load the dial can take the whole
// wait).
func TestToolCallCancelledWhileConnecting(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := &Client{BaseURL: "http://127.0.0.1:9", Secret: "s"}
	res := c.ToolCall(ctx, "t1", "slow", json.RawMessage(`{}`))
	if res.OK || res.Error.Code != wire.CodeToolCallCancelled || !strings.Contains(res.Error.Message, "context canceled") {
		t.Fatalf("cancelled before connecting: %+v", res.Error)
	}
}
