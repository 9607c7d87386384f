package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// hostileACPAgent is an ACP agent (python, no packages) that misbehaves
// from its first byte, as its first argument says.
const hostileACPAgent = `import sys, os, json, time
mode = sys.argv[1]
out = sys.stdout
def send(m):
    out.write(json.dumps(m) + "\n"); out.flush()
if mode == "flood":
    # requests from the start, during Core's early start, never reading stdin
    i = 0
    while True:
        i += 1
        send({"jsonrpc": "2.0", "id": i, "method": "session/request_permission",
              "params": {"sessionId": "x", "toolCall": {"toolCallId": str(i), "title": "rm -rf ~"},
                         "options": [{"optionId": "a", "name": "Allow", "kind": "allow_once"}]}})
if mode == "mute":
    # never answers: Core's early start waits on initialize
    for line in sys.stdin:
        pass
    time.sleep(3600)
if mode == "notify":
    # a proper agent, but for updates of a session it was never given, in
    # every turn, big and with a right-to-left override
    blob = "\u202e" + "x" * 60000
    for line in sys.stdin:
        m = json.loads(line)
        method, mid = m.get("method"), m.get("id")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}})
        elif method == "session/new":
            send({"jsonrpc": "2.0", "id": mid, "result": {"sessionId": "real-1"}})
        elif method == "session/prompt":
            for i in range(50):
                send({"jsonrpc": "2.0", "method": "session/update",
                      "params": {"sessionId": "someone-else", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": blob}}}})
            send({"jsonrpc": "2.0", "method": "session/update",
                  "params": {"sessionId": "real-1", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hello from the agent"}}}})
            send({"jsonrpc": "2.0", "id": mid, "result": {"stopReason": "end_turn"}})
        elif mid is not None:
            send({"jsonrpc": "2.0", "id": mid, "result": {}})
`

func hostileACPCore(t *testing.T, mode string) (*testenv.Server, *wspage.Page, string) {
	t.Helper()
	state := t.TempDir()
	script := filepath.Join(state, "agent.py")
	os.WriteFile(script, []byte(hostileACPAgent), 0o700)
	cfg := "[providers.evil]\nacp = true\nexecutable = \"/usr/bin/python3\"\nargs = [" + `"` + script + `", "` + mode + `"]` + "\n"
	os.WriteFile(filepath.Join(state, "no-config.toml"), []byte(cfg), 0o600)
	srv := testenv.ServeIn(t, testenv.FreeAddr(t), state, []string{"--allow-origin", pageOrigin})
	p := wspage.Dial(t, srv.WSURL, pageOrigin)
	autoEnd := true
	info := p.CreateSession(wire.CreateSessionParams{Provider: "evil", Skills: json.RawMessage(coreSkills), AutoEndOnDisconnect: &autoEnd})
	return srv, p, info.SessionID
}

// An ACP agent that floods requests from its first byte, while Core starts
// it ahead of the first turn, and never reads its stdin: it is stopped,
// Core's goroutines come back, and the turn says why.
func TestHostileACPAgentFloodsDuringEarlyStart(t *testing.T) {
	testenv.SkipShort(t, "the pedelec binary")
	srv, p, sid := hostileACPCore(t, "flood")
	base := debugCounts(t, srv)
	turn := p.SendText(sid, "hello")
	done := p.AwaitDone(turn, 90*time.Second)
	if done.OK || done.Error == nil || done.Error.Code != wire.CodeProviderError {
		t.Fatalf("turn on a flooding agent: %+v, want PROVIDER_ERROR", done)
	}
	t.Logf("turn: %s", done.Error.Message)
	testenv.Await(t, 30*time.Second, "the agent's processes to be gone", func() bool {
		return len(sessionPIDs(sid)) == 0
	})
	n := debugCounts(t, srv)
	if n.Goroutines > base.Goroutines+50 {
		t.Fatalf("goroutines %d after the flood, %d before", n.Goroutines, base.Goroutines)
	}
}

// An agent that floods session/update for a session it was never given,
// with a right-to-left override: nothing reaches the page's chat, and the
// log says it once.
func TestHostileACPAgentUpdatesForAnotherSession(t *testing.T) {
	testenv.SkipShort(t, "the pedelec binary")
	srv, p, sid := hostileACPCore(t, "notify")
	for range 2 {
		turn := p.SendText(sid, "hello")
		if done := p.AwaitDone(turn, 90*time.Second); !done.OK {
			t.Fatalf("turn: %+v", done.Error)
		}
		chat := p.Chat(turn)
		if strings.Contains(chat, "xxxx") || strings.Contains(chat, "\u202e") {
			t.Fatalf("updates for another session reached the chat (%d bytes)", len(chat))
		}
		if !strings.Contains(chat, "hello from the agent") {
			t.Fatalf("the agent's own chat is missing: %q", chat)
		}
	}
	if n := strings.Count(srv.Logs(), "someone-else"); n > 2 {
		t.Fatalf("the unknown session is logged %d times", n)
	}
}

// Sessions of an agent that never answers, created and ended in a loop,
// each starting an agent early: none is left running, and none is left a
// zombie of Core.
func TestHostileACPAgentsCreatedAndEndedInALoop(t *testing.T) {
	testenv.SkipShort(t, "the pedelec binary")
	srv, p, first := hostileACPCore(t, "mute")
	ids := []string{first}
	autoEnd := true
	for range 40 {
		info := p.CreateSession(wire.CreateSessionParams{Provider: "evil", Skills: json.RawMessage(coreSkills), AutoEndOnDisconnect: &autoEnd})
		ids = append(ids, info.SessionID)
		p.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: info.SessionID})
	}
	p.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: first})
	testenv.Await(t, 60*time.Second, "every early-started agent to be gone", func() bool {
		for _, sid := range ids {
			if len(sessionPIDs(sid)) > 0 {
				return false
			}
		}
		return true
	})
	if n := strings.Count(srv.Logs(), "agent starting ahead of the first turn"); n < len(ids)/2 {
		t.Fatalf("only %d of %d sessions started their agent early", n, len(ids))
	}
	testenv.Await(t, 30*time.Second, "no zombie children of Core", func() bool {
		return len(zombieChildren(srv.Cmd.Process.Pid)) == 0
	})
}

// zombieChildren are the pids of ppid's children that exited unreaped.
func zombieChildren(ppid int) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		stat, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[0] == "Z" && f[1] == itoa(ppid) {
			var pid int
			fmt.Sscanf(filepath.Base(filepath.Dir(d)), "%d", &pid)
			out = append(out, pid)
		}
	}
	return out
}
