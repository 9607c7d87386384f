package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/log"
	"github.com/kaoruisaac/pedelec/runtime/coreauth"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// A call reaches Core's MCP endpoint with Core's token as Bearer; Core's
// answer, a result or a Pedelec error, comes back as it was; anything else
// is CORE_UNREACHABLE.
func TestBridgeCall(t *testing.T) {
	answer := ""
	dir := t.TempDir()
	srv := httptest.NewServer(provingCore(t, dir, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req wire.MCPCallRequest
		if r.Method != http.MethodPost || r.URL.Path != wire.MCPCallPath || r.Header.Get("Authorization") != "Bearer core-tok" ||
			json.Unmarshal(body, &req) != nil || req.SessionID != "s1" || req.Tool != "echo" || string(req.Args) != `{"n":1}` {
			http.Error(w, "bad request: "+string(body), http.StatusBadRequest)
			return
		}
		w.Write([]byte(answer))
	}))
	defer srv.Close()
	b := NewBridge(srv.URL, dir, log.New(io.Discard))
	call := func() (json.RawMessage, error) {
		r, _, err := parts(b.Call(context.Background(), "s1", "echo", json.RawMessage(`{"n":1}`), func(wire.Progress) {}))
		return r, err
	}

	if _, err := call(); !isCode(err, wire.CodeCoreUnreachable) || !strings.Contains(err.Error(), "no token at") {
		t.Fatalf("no token: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, wire.CoreTokenFile), []byte("core-tok\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	answer = `{"ok":true,"result":{"n":1}}`
	if res, err := call(); err != nil || string(res) != `{"n":1}` {
		t.Fatalf("result %s, err %v", res, err)
	}
	answer = `{"ok":false,"error":{"code":"TOOL_TIMEOUT","message":"no answer"}}`
	if _, err := call(); !isCode(err, "TOOL_TIMEOUT") || !strings.Contains(err.Error(), "no answer") {
		t.Fatalf("Core's error: %v", err)
	}
	answer = `<html>`
	if _, err := call(); !isCode(err, wire.CodeCoreUnreachable) || !strings.Contains(err.Error(), "not a Pedelec answer") {
		t.Fatalf("not an answer: %v", err)
	}
}

// The MCP client giving up ends the request and says the call was
// cancelled, not that Core is unreachable.
func TestBridgeCallCancelled(t *testing.T) {
	arrived := make(chan struct{}, 1)
	dir := t.TempDir()
	srv := httptest.NewServer(provingCore(t, dir, func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body) // the server watches for the client going away once the body is read
		arrived <- struct{}{}
		<-r.Context().Done()
	}))
	defer srv.Close()
	if err := os.WriteFile(filepath.Join(dir, wire.CoreTokenFile), []byte("tok"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := NewBridge(srv.URL, dir, log.New(io.Discard))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived // the call is in flight
		cancel()
	}()
	_, _, err := parts(b.Call(ctx, "s1", "slow", json.RawMessage(`{}`), func(wire.Progress) {}))
	if !isCode(err, wire.CodeToolCallCancelled) || !strings.Contains(err.Error(), "the call to slow was cancelled") {
		t.Fatalf("cancelled call: %v", err)
	}
}

// provingCore serves h as a Core of stateDir would: with its proof.
func provingCore(t testing.TB, stateDir string, h http.HandlerFunc) http.Handler {
	t.Helper()
	id, err := coreauth.LoadOrCreate(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET "+wire.CoreProofPath, id)
	mux.Handle("/", h)
	return mux
}

func isCode(err error, code wire.Code) bool {
	var werr *wire.Error
	return errors.As(err, &werr) && werr.Code == code
}

// Calls send the token last read, without reading its file each time;
// when Core refuses it (a restarted Core wrote a new one), the call reads
// the file again and goes through, once.
func TestBridgeCallTokenKeptAndRenewed(t *testing.T) {
	dir := t.TempDir()
	want, seen := "tok-1", []string{}
	srv := httptest.NewServer(provingCore(t, dir, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == wire.MCPLinkPath { // calls go by request (link_test.go has the link)
			http.NotFound(w, r)
			return
		}
		io.ReadAll(r.Body)
		seen = append(seen, r.Header.Get("Authorization"))
		if r.Header.Get("Authorization") != "Bearer "+want {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"ok":false,"error":{"code":"CORE_TOKEN_INVALID","message":"wrong token"}}`))
			return
		}
		w.Write([]byte(`{"ok":true,"result":{}}`))
	}))
	defer srv.Close()
	file := filepath.Join(dir, wire.CoreTokenFile)
	if err := os.WriteFile(file, []byte("tok-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := NewBridge(srv.URL, dir, log.New(io.Discard))
	call := func() error {
		_, _, err := parts(b.Call(context.Background(), "s1", "echo", json.RawMessage(`{}`), nil))
		return err
	}
	if err := call(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file); err != nil { // a read would fail now
		t.Fatal(err)
	}
	if err := call(); err != nil {
		t.Fatalf("the kept token was not used: %v", err)
	}
	want = "tok-2"
	if err := os.WriteFile(file, []byte("tok-2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := call(); err != nil {
		t.Fatalf("after Core's new token: %v", err)
	}
	if got := strings.Join(seen, ","); got != "Bearer tok-1,Bearer tok-1,Bearer tok-1,Bearer tok-2" {
		t.Fatalf("tokens sent: %s", got)
	}
	want = "tok-3" // a token that is not in the file: refused, not retried forever
	if err := call(); !isCode(err, wire.CodeCoreTokenInvalid) {
		t.Fatalf("a refused token: %v", err)
	}
}
