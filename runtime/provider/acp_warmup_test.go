package provider

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// The warm-up endpoint answers any chat request at once with a whole
// streamed "ok", and opencode's config names it only beside the session's
// own model (with none, opencode could take it for its default).
func TestOpencodeWarmupModelOnlyBesideTheSessionsModel(t *testing.T) {
	url, err := warmupServer()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"content":"ok"`) || !strings.HasSuffix(string(body), "data: [DONE]\n\n") {
		t.Errorf("warm-up answer:\n%s", body)
	}
	for _, c := range []struct {
		s     Settings
		model string
		want  bool
	}{
		{Settings{BaseURL: "http://127.0.0.1:1/v1"}, "m", true},
		{Settings{}, "anthropic/claude-sonnet-4-5", true},
		{Settings{}, "", false},
	} {
		dir := t.TempDir()
		work := filepath.Join(dir, "work")
		if err := os.MkdirAll(work, 0o700); err != nil {
			t.Fatal(err)
		}
		env, err := opencodeACPPrepare(cliArgs{turn: &Turn{SessionID: "s", WorkDir: work, Model: c.model}, settings: c.s})
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(env["OPENCODE_CONFIG"])
		var cfg struct {
			Provider map[string]json.RawMessage `json:"provider"`
		}
		_ = json.Unmarshal(data, &cfg)
		if _, got := cfg.Provider[warmupProvider]; got != c.want {
			t.Errorf("settings %+v, model %q: warm-up provider present %v, want %v", c.s, c.model, got, c.want)
		}
	}
}

// Every start of opencode's ACP form gets a password of its own for the
// API opencode serves on loopback.
func TestOpencodeACPServerPasswordPerStart(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 2; i++ {
		work := filepath.Join(t.TempDir(), "work")
		if err := os.MkdirAll(work, 0o700); err != nil {
			t.Fatal(err)
		}
		env, err := opencodeACPPrepare(cliArgs{turn: &Turn{SessionID: "s", WorkDir: work}})
		if err != nil {
			t.Fatal(err)
		}
		pw := env["OPENCODE_SERVER_PASSWORD"]
		if len(pw) < 32 || seen[pw] {
			t.Errorf("password %q (seen before: %v)", pw, seen[pw])
		}
		seen[pw] = true
	}
}

// A turn that comes while the early start is still warming up stops the
// warm-up (its own prompt does the same work) and runs at once on the
// agent; nothing of another ACP session (the warm-up's) reaches a turn.
func TestACPTurnStopsTheWarmUp(t *testing.T) {
	a := fakeACP(t, nil)
	warming, stopped := make(chan struct{}), make(chan struct{})
	a.spec.warmUp = func(ctx context.Context, w *acpWarm, _ *Turn) {
		close(warming)
		<-ctx.Done()
		close(stopped)
	}
	turn := fakeTurn(t, t.TempDir(), "s1", "", "say hello")
	if !a.StartEarly(turn, time.Now(), func(err error) { t.Errorf("start: %v", err) }) {
		t.Fatal("StartEarly did not start the agent")
	}
	select {
	case <-warming:
	case <-time.After(30 * time.Second):
		t.Fatal("the warm-up never began")
	}
	r, err := runACP(t, a, context.Background(), turn)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-stopped:
	default:
		t.Error("the turn ran while the warm-up went on")
	}
	if r.text() != "Hello, world" {
		t.Errorf("the turn said %q", r.text())
	}

	c := newACPClient("fake", "pedelec", nil)
	c.own("mine")
	var got []string
	c.begin(&acpTurn{emit: func(ev Event) { got = append(got, ev.ChatDelta) }})
	for _, sid := range []acp.SessionId{"warm-up", "mine"} {
		_ = c.SessionUpdate(context.Background(), acp.SessionNotification{SessionId: sid,
			Update: acp.SessionUpdate{AgentMessageChunk: &acp.SessionUpdateAgentMessageChunk{Content: acp.TextBlock(string(sid))}}})
	}
	if len(got) != 1 || got[0] != "mine" {
		t.Errorf("the turn heard %q, want only its own session's chunk", got)
	}
}

// A turn that is already waiting when the start finishes gets the agent
// at once: no warm-up begins, so no throw-away session makes the agent
// work beside the turn's own first prompt.
func TestACPTurnWaitingForTheStartSkipsTheWarmUp(t *testing.T) {
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate")
	a := fakeACP(t, map[string]string{fakeACPInitGateEnv: gate})
	warmed := make(chan struct{}, 1)
	a.spec.warmUp = func(context.Context, *acpWarm, *Turn) { warmed <- struct{}{} }
	turn := fakeTurn(t, t.TempDir(), "s1", "", "say hello")
	if !a.StartEarly(turn, time.Now(), func(err error) { t.Errorf("start: %v", err) }) {
		t.Fatal("StartEarly did not start the agent")
	}
	done := make(chan error, 1)
	go func() {
		_, err := runACP(t, a, context.Background(), turn)
		done <- err
	}()
	// The turn waits on the start (initialize is held by the gate).
	deadline := time.Now().Add(30 * time.Second)
	for {
		a.mu.Lock()
		st := a.starting["s1"]
		a.mu.Unlock()
		if st != nil && closedChan(st.waited) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the turn never waited for the start")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the turn never ended")
	}
	select {
	case <-warmed:
		t.Error("a warm-up began although a turn was waiting for the start")
	default:
	}
}
