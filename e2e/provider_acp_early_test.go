package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// ACP agents start when the session is created, not at its first
// sendText. None of these is timed: they assert which agent processes
// run when, and what the page was told; deadlines only guard a hang.

// awaitEarlyAgentIdle waits for the agent createSession started and then
// for it to go quiet (its start, and what it connects after session/new,
// are over), as a user typing would.
func awaitEarlyAgentIdle(t *testing.T, srv *testenv.Server, sid string) {
	t.Helper()
	testenv.Await(t, cliTurnWait, "the agent started by createSession", func() bool { return len(agentLeaders(srv, sid)) > 0 })
	awaitIdleAgent(sid)
}

// agentLeaders are the session's processes Core started itself (its
// children): one per agent, whatever the agent starts under it.
func agentLeaders(srv *testenv.Server, sid string) []int {
	var out []int
	for _, pid := range sessionPIDs(sid) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so after ')'.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(srv.Cmd.Process.Pid) {
			out = append(out, pid)
		}
	}
	return out
}

// Gemini over ACP: createSession starts the agent with nothing sent; the
// first sendText, sent at once, runs on that agent (no second one), and
// its tool call reaches the page's handler.
func TestGeminiACPStartsAtCreateSession(t *testing.T) {
	cli := geminiACPCLI
	ms := cli.newServer(t)
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), cli.env(t, ms.URL))
	counter := 0
	page := acpCounterPage(t, srv, &counter)
	sid := cliSession(t, page, cli)
	var early []int
	testenv.Await(t, cliTurnWait, "the agent started by createSession", func() bool {
		early = agentLeaders(srv, sid)
		return len(early) > 0
	})
	if len(early) != 1 {
		t.Fatalf("createSession started %d agents (%v), want one", len(early), early)
	}
	ms.Push(modelserver.Use("update_counter", map[string]int{"delta": 2}), modelserver.Say("The counter is now 2."))
	if _, done := cliTurn(t, page, sid, "Add two to the counter."); !done.OK {
		t.Fatalf("the first turn failed: %+v", done.Error)
	}
	if counter != 2 {
		t.Errorf("counter = %d, want 2 (the handler ran)", counter)
	}
	if now := agentLeaders(srv, sid); !slices.Equal(now, early) {
		t.Errorf("agents after the first turn %v, want only the one createSession started %v", now, early)
	}
	if n := strings.Count(srv.Logs(), "agent starting ahead of the first turn"); n != 1 {
		t.Errorf("early starts logged: %d, want 1", n)
	}
	page.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})
	noCLIProcessLeft(t, sid)
}

// A session that never sends anything costs its agent for the idle time,
// then nothing; a Core restarted after that starts no agent for it, and
// one for a session active within the idle time.
func TestGeminiACPEarlyAgentsBoundedByIdle(t *testing.T) {
	cli := geminiACPCLI
	cli.settings += "\nidle_timeout = \"2s\""
	ms := cli.newServer(t)
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), cli.env(t, ms.URL))
	page := acpCounterPage(t, srv, new(int))
	keep := false
	create := func() string {
		info := page.CreateSession(wire.CreateSessionParams{Provider: cli.name, Skills: json.RawMessage(cliCounterSkills), AutoEndOnDisconnect: &keep})
		return info.SessionID
	}
	quiet := create()
	testenv.Await(t, cliTurnWait, "the quiet session's agent", func() bool { return len(agentLeaders(srv, quiet)) > 0 })
	testenv.Await(t, cliTurnWait, "the quiet session's agent stopped after its idle time", func() bool {
		return len(sessionPIDs(quiet)) == 0
	})
	recent := create()
	testenv.Await(t, cliTurnWait, "the recent session's agent", func() bool { return len(agentLeaders(srv, recent)) > 0 })
	srv.Stop(t)
	noCLIProcessLeft(t, recent)
	srv.Restart(t)
	testenv.Await(t, cliTurnWait, "the restored agents' start", func() bool {
		return strings.Contains(srv.Logs(), "restored sessions' agents starting")
	})
	restart := srv.Logs()[strings.LastIndex(srv.Logs(), "---- restart ----"):]
	if !strings.Contains(restart, "started=1 restored=2") {
		t.Errorf("after the restart: %q, want one agent started for two restored sessions", lineWith(restart, "restored sessions' agents starting"))
	}
	if len(sessionPIDs(quiet)) != 0 {
		t.Errorf("the quiet session, idle longer than its idle time, got an agent at the restart")
	}
	testenv.Await(t, cliTurnWait, "the recent session's agent after the restart", func() bool { return len(agentLeaders(srv, recent)) > 0 })
	testenv.Await(t, cliTurnWait, "its agent stopped after its idle time", func() bool { return len(sessionPIDs(recent)) == 0 })
}

// An agent that fails to start is reported on the session before any
// turn: status error and an error event carrying the agent's stderr; the
// first sendText tries once more.
func TestACPFailedEarlyStartReportedBeforeTurn(t *testing.T) {
	// An agent that answers --version (so it is listed available) and
	// dies at once otherwise, saying why on stderr.
	agent := filepath.Join(t.TempDir(), "broken-agent")
	script := "#!/bin/sh\n[ \"$1\" = --version ] && { echo 1.0.0; exit 0; }\necho no model configured >&2\nexit 2\n"
	if err := os.WriteFile(agent, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	cli := agentCLI{name: "broken", binary: func(testing.TB) string { return agent }, settings: "acp = true"}
	srv := serveCLIEnv(t, cli, nil)
	page := dialCLIPage(t, srv)
	info := page.CreateSession(wire.CreateSessionParams{Provider: cli.name, Skills: json.RawMessage(cliCounterSkills)})
	ev := page.AwaitEvent(60*time.Second, "the failed start's error", func(e wire.Event) bool {
		return e.Event == wire.EventError && e.SessionID == info.SessionID
	})
	var data wire.ErrorData
	if err := json.Unmarshal(ev.Data.(json.RawMessage), &data); err != nil {
		t.Fatal(err)
	}
	if ev.TurnID != "" || data.Error == nil || data.Error.Code != wire.CodeProviderError {
		t.Fatalf("the start's error event = %+v", ev)
	}
	if details, _ := json.Marshal(data.Error.Details); !strings.Contains(string(details), "no model configured") {
		t.Errorf("the error's details %s lack the agent's stderr", details)
	}
	page.AwaitEvent(10*time.Second, "status error", func(e wire.Event) bool {
		return e.Event == wire.EventStatusChanged && e.SessionID == info.SessionID && strings.Contains(string(e.Data.(json.RawMessage)), `"status":"error"`)
	})
	turn := page.SendText(info.SessionID, "hello")
	done := page.AwaitDone(turn, 60*time.Second)
	if done.OK || done.Error == nil || done.Error.Code != wire.CodeProviderError {
		t.Fatalf("the turn after a failed start = %+v, want PROVIDER_ERROR from its own try", done)
	}
	if n := strings.Count(srv.Logs(), "the agent did not start"); n != 1 {
		t.Errorf("failed starts reported: %d, want 1 (the turn reports its own)", n)
	}
}

func lineWith(s, part string) string {
	for _, l := range testenv.Lines(s) {
		if strings.Contains(l, part) {
			return l
		}
	}
	return ""
}
