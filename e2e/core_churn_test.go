package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Issue 20: two pages that create a session and drop their socket in a
// loop wedged `pedelec serve` within about a second (a lock-order
// inversion between Core and its sessions): /healthz hung, goroutines and
// files piled up, and SIGTERM no longer stopped it. The in-process tier
// has the thorough churn (runtime/churn_test.go); this is the issue's own
// reproduction against the real binary.
func TestCoreSurvivesPagesDroppingFreshSessions(t *testing.T) {
	srv := testenv.Serve(t, nil)
	base := debugCounts(t, srv)

	stop := make(chan struct{})
	var pages sync.WaitGroup
	for range 4 {
		pages.Add(1)
		go func() {
			defer pages.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				createAndDrop(srv)
			}
		}()
	}
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		resp, err := oneShot.Get(srv.URL + "/healthz")
		if err != nil {
			close(stop)
			t.Fatalf("Core stopped answering /healthz while pages came and went: %v", err)
		}
		resp.Body.Close()
	}
	close(stop)
	pages.Wait()

	testenv.Await(t, 15*time.Second, "Core to let go of the pages' sessions, goroutines and files", func() bool {
		n := debugCounts(t, srv)
		return n.LiveSessions == 0 && n.Goroutines <= base.Goroutines+2 && n.OpenFiles <= base.OpenFiles+2
	})
	start := time.Now()
	srv.Stop(t) // fails the test if SIGTERM does not stop it within 10 s
	t.Logf("stopped %s after SIGTERM", time.Since(start).Round(time.Millisecond))
}

// createAndDrop is one page: it asks for a session and goes away without
// a closing handshake, sometimes before the answer arrives.
func createAndDrop(srv *testenv.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, srv.WSURL, &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {srv.URL}}})
	if err != nil {
		return
	}
	defer ws.CloseNow()
	auto := true
	params, _ := json.Marshal(wire.CreateSessionParams{Provider: "mcp", Skills: json.RawMessage(coreSkills), AutoEndOnDisconnect: &auto})
	frame, _ := json.Marshal(wire.Request{Type: wire.FrameRequest, ID: 1, Method: wire.MethodCreateSession, Params: params})
	if ws.Write(ctx, websocket.MessageText, frame) != nil || time.Now().UnixNano()%2 == 0 {
		return
	}
	ws.Read(ctx) // the answer (or the session's first event)
}

// oneShot opens a connection per request, so the counts Core reports do
// not include the test's own idle ones.
var oneShot = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}

// debugCounts reads Core's debug endpoint with its token.
func debugCounts(t testing.TB, srv *testenv.Server) runtime.DebugCounts {
	t.Helper()
	token, err := os.ReadFile(filepath.Join(srv.StateDir, wire.CoreTokenFile))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", srv.URL+runtime.DebugPath, nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	resp, err := oneShot.Do(req)
	if err != nil {
		t.Fatalf("debug endpoint: %v", err)
	}
	defer resp.Body.Close()
	var n runtime.DebugCounts
	if err := json.NewDecoder(resp.Body).Decode(&n); err != nil {
		t.Fatalf("debug endpoint: %v", err)
	}
	return n
}
