package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The provider tests run a real agent CLI through `pedelec serve` against
// a scripted model server, with a page on the other side. The page is a Go
// WebSocket client speaking docs/protocol.md: it creates a session with an
// update_counter tool, sends text, answers tool calls and records events.

// agentCLI is what differs between the CLI providers in these tests.
type agentCLI struct {
	name      string
	binary    func(testing.TB) string
	newServer func(testing.TB, ...modelserver.Step) *modelserver.Server
	// env points the CLI at a model server URL.
	env func(t testing.TB, baseURL string) map[string]string
	// toolOutput is what the CLI sent back to the model after a command.
	toolOutput func(modelserver.Request) string
	// settings are extra TOML lines for [providers.<name>] (default_model, ...).
	settings string
	// settingsFor, if set, are more such lines for a model server URL
	// (base_url, for a CLI whose endpoint Pedelec configures).
	settingsFor func(baseURL string) string
	// allowSleep returns extra settings lines that let the agent run
	// `sleep` too, for the test that ends a session while a command the
	// agent started is still running.
	allowSleep func(t *testing.T) string
	// allowSleepIn, if set, does what else that takes in the session's
	// working directory before the turn.
	allowSleepIn func(t *testing.T, workDir string)
	// slowStart, if set, bounds how long the CLI may take to send its
	// first model request on a loaded machine (default 40 s).
	slowStart time.Duration
	// privateHome says env gives HOME a fresh directory that the CLI must
	// leave empty: its state belongs in the session's own directories.
	privateHome bool
	// redirectRuns says the CLI does not check a redirect on an allowed
	// command (opencode): `pedelec ... > file` runs and writes the file.
	redirectRuns bool
	// refusal is a phrase of the CLI's refusal, for redirectRuns.
	refusal string
}

var codexCLI = agentCLI{
	name:      "codex",
	binary:    testenv.CodexBinary,
	newServer: modelserver.NewResponses,
	env:       modelserver.CodexHome,
	toolOutput: func(r modelserver.Request) string {
		out, _ := r.FunctionOutput()
		return out
	},
}

func TestCodexThroughCore(t *testing.T)               { testCLIToolCallsAndResume(t, codexCLI) }
func TestCodexInBrowser(t *testing.T)                 { testCLIInBrowser(t, codexCLI) }
func TestCodexModelErrorThroughCore(t *testing.T)     { testCLIModelError(t, codexCLI, "mock bad request") }
func TestCodexModelDownThroughCore(t *testing.T)      { testCLIModelDown(t, codexCLI) }
func TestCodexEndMidTurnLeavesNoProcess(t *testing.T) { testCLIEndMidTurn(t, codexCLI) }

// cliCounterSkills is the page's manifest: one tool with a strict schema.
const cliCounterSkills = `{
  "guidance": "Use update_counter to change the counter.",
  "tools": [{
    "name": "update_counter",
    "description": "Add delta to the page's counter and return the new value.",
    "argsSchema": {"type": "object", "properties": {"delta": {"type": "integer"}}, "required": ["delta"]},
    "timeoutMs": 30000
  }]
}`

// serveCLI writes a config file for cli against baseURL and starts serve.
func serveCLI(t testing.TB, cli agentCLI, baseURL string, args ...string) *testenv.Server {
	t.Helper()
	return serveCLIEnv(t, withBaseURL(cli, baseURL), cli.env(t, baseURL), args...)
}

// withBaseURL is cli with its settingsFor(baseURL) added to its settings.
func withBaseURL(cli agentCLI, baseURL string) agentCLI {
	if cli.settingsFor != nil {
		cli.settings += "\n" + cli.settingsFor(baseURL)
		cli.settingsFor = nil
	}
	return cli
}

// serveCLIEnv is serveCLI with the CLI's environment given.
func serveCLIEnv(t testing.TB, cli agentCLI, env map[string]string, args ...string) *testenv.Server {
	t.Helper()
	return testenv.Serve(t, append([]string{"--config", cliConfig(t, cli, env)}, args...))
}

// cliConfig writes Core's config for cli, with env as the provider's env
// settings, and returns its path.
func cliConfig(t testing.TB, cli agentCLI, env map[string]string) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "default_provider = %q\n[providers.%s]\nexecutable = %s\n%s\n[providers.%s.env]\n",
		cli.name, cli.name, strconv.Quote(cli.binary(t)), cli.settings, cli.name)
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s = %s\n", k, strconv.Quote(env[k]))
	}
	config := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(config, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return config
}

func testCLIToolCallsAndResume(t *testing.T, cli agentCLI) {
	ms := cli.newServer(t)
	env := cli.env(t, ms.URL)
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), env)
	if cli.privateHome {
		defer func() {
			if entries, err := os.ReadDir(env["HOME"]); err != nil || len(entries) > 0 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("the CLI wrote into HOME (%v): %v; its state belongs under the session", err, names)
			}
		}()
	}
	page := dialCLIPage(t, srv)
	counter := 0
	page.Handle("update_counter", func(args json.RawMessage) any {
		var a struct{ Delta int }
		_ = json.Unmarshal(args, &a)
		counter += a.Delta
		return map[string]int{"value": counter}
	})
	sid := cliSession(t, page, cli)
	// The form the first-turn prompt teaches (and the seeds use).
	ms.Push(
		modelserver.Run(`pedelec-cli --thread-id `+sid+` tool-call update_counter '{"delta":2}'`),
		modelserver.Say("The counter is now 2."),
	)

	// Turn 1: the model asks for the tool; the page's handler runs; the
	// result goes back to the model; the final text reaches the chat.
	turnID, done := cliTurn(t, page, sid, "Add two to the counter.")
	if done.Error != nil || !done.OK {
		t.Fatalf("turn 1 failed: %+v", done.Error)
	}
	if counter != 2 {
		t.Errorf("counter = %d, want 2: the handler did not run once with delta 2", counter)
	}
	reqs := ms.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model requests = %d, want 2", len(reqs))
	}
	if out := cli.toolOutput(reqs[1]); !strings.Contains(out, `{"ok":true,"result":{"value":2}}`) {
		t.Errorf("the agent's next request lacks the tool result; it sent back:\n%s", out)
	}
	if chat := page.Chat(turnID); chat != "The counter is now 2." {
		t.Errorf("chat = %q", chat)
	}

	// Turn 2 resumes the same provider thread: the model sees turn 1. An
	// invalid call (in the short form) comes back to the model with
	// TOOL_ARGS_INVALID and the handler does not run.
	ms.Push(
		modelserver.Run(`pedelec tool-call update_counter '{"delta":"two"}'`),
		modelserver.Say("That did not work."),
	)
	turnID, done = cliTurn(t, page, sid, "Now add the word two.")
	if done.Error != nil || !done.OK {
		t.Fatalf("turn 2 failed: %+v", done.Error)
	}
	reqs = ms.Requests()
	if len(reqs) != 4 {
		t.Fatalf("model requests = %d, want 4", len(reqs))
	}
	if body := string(reqs[2].Body); !strings.Contains(body, "Now add the word two.") || !strings.Contains(body, "The counter is now 2.") {
		t.Errorf("turn 2's first request does not carry turn 1: the thread was not resumed")
	}
	if out := cli.toolOutput(reqs[3]); !strings.Contains(out, string(wire.CodeToolArgsInvalid)) {
		t.Errorf("the invalid call's result lacks %s; the agent sent back:\n%s", wire.CodeToolArgsInvalid, out)
	}
	if counter != 2 {
		t.Errorf("counter = %d: the handler ran for an invalid call", counter)
	}
	if chat := page.Chat(turnID); chat != "That did not work." {
		t.Errorf("turn 2 chat = %q", chat)
	}
}

func testCLIModelError(t *testing.T, cli agentCLI, message string) {
	step := modelserver.FailWith(400, message)
	step.Repeat = true
	ms := cli.newServer(t, step)
	srv := serveCLI(t, cli, ms.URL)
	page := dialCLIPage(t, srv)
	sid := cliSession(t, page, cli)
	turnID, done := cliTurn(t, page, sid, "hello")
	if done.OK || done.Error == nil {
		t.Fatalf("turn succeeded, want a session error")
	}
	if done.Error.Code != wire.CodeProviderError || !strings.Contains(done.Error.Message, message) {
		t.Errorf("error = %s: %s; want %s carrying %q", done.Error.Code, done.Error.Message, wire.CodeProviderError, message)
	}
	var e *wire.Error
	if errs := page.Errors(turnID); len(errs) > 0 {
		e = errs[0]
	}
	if e == nil || e.Code != wire.CodeProviderError {
		t.Errorf("error event = %+v, want the same PROVIDER_ERROR", e)
	}
	noCLIProcessLeft(t, sid)
}

func testCLIModelDown(t *testing.T, cli agentCLI) {
	down := modelserver.DownURL(t)
	env := cli.env(t, down)
	cli = withBaseURL(cli, down)
	// Codex retries an unreachable server forever. Claude Code retries too,
	// with backoff, unless told not to: let it, as a user's would.
	delete(env, "CLAUDE_CODE_MAX_RETRIES")
	srv := serveCLIEnv(t, cli, env, "--turn-timeout", "4s")
	page := dialCLIPage(t, srv)
	sid := cliSession(t, page, cli)
	start := time.Now()
	_, done := cliTurn(t, page, sid, "hello")
	took := time.Since(start)
	if done.OK || done.Error == nil {
		t.Fatalf("turn succeeded against a model server that is down")
	}
	if done.Error.Code != wire.CodeProviderTimeout {
		t.Errorf("error = %s: %s; want %s", done.Error.Code, done.Error.Message, wire.CodeProviderTimeout)
	}
	if took < 4*time.Second || took > 12*time.Second {
		t.Errorf("the turn ended %s after it started, want soon after the 4s deadline", took)
	}
	noCLIProcessLeft(t, sid)
}

func testCLIEndMidTurn(t *testing.T, cli agentCLI) {
	ms := cli.newServer(t,
		modelserver.Run(`pedelec tool-call update_counter '{"delta":1}'`),
		modelserver.Say("never reached"),
	)
	srv := serveCLI(t, cli, ms.URL)
	// No handler for update_counter: the page never answers, the call stays
	// pending.
	page := dialCLIPage(t, srv)
	sid := cliSession(t, page, cli)
	page.SendText(sid, "add one")
	page.AwaitEvent(cliTurnWait, "the tool call to reach the page", func(e wire.Event) bool {
		return e.Event == wire.EventToolCall && e.SessionID == sid
	})
	if pids := testenv.ProcessesWithEnv(wire.EnvThreadID + "=" + sid); len(pids) < 2 {
		t.Errorf("processes of the session = %v, want the CLI and its pedelec tool-call", pids)
	}
	page.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})
	page.AwaitEvent(10*time.Second, "the ended event", func(e wire.Event) bool {
		return e.Event == wire.EventEnded && e.SessionID == sid
	})
	noCLIProcessLeft(t, sid)
}

// noCLIProcessLeft waits a little for every process of the session to go.
func noCLIProcessLeft(t *testing.T, sid string) {
	t.Helper()
	entry := wire.EnvThreadID + "=" + sid
	testenv.Await(t, 5*time.Second, "no process left behind with "+entry, func() bool {
		return len(testenv.ProcessesWithEnv(entry)) == 0
	})
}

// ---- the page: a wspage.Page with the update_counter manifest ----

// dialCLIPage connects a page to srv. A result of its handlers that Core
// refuses fails the test.
func dialCLIPage(t testing.TB, srv *testenv.Server) *wspage.Page {
	t.Helper()
	page := wspage.Dial(t, srv.WSURL, srv.URL)
	t.Cleanup(func() {
		if errs := page.SubmitErrors(); len(errs) > 0 {
			t.Errorf("submit_tool_result failed: %+v", errs)
		}
	})
	return page
}

// cliSession creates a session of cli with cliCounterSkills.
func cliSession(t testing.TB, page *wspage.Page, cli agentCLI) string {
	t.Helper()
	info := page.CreateSession(wire.CreateSessionParams{Provider: cli.name, Skills: json.RawMessage(cliCounterSkills)})
	if info.SessionID == "" {
		t.Fatalf("create_session: no session id")
	}
	if info.Provider != cli.name {
		t.Fatalf("session provider = %q, want %q", info.Provider, cli.name)
	}
	return info.SessionID
}

// cliTurnWait bounds one turn of a real CLI. opencode (a 185 MB binary)
// took 80 s for one turn on a loaded 2-core machine: the bound is generous
// so that load does not fail a test; nothing it asserts depends on it.
const cliTurnWait = 240 * time.Second

// cliTurn starts a turn and waits for its done event.
func cliTurn(t *testing.T, page *wspage.Page, sid, text string) (turnID string, done wire.DoneData) {
	t.Helper()
	turnID = page.SendText(sid, text)
	if turnID == "" {
		t.Fatalf("send_text: no turn id")
	}
	return turnID, page.AwaitDone(turnID, cliTurnWait)
}

// ---- a real page: Chromium running the SDK served by Core ----

// browserPage is the page runBrowserPage shows Chromium, with CORE and
// PROVIDER filled in, for testCLIInBrowser and TestOpenAIInBrowser. It
// imports the SDK from Core,
// declares update_counter with an inline handler, runs two turns and posts
// what it saw (onChat text, sendText results, errors) to /report; then, in
// a second session whose handler never answers, it calls end() while the
// agent waits for the tool.
const browserPage = `<!doctype html>
<meta charset="utf-8">
<title>pedelec provider test</title>
<script type="module">
const report = (what) => fetch("/report", {method: "POST", body: JSON.stringify(what)});
window.addEventListener("error", (e) => report({stage: "error", error: String(e.message)}));
window.addEventListener("unhandledrejection", (e) => report({stage: "error", error: String(e.reason && (e.reason.code + ": " + e.reason.message))}));
const { Pedelec } = await import("CORE/sdk/pedelec.js");
const pedelec = new Pedelec();
let counter = 0;
const chats = {};
const errors = [];
const session = await pedelec.createSession({
  provider: "PROVIDER",
  skills: {
    guidance: "Use update_counter to change the counter.",
    tools: [{
      name: "update_counter",
      description: "Add delta to the page's counter and return the new value.",
      argsSchema: { type: "object", properties: { delta: { type: "integer" } }, required: ["delta"] },
      handler: (args) => { counter += args.delta; return { value: counter }; },
    }],
  },
});
session.onChat((delta, ctx) => { chats[ctx.turnId] = (chats[ctx.turnId] || "") + delta; });
session.onError((e) => { errors.push(e.code + ": " + e.message); });
const turns = [];
for (const text of ["Add two to the counter.", "Now add the word two."]) {
  try {
    const r = await session.sendTurn(text);
    turns.push({ turnId: r.turnId, text: r.text, chat: chats[r.turnId] || "" });
  } catch (e) {
    turns.push({ error: e.code + ": " + e.message });
  }
}
await session.end();
const first = { sessionId: session.sessionId, counter, turns, errors };

// A second session whose handler never answers: end() while the agent waits.
let ended;
const hanging = await pedelec.createSession({
  provider: "PROVIDER",
  skills: {
    guidance: "",
    tools: [{
      name: "update_counter",
      description: "Add delta to the page's counter and return the new value.",
      argsSchema: { type: "object", properties: { delta: { type: "integer" } }, required: ["delta"] },
      handler: () => new Promise((resolve) => {
        report({ stage: "waiting", sessionId: hanging.sessionId }).then(() => { ended = hanging.end(); });
      }),
    }],
  },
});
let midTurn = "";
try {
  await hanging.sendText("Add one.");
  midTurn = "the turn finished";
} catch (e) {
  midTurn = e.code;
}
await ended;
report({ stage: "done", ...first, midTurn, hangingId: hanging.sessionId, hangingStatus: hanging.getStatus() });
</script>
`

type browserReport struct {
	Stage     string `json:"stage"`
	Error     string `json:"error"`
	SessionID string `json:"sessionId"`
	Counter   int    `json:"counter"`
	Turns     []struct {
		TurnID string `json:"turnId"`
		Text   string `json:"text"`
		Chat   string `json:"chat"`
		Error  string `json:"error"`
	} `json:"turns"`
	Errors        []string  `json:"errors"`
	MidTurn       wire.Code `json:"midTurn"`
	HangingID     string    `json:"hangingId"`
	HangingStatus string    `json:"hangingStatus"`
}

// runBrowserPage serves browserPage for provider from a test site, starts
// Core with serve (given the site's origin to allow) and Chromium on the
// site, and returns the page's final report. waiting, if not nil, runs when
// the page reports that the agent waits on its hanging handler. Chromium
// stays up until the test ends.
func runBrowserPage(t *testing.T, provider string, timeout time.Duration, serve func(origin string) *testenv.Server, waiting func(rep browserReport)) browserReport {
	t.Helper()
	chromium := testenv.Chromium(t)
	reports := make(chan browserReport, 8)
	// The page ends the hanging session once its "waiting" report is
	// answered, so that answer waits until the waiting callback has looked.
	looked := make(chan struct{})
	// Set once Core is up, before Chromium starts; the site's handlers run
	// on other goroutines, so it is shared through an atomic.
	var coreURL atomic.Pointer[string]
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			core := coreURL.Load()
			if core == nil {
				http.Error(w, "Core is not up yet", http.StatusServiceUnavailable)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, strings.NewReplacer("CORE", *core, "PROVIDER", provider).Replace(browserPage))
		case "/report":
			var rep browserReport
			_ = json.NewDecoder(r.Body).Decode(&rep)
			reports <- rep
			if rep.Stage == "waiting" {
				select {
				case <-looked:
				case <-r.Context().Done():
				}
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	url := serve(site.URL).URL
	coreURL.Store(&url)

	browser := exec.Command(chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-dev-shm-usage", "--user-data-dir="+t.TempDir(), site.URL+"/")
	var logs strings.Builder
	browser.Stdout, browser.Stderr = &logs, &logs
	if err := browser.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = browser.Process.Kill()
		_ = browser.Wait()
		if t.Failed() {
			t.Logf("chromium:\n%s", logs.String())
		}
	})

	var rep browserReport
	waited := false
	for rep.Stage != "done" {
		select {
		case rep = <-reports:
		case <-time.After(timeout):
			t.Fatal("the page did not finish")
		}
		switch rep.Stage {
		case "error":
			t.Fatalf("the page failed: %s", rep.Error)
		case "waiting":
			waited = true
			if waiting != nil {
				waiting(rep)
			}
			close(looked)
		}
	}
	t.Logf("page report: %+v", rep)
	if rep.SessionID == "" || rep.HangingID == "" || !waited {
		t.Fatalf("incomplete report: %+v", rep)
	}
	return rep
}

// checkBrowserTurns checks the two turns of browserPage's first session:
// both succeeded, the handler ran once (the invalid call never reached it)
// and the final texts reached onChat and the sendText results.
func checkBrowserTurns(t *testing.T, rep browserReport) {
	t.Helper()
	if len(rep.Turns) != 2 || rep.Turns[0].Error != "" || rep.Turns[1].Error != "" {
		t.Fatalf("turns = %+v, want two that succeeded", rep.Turns)
	}
	if rep.Counter != 2 {
		t.Errorf("counter = %d, want 2 (the invalid call must not reach the handler)", rep.Counter)
	}
	for i, want := range []string{"The counter is now 2.", "That did not work."} {
		if rep.Turns[i].Chat != want || rep.Turns[i].Text != want {
			t.Errorf("turn %d: onChat %q, sendText %q; want %q", i+1, rep.Turns[i].Chat, rep.Turns[i].Text, want)
		}
	}
}

func testCLIInBrowser(t *testing.T, cli agentCLI) {
	ms := cli.newServer(t,
		modelserver.Run(`pedelec tool-call update_counter '{"delta":2}'`),
		modelserver.Say("The counter is now 2."),
		modelserver.Run(`pedelec tool-call update_counter '{"delta":"two"}'`),
		modelserver.Say("That did not work."),
		modelserver.Run(`pedelec tool-call update_counter '{"delta":1}'`),
	)
	serve := func(origin string) *testenv.Server { return serveCLI(t, cli, ms.URL, "--allow-origin", origin) }
	rep := runBrowserPage(t, cli.name, 4*cliTurnWait, serve, func(waiting browserReport) {
		// The agent's pedelec tool-call waits for the page: the CLI and its
		// command are running. The page now calls end().
		if pids := testenv.ProcessesWithEnv(wire.EnvThreadID + "=" + waiting.SessionID); len(pids) < 2 {
			t.Errorf("processes of the waiting session = %v, want the CLI and its pedelec tool-call", pids)
		}
	})
	// end() mid-turn: the turn's promise fails with SESSION_ENDED, and no
	// process of that session is left.
	if rep.MidTurn != wire.CodeSessionEnded || rep.HangingStatus != string(wire.StatusEnded) {
		t.Errorf("after end() mid-turn: sendText %q, status %q; want %s, %s", rep.MidTurn, rep.HangingStatus, wire.CodeSessionEnded, wire.StatusEnded)
	}
	noCLIProcessLeft(t, rep.HangingID)
	noCLIProcessLeft(t, rep.SessionID)
	checkBrowserTurns(t, rep)
	reqs := ms.Requests()
	if len(reqs) != 5 {
		t.Fatalf("model requests = %d, want 5", len(reqs))
	}
	if out := cli.toolOutput(reqs[1]); !strings.Contains(out, `{"ok":true,"result":{"value":2}}`) {
		t.Errorf("the agent's next request lacks the handler's result:\n%s", out)
	}
	if body := string(reqs[2].Body); !strings.Contains(body, "The counter is now 2.") {
		t.Errorf("turn 2 did not resume turn 1's thread")
	}
	if out := cli.toolOutput(reqs[3]); !strings.Contains(out, string(wire.CodeToolArgsInvalid)) {
		t.Errorf("the invalid call's result lacks %s:\n%s", wire.CodeToolArgsInvalid, out)
	}
	noCLIProcessLeft(t, rep.SessionID)
}
