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

// review5Agent is an ACP agent (python, no packages) that answers
// initialize, session/new and session/load, and misbehaves as its first
// argument says; its second is a file it writes "done" to once it has.
const review5Agent = `#!/usr/bin/python3
import sys, json, os
if "--version" in sys.argv:
    print("0.0.1"); sys.exit(0)
mode, marker = sys.argv[1], sys.argv[2]
out = sys.stdout
def send(m):
    out.write(json.dumps(m) + "\n"); out.flush()
def mark():
    with open(marker, "a") as f:
        f.write("done\n")
def activity(n, size):
    # tool calls of the agent's own, each with an id never seen before and
    # a long title: every one is handled at once, so no queue grows
    title = "t" * size
    for i in range(n):
        send({"jsonrpc": "2.0", "method": "session/update",
              "params": {"sessionId": "r5-1", "update": {"sessionUpdate": "tool_call",
                         "toolCallId": "call-%d" % i, "title": title, "kind": "other", "status": "pending"}}})
for line in sys.stdin:
    m = json.loads(line)
    method, mid = m.get("method"), m.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": 1, "agentCapabilities": {"loadSession": True}, "authMethods": []}})
    elif method in ("session/new", "session/load"):
        send({"jsonrpc": "2.0", "id": mid, "result": {"sessionId": "r5-1"}})
        if mode == "activity-idle":
            activity(3000, 256 << 10)
            mark()
    elif method == "session/prompt":
        if mode == "activity-turn":
            activity(1500, 64 << 10)
            mark()
        send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "r5-1", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "ok"}}}})
        send({"jsonrpc": "2.0", "id": mid, "result": {"stopReason": "end_turn"}})
    elif mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
`

// review5Core runs Core with provider "evil", review5Agent in mode.
func review5Core(t *testing.T, mode string) (srv *testenv.Server, p *wspage.Page, sid, marker string) {
	t.Helper()
	state := t.TempDir()
	agent := filepath.Join(state, "agent.py")
	if err := os.WriteFile(agent, []byte(review5Agent), 0o700); err != nil {
		t.Fatal(err)
	}
	marker = filepath.Join(state, "marker")
	cfg := "[providers.evil]\nacp = true\nexecutable = \"" + agent + "\"\nargs = [\"" + mode + "\", \"" + marker + "\"]\n"
	os.WriteFile(filepath.Join(state, "no-config.toml"), []byte(cfg), 0o600)
	srv = testenv.ServeIn(t, testenv.FreeAddr(t), state, []string{"--allow-origin", pageOrigin}, "PEDELEC_LOG_LEVEL=info")
	p = wspage.Dial(t, srv.WSURL, pageOrigin)
	autoEnd := true
	info := p.CreateSession(wire.CreateSessionParams{Provider: "evil", Skills: json.RawMessage(coreSkills), AutoEndOnDisconnect: &autoEnd})
	return srv, p, info.SessionID, marker
}

func awaitMarker(t *testing.T, marker string, timeout time.Duration) {
	t.Helper()
	testenv.Await(t, timeout, "the agent to have sent what its mode says", func() bool {
		data, _ := os.ReadFile(marker)
		return strings.Contains(string(data), "done")
	})
}

// An agent's own tool calls, each with a new id and a long title, between
// turns or in one: Core keeps what it needs of each (whether it is a page
// tool, a title to show) and no more, so its memory and its log stay
// bounded however many the agent sends (750 MiB of titles between turns,
// 94 MiB in a turn, where each is also an activity the page is shown).
func TestReview5ACPToolCallFloodIsBounded(t *testing.T) {
	testenv.SkipShort(t, "the pedelec binary")
	for _, c := range []struct {
		name, mode string
		asUser     bool
	}{
		{"between turns, Core as root", "activity-idle", false},
		{"in a turn, Core as root", "activity-turn", false},
		{"between turns, Core as a normal user", "activity-idle", true},
		{"in a turn, Core as a normal user", "activity-turn", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !review5AsUser(t, c.asUser) {
				return
			}
			srv, p, sid, marker := review5Core(t, c.mode)
			pid := srv.Cmd.Process.Pid
			before := coreRSS(t, pid)
			stop := make(chan struct{})
			peak := peakRSS(t, pid, stop)
			if c.mode == "activity-turn" {
				// Handled more slowly than they come (each is an activity the
				// page is shown), they may reach the bound on notifications
				// not handled yet: either outcome is the agent's, not Core's.
				done := p.AwaitDone(p.SendText(sid, "hello"), 5*time.Minute)
				t.Logf("the turn of the flood: ok %v %+v", done.OK, done.Error)
			} else {
				awaitMarker(t, marker, 3*time.Minute)
				// The flood is read in order before the turn's prompt is.
				if done := p.AwaitDone(p.SendText(sid, "hello"), 5*time.Minute); !done.OK {
					t.Fatalf("turn: %+v", done.Error)
				}
			}
			close(stop)
			top, after := <-peak, coreRSS(t, pid)
			logs := len(srv.Logs())
			t.Logf("Core's RSS: %d MiB before, %d MiB at the peak, %d MiB after; its log %d KiB", before, top, after, logs>>10)
			if after > before+200 {
				t.Errorf("Core holds %d MiB after the flood, %d MiB before: what it keeps of the agent's tool calls is not bounded", after, before)
			}
			if top > before+400 {
				t.Errorf("Core's RSS peaked at %d MiB, %d MiB before", top, before)
			}
			if logs > 8<<20 {
				t.Errorf("Core's log is %d MiB: the agent's titles went into it whole", logs>>20)
			}
			p.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})
			testenv.Await(t, 30*time.Second, "the agent's processes to be gone", func() bool { return len(sessionPIDs(sid)) == 0 })
		})
	}
}
