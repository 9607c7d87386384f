package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The real agents over ACP (issue 25), each against its scripted model:
// the page's tool reached as an MCP tool, a shell command the model asks
// for that does not run, a warm second turn on the same process, end()
// mid-turn, a Core restart and session/load, and an agent killed
// mid-turn. The endpoint settings (base_url, api_key, default_model) are
// the ones the native adapters take.

var geminiACPCLI = agentCLI{
	name:      "gemini",
	binary:    testenv.GeminiBinary,
	newServer: modelserver.NewGemini,
	env:       func(t testing.TB, _ string) map[string]string { return map[string]string{"HOME": t.TempDir()} },
	toolOutput: func(r modelserver.Request) string {
		out, _ := r.FunctionResponse()
		return out
	},
	settings: "default_model = \"" + modelserver.GeminiModel + "\"",
	settingsFor: func(baseURL string) string {
		return `base_url = "` + baseURL + `"` + "\napi_key = \"test-key\""
	},
}

var opencodeACPCLI = agentCLI{
	name:      "opencode",
	binary:    testenv.OpencodeBinary,
	newServer: modelserver.NewChatCLI,
	env:       func(t testing.TB, _ string) map[string]string { return map[string]string{"HOME": t.TempDir()} },
	toolOutput: func(r modelserver.Request) string {
		out, _ := r.ToolMessage()
		return out
	},
	settingsFor: modelserver.OpencodeSettings,
}

var claudeACPCLI = agentCLI{
	name:      "claude-acp",
	binary:    testenv.ClaudeACPBinary,
	newServer: modelserver.NewMessages,
	env:       func(t testing.TB, _ string) map[string]string { return map[string]string{"HOME": t.TempDir()} },
	toolOutput: func(r modelserver.Request) string {
		out, _, _ := r.ToolResult()
		return out
	},
	settingsFor: func(baseURL string) string {
		return `base_url = "` + baseURL + `"` + "\napi_key = \"test-key\""
	},
}

// Copilot and codex-acp: the same turns (not the other cases yet).
// gemini, opencode and copilot run over ACP by default: their ACP tests
// set nothing (the native adapter's tests set acp = false).
var copilotACPCLI = func() agentCLI { c := copilotCLI; c.settings = ""; return c }()

var codexACPCLI = agentCLI{
	name:      "codex-acp",
	binary:    testenv.CodexACPBinary,
	newServer: modelserver.NewResponses,
	env:       func(t testing.TB, _ string) map[string]string { return map[string]string{"HOME": t.TempDir()} },
	toolOutput: func(r modelserver.Request) string {
		out, _ := r.FunctionOutput()
		return out
	},
	settingsFor: func(baseURL string) string {
		return `base_url = "` + baseURL + `/v1"` + "\napi_key = \"test-key\"\ndefault_model = \"gpt-5.5\""
	},
}

func TestCopilotACPToolsShellAndWarmTurns(t *testing.T) { testACPTurns(t, copilotACPCLI) }
func TestCodexACPToolsShellAndWarmTurns(t *testing.T)   { testACPTurns(t, codexACPCLI) }

func TestGeminiACPToolsShellAndWarmTurns(t *testing.T)   { testACPTurns(t, geminiACPCLI) }
func TestOpencodeACPToolsShellAndWarmTurns(t *testing.T) { testACPTurns(t, opencodeACPCLI) }
func TestClaudeACPToolsShellAndWarmTurns(t *testing.T)   { testACPTurns(t, claudeACPCLI) }

func TestGeminiACPEndMidTurnLeavesNoProcess(t *testing.T)   { testACPEndMidTurn(t, geminiACPCLI) }
func TestOpencodeACPEndMidTurnLeavesNoProcess(t *testing.T) { testACPEndMidTurn(t, opencodeACPCLI) }
func TestClaudeACPEndMidTurnLeavesNoProcess(t *testing.T)   { testACPEndMidTurn(t, claudeACPCLI) }

func TestGeminiACPCrashMidTurn(t *testing.T)   { testACPCrash(t, geminiACPCLI) }
func TestOpencodeACPCrashMidTurn(t *testing.T) { testACPCrash(t, opencodeACPCLI) }
func TestClaudeACPCrashMidTurn(t *testing.T)   { testACPCrash(t, claudeACPCLI) }

func TestOpencodeACPLoadAfterCoreRestart(t *testing.T) { testACPRestart(t, opencodeACPCLI, true) }
func TestClaudeACPLoadAfterCoreRestart(t *testing.T)   { testACPRestart(t, claudeACPCLI, true) }

// Gemini CLI 0.61.0 loads its session after a Core restart within the
// same minute as the last turn only because Pedelec renames its chat file
// first (runtime/provider/gemini_acp_load.go): without that, the load
// itself clobbers the file and fails ("No previous sessions found").
func TestGeminiACPLoadAfterCoreRestart(t *testing.T) { testACPRestart(t, geminiACPCLI, true) }

// counterPage is a page whose update_counter adds delta to *counter.
func acpCounterPage(t *testing.T, srv *testenv.Server, counter *int) *wspage.Page {
	page := dialCLIPage(t, srv)
	page.Handle("update_counter", func(args json.RawMessage) any {
		var a struct{ Delta int }
		_ = json.Unmarshal(args, &a)
		*counter += a.Delta
		return map[string]int{"value": *counter}
	})
	return page
}

// anyAlive: one of pids still runs (the agent; a helper it ran may not).
func anyAlive(pids []int) bool {
	for _, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			return true
		}
	}
	return false
}

// sessionPIDs are the live processes of a session.
func sessionPIDs(sid string) []int {
	pids := testenv.ProcessesWithEnv(wire.EnvThreadID + "=" + sid)
	slices.Sort(pids)
	return pids
}

func testACPTurns(t *testing.T, cli agentCLI) {
	ms := cli.newServer(t)
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), cli.env(t, ms.URL))
	counter := 0
	page := acpCounterPage(t, srv, &counter)
	sid := cliSession(t, page, cli)

	// Turn 1: the model calls the page's tool, offered as an MCP tool;
	// the handler runs; its result is in the next model request.
	ms.Push(modelserver.Use("update_counter", map[string]int{"delta": 2}), modelserver.Say("The counter is now 2."))
	turnID, done := cliTurn(t, page, sid, "Add two to the counter.")
	if !done.OK {
		t.Fatalf("turn 1 failed: %+v", done.Error)
	}
	if counter != 2 {
		t.Errorf("counter = %d, want 2", counter)
	}
	reqs := ms.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model requests = %d, want 2", len(reqs))
	}
	if out := cli.toolOutput(reqs[1]); !strings.Contains(out, `"value":2`) && !strings.Contains(out, `"value": 2`) {
		t.Errorf("the next model request lacks the tool's result; it carried:\n%s", out)
	}
	if chat := page.Chat(turnID); !strings.Contains(chat, "The counter is now 2.") {
		t.Errorf("chat = %q", chat)
	}
	warm := sessionPIDs(sid)
	if len(warm) == 0 {
		t.Fatal("no agent process after turn 1: it should stay warm")
	}

	// Turn 2: the model asks for a shell command that would write a file:
	// it does not run (the built-in tools are removed, or the permission
	// is rejected), and the turn goes on.
	marker := filepath.Join(t.TempDir(), "pwned")
	ms.Push(modelserver.Run("touch "+marker), modelserver.Say("I could not run it."))
	_, done = cliTurn(t, page, sid, "Run touch.")
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the shell command ran: %s exists", marker)
	}
	if !done.OK {
		t.Logf("turn 2 (the refused command) ended with %+v", done.Error)
	}

	// Turn 3 on the same warm process: the model sees turn 1.
	ms.Push(modelserver.Say("I remember."))
	turnID, done = cliTurn(t, page, sid, "What did you do first?")
	if !done.OK {
		t.Fatalf("turn 3 failed: %+v", done.Error)
	}
	reqs = ms.Requests()
	if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, "The counter is now 2.") || !strings.Contains(body, "What did you do first?") {
		t.Errorf("turn 3's request lacks the conversation:\n%.3000s", body)
	}
	if chat := page.Chat(turnID); !strings.Contains(chat, "I remember.") {
		t.Errorf("chat = %q", chat)
	}
	if !anyAlive(warm) {
		t.Errorf("no process of turn 1 (%v) runs at turn 3 (%v): the turns were not warm", warm, sessionPIDs(sid))
	}
	page.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})
	noCLIProcessLeft(t, sid)
}

func testACPEndMidTurn(t *testing.T, cli agentCLI) {
	ms := cli.newServer(t, modelserver.Use("update_counter", map[string]int{"delta": 1}), modelserver.Say("never reached"))
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), cli.env(t, ms.URL))
	page := dialCLIPage(t, srv) // no handler: the call stays pending
	sid := cliSession(t, page, cli)
	page.SendText(sid, "add one")
	page.AwaitEvent(cliTurnWait, "the tool call to reach the page", func(e wire.Event) bool {
		return e.Event == wire.EventToolCall && e.SessionID == sid
	})
	if len(sessionPIDs(sid)) == 0 {
		t.Error("no agent process while the turn waits for the page")
	}
	page.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})
	page.AwaitEvent(10*time.Second, "the ended event", func(e wire.Event) bool {
		return e.Event == wire.EventEnded && e.SessionID == sid
	})
	noCLIProcessLeft(t, sid)
}

func testACPCrash(t *testing.T, cli agentCLI) {
	ms := cli.newServer(t, modelserver.Step{Hang: true})
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), cli.env(t, ms.URL))
	page := dialCLIPage(t, srv)
	sid := cliSession(t, page, cli)
	turnID := page.SendText(sid, "hang")
	testenv.Await(t, cliTurnWait, "the model request", func() bool { return len(ms.Requests()) > 0 })
	for _, pid := range sessionPIDs(sid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	done := page.AwaitDone(turnID, 60*time.Second)
	if done.OK || done.Error == nil || done.Error.Code != wire.CodeProviderError {
		t.Fatalf("a crashed agent's turn = %+v, want PROVIDER_ERROR", done)
	}
	t.Logf("crash reported as: %s", done.Error.Message)
	noCLIProcessLeft(t, sid)
}

func testACPRestart(t *testing.T, cli agentCLI, mustLoad bool) {
	ms := cli.newServer(t)
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), cli.env(t, ms.URL))
	counter := 0
	page := acpCounterPage(t, srv, &counter)
	sid := cliSession(t, page, cli)
	ms.Push(modelserver.Use("update_counter", map[string]int{"delta": 2}), modelserver.Say("The counter is now 2."))
	if _, done := cliTurn(t, page, sid, "Add two to the counter."); !done.OK {
		t.Fatalf("turn 1 failed: %+v", done.Error)
	}
	last := lastSeqOf(page, sid)
	srv.Stop(t)
	noCLIProcessLeft(t, sid) // the warm agent stopped with Core
	srv.Restart(t)

	page2 := acpCounterPage(t, srv, &counter)
	if info := resumeAfter(t, page2, sid, last); info.Status != wire.StatusIdle || info.Provider != cli.name {
		t.Fatalf("resumed = %+v", info)
	}
	ms.Push(modelserver.Say("I remember the counter."))
	turn, done := cliTurn(t, page2, sid, "What did you do before?")
	if !done.OK {
		t.Fatalf("the turn after the restart failed: %+v", done.Error)
	}
	reqs := ms.Requests()
	body := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(body, "What did you do before?") {
		t.Fatalf("the turn after the restart did not reach the model; it got:\n%.3000s", body)
	}
	if !strings.Contains(body, "The counter is now 2.") {
		if mustLoad {
			t.Fatalf("the turn after the restart did not load the ACP session; the model got:\n%.3000s", body)
		}
		t.Logf("%s did not load its ACP session after the restart: the turn ran on a new one", cli.name)
	}
	if chat := page2.Chat(turn); !strings.Contains(chat, "I remember the counter.") {
		t.Fatalf("chat = %q (a session/load replay must not reach the chat)", chat)
	}
	page2.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})
	noCLIProcessLeft(t, sid)
}

// The page in Chromium, through the SDK, with gemini over ACP: two turns
// whose tool calls reach the page's handler as MCP tool calls (an invalid
// one refused before it), then end() while a call waits: no process left.
func TestGeminiACPInBrowser(t *testing.T) {
	cli := geminiACPCLI
	ms := cli.newServer(t,
		modelserver.Use("update_counter", map[string]int{"delta": 2}),
		modelserver.Say("The counter is now 2."),
		modelserver.Use("update_counter", map[string]string{"delta": "two"}),
		modelserver.Say("That did not work."),
		modelserver.Use("update_counter", map[string]int{"delta": 1}),
	)
	serve := func(origin string) *testenv.Server { return serveCLI(t, cli, ms.URL, "--allow-origin", origin) }
	rep := runBrowserPage(t, cli.name, 4*cliTurnWait, serve, func(waiting browserReport) {
		if len(sessionPIDs(waiting.SessionID)) == 0 {
			t.Errorf("no agent process while the call waits for the page")
		}
	})
	if rep.MidTurn != wire.CodeSessionEnded || rep.HangingStatus != string(wire.StatusEnded) {
		t.Errorf("after end() mid-turn: sendText %q, status %q; want %s, %s", rep.MidTurn, rep.HangingStatus, wire.CodeSessionEnded, wire.StatusEnded)
	}
	noCLIProcessLeft(t, rep.HangingID)
	checkBrowserTurns(t, rep)
	reqs := ms.Requests()
	if out := cli.toolOutput(reqs[1]); !strings.Contains(out, `"value":2`) {
		t.Errorf("the agent's next request lacks the handler's result:\n%s", out)
	}
	noCLIProcessLeft(t, rep.SessionID)
}

var qwenACPCLI = agentCLI{
	name:      "qwen",
	binary:    testenv.QwenBinary,
	newServer: modelserver.NewChatCLI,
	env:       func(t testing.TB, _ string) map[string]string { return map[string]string{} },
	settingsFor: func(baseURL string) string {
		return `base_url = "` + baseURL + `/v1"` + "\napi_key = \"test-key\"\ndefault_model = \"" + modelserver.CLIChatModel + "\""
	},
}

// Qwen Code, offered only over ACP: a session starts it, answers, and a
// second turn runs on the same process. (Its MCP tools sit behind a
// tool_search step the scripted model does not take yet; its side calls,
// a memory subagent and suggestions, get the same answer.)
func TestQwenACPWarmTurns(t *testing.T) {
	cli := qwenACPCLI
	ms := cli.newServer(t, modelserver.Step{Text: "Hello from Qwen.", Repeat: true})
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), cli.env(t, ms.URL))
	page := dialCLIPage(t, srv)
	sid := cliSession(t, page, cli)
	turnID, done := cliTurn(t, page, sid, "Say hello.")
	if !done.OK {
		t.Fatalf("turn 1 failed: %+v", done.Error)
	}
	if chat := page.Chat(turnID); !strings.Contains(chat, "Hello from Qwen.") {
		t.Errorf("chat = %q", chat)
	}
	warm := sessionPIDs(sid)
	if _, done = cliTurn(t, page, sid, "Again."); !done.OK {
		t.Fatalf("turn 2 failed: %+v", done.Error)
	}
	if !anyAlive(warm) {
		t.Errorf("no process of turn 1 (%v) runs at turn 2 (%v): the turns were not warm", warm, sessionPIDs(sid))
	}
	page.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})
	noCLIProcessLeft(t, sid)
}
