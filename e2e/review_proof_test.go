package e2e

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httputil"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime/coreauth"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Core signs the nonce of any page that opens its WebSocket, approved or
// not. A program at another address than the running Core (Core moved to
// another port; the client still dials the old one) relayed a client's
// proof request through a page of any origin in the user's browser, got
// Core's own signature over the client's nonce, and the client, satisfied,
// sent it the agent's secret (the hostile review of 2026-12-02). The
// proof a client asks for names the address it dialed, so a signature a
// page got for its hello, or one made at another address, proves nothing.
func TestProofRelayedThroughAPageIsRefused(t *testing.T) {
	testenv.SkipShort(t, "the pedelec binary")
	srv := testenv.Serve(t, nil)
	key, err := coreauth.PublicKey(srv.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	// The relay: what a page of another origin does with the client's
	// nonce, done here by a WebSocket client that sends that page's Origin.
	viaPage := func(nonce string) (wire.CoreProof, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		h := http.Header{"Origin": {"https://evil.example"}}
		c, _, err := websocket.Dial(ctx, srv.WSURL+"?batch=1&"+wire.ProofQueryParam+"="+nonce, &websocket.DialOptions{HTTPHeader: h})
		if err != nil {
			return wire.CoreProof{}, err
		}
		defer c.CloseNow()
		_, data, err := c.Read(ctx)
		if err != nil {
			return wire.CoreProof{}, err
		}
		var hello wire.Hello
		json.Unmarshal(data, &hello)
		return wire.CoreProof{Key: hello.CoreKey, Signature: hello.CoreProof}, nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got strings.Builder
	go http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dump, _ := httputil.DumpRequest(r, true)
		mu.Lock()
		got.Write(dump)
		mu.Unlock()
		if r.URL.Path == wire.CoreProofPath {
			p, err := viaPage(r.URL.Query().Get("nonce"))
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			wire.WriteJSON(w, 200, p)
			return
		}
		wire.WriteJSON(w, 200, wire.AgentResult{OK: true, Result: json.RawMessage(`{"relayed":true}`)})
	}))
	t.Cleanup(func() { l.Close() })

	const secret = "ps_RELAYED_SECRET_MARKER"
	cmd := exec.Command(testenv.Binary(t), "tool-call", "--thread-id", "t_x", "echo", `{"m":1}`)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + srv.StateDir, wire.EnvCoreURL + "=http://" + l.Addr().String(),
		wire.EnvSecret + "=" + secret, wire.EnvThreadID + "=t_x", wire.EnvCoreKey + "=" + key}
	out, _ := cmd.CombinedOutput()
	code := cmd.ProcessState.ExitCode()
	mu.Lock()
	received := got.String()
	mu.Unlock()
	if strings.Contains(received, secret) {
		t.Fatalf("the relay received the agent's secret (tool-call exit %d: %s)", code, out)
	}
	if code != 76 {
		t.Fatalf("tool-call through the relay: exit %d, want 76 (CORE_NOT_AUTHENTIC): %s", code, out)
	}
}
