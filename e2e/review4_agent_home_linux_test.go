package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// quietACPAgent is a proper ACP agent (python, no packages) that answers
// every prompt with "ok": it stands in for qwen and codex-acp, whose
// session directories Core prepares before it runs them.
const quietACPAgent = `#!/usr/bin/python3
import sys, json
if "--version" in sys.argv:
    print("0.0.1"); sys.exit(0)
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    method, mid = m.get("method"), m.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": 1, "agentCapabilities": {"loadSession": True}, "authMethods": []}})
    elif method in ("session/new", "session/load"):
        send({"jsonrpc": "2.0", "id": mid, "result": {"sessionId": "q-1"}})
    elif method == "session/prompt":
        send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "q-1", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "ok"}}}})
        send({"jsonrpc": "2.0", "id": mid, "result": {"stopReason": "end_turn"}})
    elif mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
`

// plantedAgentHome runs Core with provider (qwen or codex-acp) played by
// quietACPAgent, no early start, creates a session, lets plant put what it
// likes in the session's directory, and runs one turn.
func plantedAgentHome(t *testing.T, provider string, plant func(sessionDir string), settings ...string) {
	t.Helper()
	state := t.TempDir()
	agent := filepath.Join(state, "agent.py")
	if err := os.WriteFile(agent, []byte(quietACPAgent), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := "[providers." + provider + "]\nexecutable = \"" + agent + "\"\nearly_start = false\nacp = true\n" + strings.Join(settings, "\n") + "\n"
	os.WriteFile(filepath.Join(state, "no-config.toml"), []byte(cfg), 0o600)
	// Certificates of its own, so Core writes codex-acp's bundle whatever
	// the machine has.
	certs := t.TempDir()
	writePEM(t, filepath.Join(certs, "a.pem"), testCACert(t, "a"))
	srv := testenv.ServeIn(t, testenv.FreeAddr(t), state, []string{"--allow-origin", pageOrigin}, "SSL_CERT_DIR="+certs)
	p := wspage.Dial(t, srv.WSURL, pageOrigin)
	info := p.CreateSession(wire.CreateSessionParams{Provider: provider, Skills: json.RawMessage(coreSkills)})
	dirs, _ := filepath.Glob(filepath.Join(state, "sessions", "*"))
	if len(dirs) != 1 {
		t.Fatalf("session directories %v, want one", dirs)
	}
	plant(dirs[0])
	done := p.AwaitDone(p.SendText(info.SessionID, "hello"), 60*time.Second)
	t.Logf("turn: %+v", done)
}

// A session's directory restored from a backup, or left by whoever could
// write there, holds links where Core writes an agent's files: Core must
// write its own files in the session's directory, never through a link to
// somewhere else (with Core as root, anywhere).
func TestAgentHomesAreNotWrittenThroughLinks(t *testing.T) {
	testenv.SkipShort(t, "the pedelec binary")
	t.Run("qwen settings.json a link", func(t *testing.T) {
		victim := filepath.Join(t.TempDir(), "victim")
		os.WriteFile(victim, []byte("precious\n"), 0o600)
		plantedAgentHome(t, "qwen", func(dir string) {
			os.MkdirAll(filepath.Join(dir, "qwen", ".qwen"), 0o700)
			os.Symlink(victim, filepath.Join(dir, "qwen", ".qwen", "settings.json"))
		})
		if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
			t.Fatalf("the file settings.json linked to now holds %q: Core wrote Qwen's settings through the link", data)
		}
	})
	t.Run("qwen home a link", func(t *testing.T) {
		elsewhere := t.TempDir()
		plantedAgentHome(t, "qwen", func(dir string) {
			os.Symlink(elsewhere, filepath.Join(dir, "qwen"))
		})
		if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
			t.Fatalf("Core wrote %d entries (%s…) into the directory the session's qwen home linked to", len(entries), entries[0].Name())
		}
	})
	t.Run("qwen .qwen a link", func(t *testing.T) {
		elsewhere := t.TempDir()
		plantedAgentHome(t, "qwen", func(dir string) {
			os.MkdirAll(filepath.Join(dir, "qwen"), 0o700)
			os.Symlink(elsewhere, filepath.Join(dir, "qwen", ".qwen"))
		})
		if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
			t.Fatalf("Core wrote %d entries (%s…) into the directory the session's .qwen linked to", len(entries), entries[0].Name())
		}
	})
	t.Run("codex-acp home a link", func(t *testing.T) {
		elsewhere := t.TempDir()
		keep := filepath.Join(elsewhere, "trusted-roots.d")
		os.Mkdir(keep, 0o700)
		os.WriteFile(filepath.Join(keep, "mine"), []byte("x"), 0o600)
		plantedAgentHome(t, "codex-acp", func(dir string) {
			os.Symlink(elsewhere, filepath.Join(dir, "codex-acp"))
		})
		if _, err := os.Stat(filepath.Join(keep, "mine")); err != nil {
			t.Errorf("Core removed what the directory the session's codex-acp home linked to held: %v", err)
		}
		if _, err := os.Lstat(filepath.Join(elsewhere, "trusted-roots.pem")); err == nil {
			t.Errorf("Core wrote the roots bundle into the directory the session's codex-acp home linked to")
		}
	})
	t.Run("codex-acp bundle a link", func(t *testing.T) { // review3's fix, again
		victim := filepath.Join(t.TempDir(), "victim")
		os.WriteFile(victim, []byte("precious\n"), 0o600)
		plantedAgentHome(t, "codex-acp", func(dir string) {
			os.MkdirAll(filepath.Join(dir, "codex-acp"), 0o700)
			os.Symlink(victim, filepath.Join(dir, "codex-acp", "trusted-roots.pem"))
		})
		if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
			t.Fatalf("the file the bundle linked to now holds %q", data)
		}
	})
	t.Run("opencode config a link", func(t *testing.T) { // it holds the API key
		victim := filepath.Join(t.TempDir(), "victim")
		os.WriteFile(victim, []byte("precious\n"), 0o644)
		plantedAgentHome(t, "opencode", func(dir string) {
			os.MkdirAll(filepath.Join(dir, "opencode"), 0o700)
			os.Symlink(victim, filepath.Join(dir, "opencode", "opencode.json"))
		}, `base_url = "http://127.0.0.1:9/v1"`, `api_key = "sk-review4-secret"`)
		if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
			t.Fatalf("the file opencode.json linked to now holds %d bytes (the API key: %v)", len(data), strings.Contains(string(data), "sk-review4-secret"))
		}
	})
}

// The same for the session's own directory, restored at Core's restart:
// its session-id file a link to a file elsewhere is replaced, not written
// through (with Core as root, a link to any file of the system).
func TestRestoredSessionIDFileIsNotWrittenThroughALink(t *testing.T) {
	testenv.SkipShort(t, "the pedelec binary")
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("precious\n"), 0o600)
	srv := testenv.Serve(t, []string{"--allow-origin", pageOrigin})
	p := wspage.Dial(t, srv.WSURL, pageOrigin)
	keep := false
	info := p.CreateSession(wire.CreateSessionParams{Provider: "script", Skills: json.RawMessage(coreSkills), AutoEndOnDisconnect: &keep})
	p.Close()
	srv.Stop(t)
	dirs, _ := filepath.Glob(filepath.Join(srv.StateDir, "sessions", "*"))
	if len(dirs) != 1 {
		t.Fatalf("session directories %v, want one", dirs)
	}
	os.Remove(filepath.Join(dirs[0], "session-id"))
	os.Symlink(victim, filepath.Join(dirs[0], "session-id"))
	srv.Restart(t)
	again := wspage.Dial(t, srv.WSURL, pageOrigin)
	again.Call(wire.MethodResumeSession, wire.ResumeSessionParams{SessionID: info.SessionID})
	if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
		t.Fatalf("the file session-id linked to now holds %q: Core wrote through the link", data)
	}
}
