package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// review5Qwen stands in for Qwen Code, which Core starts again whenever
// the page's tools change (RestartForTools): it says which tools its
// settings made visible, logs each start, and misbehaves at session/load
// as its mode says.
const review5Qwen = `#!/usr/bin/python3
import sys, json, os, time
MODE, LOG = %q, %q
if "--version" in sys.argv:
    print("0.24.4"); sys.exit(0)
with open(LOG, "a") as f:
    f.write("start %%d\n" %% os.getpid())
try:
    visible = json.load(open(os.path.join(os.environ["HOME"], ".qwen", "settings.json")))["tools"]["visible"]
except Exception as e:
    visible = ["unreadable: %%s" %% e]
out = sys.stdout
def send(m):
    out.write(json.dumps(m) + "\n"); out.flush()
sid = "q-%%d" %% os.getpid()
for line in sys.stdin:
    m = json.loads(line)
    method, mid, params = m.get("method"), m.get("id"), m.get("params") or {}
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": 1, "agentCapabilities": {"loadSession": True}, "authMethods": []}})
    elif method == "session/new":
        send({"jsonrpc": "2.0", "id": mid, "result": {"sessionId": sid}})
    elif method == "session/load":
        sid = params.get("sessionId", sid)
        if MODE == "die-at-load":
            sys.exit(3)
        if MODE == "slow-load":
            time.sleep(2)
        if MODE == "error-load":
            send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32002, "message": "no such session"}})
            continue
        if MODE == "flood-load":
            for i in range(3000):
                send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "replay %%d" %% i}}}})
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
    elif method == "session/prompt":
        send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "visible: " + " ".join(visible)}}}})
        send({"jsonrpc": "2.0", "id": mid, "result": {"stopReason": "end_turn"}})
    elif mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
`

// Two tool lists the page flaps between; it ends on review5ToolsB.
const (
	review5ToolsA = `[{"name": "get_current_page", "description": "Read the page.", "argsSchema": {"type": "object", "properties": {}}},
	  {"name": "slow_tool", "description": "Slow.", "argsSchema": {"type": "object", "properties": {}}}]`
	review5ToolsB = `[{"name": "get_current_page", "description": "Read the page.", "argsSchema": {"type": "object", "properties": {}}},
	  {"name": "last_tool", "description": "The last list's.", "argsSchema": {"type": "object", "properties": {}}}]`
)

// A page that flaps update_tools as fast as it can, under a Qwen that
// dies at session/load, answers it late, answers it with an error or
// replays 3,000 updates during it: the session never has more than one
// agent, the starts are bounded by the updates, a turn afterwards answers
// with the page's last tools (or, for the agent that cannot load, fails
// with PROVIDER_ERROR saying why; an agent replaying a long history is
// honest, and is never stopped for it), and no process is left once the
// session ends.
func TestReview5RestartForToolsUnderFlappingTools(t *testing.T) {
	testenv.SkipShort(t, "the pedelec binary")
	for _, asUser := range []bool{false, true} {
		for _, mode := range []string{"normal", "die-at-load", "slow-load", "error-load", "flood-load"} {
			who := "root"
			if asUser {
				who = "a normal user"
			}
			t.Run(mode+", Core as "+who, func(t *testing.T) {
				if !review5AsUser(t, asUser) {
					return
				}
				review5FlapTools(t, mode)
			})
		}
	}
}

func review5FlapTools(t *testing.T, mode string) {
	state := t.TempDir()
	starts := filepath.Join(state, "starts")
	agent := filepath.Join(state, "qwen.py")
	if err := os.WriteFile(agent, []byte(fmt.Sprintf(review5Qwen, mode, starts)), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := "[providers.qwen]\nacp = true\nexecutable = \"" + agent + "\"\n"
	os.WriteFile(filepath.Join(state, "no-config.toml"), []byte(cfg), 0o600)
	srv := testenv.ServeIn(t, testenv.FreeAddr(t), state, []string{"--allow-origin", pageOrigin}, "PEDELEC_LOG_LEVEL=info")
	p := wspage.Dial(t, srv.WSURL, pageOrigin)
	info := p.CreateSession(wire.CreateSessionParams{Provider: "qwen", Skills: json.RawMessage(coreSkills)})
	sid := info.SessionID
	// A first turn gives the session an ACP session id: every restart
	// after it loads that session.
	if done := p.AwaitDone(p.SendText(sid, "hello"), 2*time.Minute); !done.OK {
		t.Fatalf("first turn: %+v", done.Error)
	}

	// Watch the session's agents while the page flaps its tools.
	var most atomic.Int64
	stop := make(chan struct{})
	var watched sync.WaitGroup
	watched.Add(1)
	go func() {
		defer watched.Done()
		for {
			if n := int64(len(sessionPIDs(sid))); n > most.Load() {
				most.Store(n)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	updates := 0
	for end := time.Now().Add(6 * time.Second); time.Now().Before(end); updates++ {
		tools := review5ToolsA
		if updates%2 == 1 {
			tools = review5ToolsB
		}
		p.MustCall(wire.MethodUpdateTools, map[string]any{"sessionId": sid, "tools": json.RawMessage(tools)})
	}
	if updates%2 == 1 { // the last was A
		p.MustCall(wire.MethodUpdateTools, map[string]any{"sessionId": sid, "tools": json.RawMessage(review5ToolsB)})
		updates++
	}
	turn := p.SendText(sid, "which tools?")
	done := p.AwaitDone(turn, 3*time.Minute)
	close(stop)
	watched.Wait()
	data, _ := os.ReadFile(starts)
	n := strings.Count(string(data), "start ")
	t.Logf("%d updates, %d agent starts, at most %d agent processes at once; the turn after: ok %v %+v", updates, n, most.Load(), done.OK, done.Error)
	if most.Load() > 1 {
		t.Errorf("the session had %d agent processes at once", most.Load())
	}
	if n > updates+3 {
		t.Errorf("%d agent starts for %d updates", n, updates)
	}
	switch {
	case mode == "die-at-load":
		if done.OK || done.Error == nil || done.Error.Code != wire.CodeProviderError {
			t.Errorf("the turn on an agent that dies at session/load: %+v, want PROVIDER_ERROR", done)
		}
	case !done.OK:
		t.Errorf("the turn after the flapping failed: %+v", done.Error)
	default:
		chat := p.Chat(turn)
		if !strings.Contains(chat, "last_tool") || strings.Contains(chat, "slow_tool") {
			t.Errorf("the turn's agent does not have the page's last tools: %q", chat)
		}
	}
	p.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})
	testenv.Await(t, 30*time.Second, "the session's processes to be gone", func() bool { return len(sessionPIDs(sid)) == 0 })
	testenv.Await(t, 30*time.Second, "no zombie children of Core", func() bool { return len(zombieChildren(srv.Cmd.Process.Pid)) == 0 })
}
