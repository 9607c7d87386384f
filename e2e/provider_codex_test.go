package e2e

import (
	"context"
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
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
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
func serveCLI(t *testing.T, cli agentCLI, baseURL string, args ...string) *testenv.Server {
	t.Helper()
	return serveCLIEnv(t, cli, cli.env(t, baseURL), args...)
}

// serveCLIEnv is serveCLI with the CLI's environment given.
func serveCLIEnv(t *testing.T, cli agentCLI, env map[string]string, args ...string) *testenv.Server {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "default_provider = %q\n[providers.%s]\nexecutable = %s\n[providers.%s.env]\n",
		cli.name, cli.name, strconv.Quote(cli.binary(t)), cli.name)
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
	return testenv.Serve(t, append([]string{"--config", config}, args...))
}

func testCLIToolCallsAndResume(t *testing.T, cli agentCLI) {
	ms := cli.newServer(t)
	srv := serveCLI(t, cli, ms.URL)
	page := openCLIPage(t, srv)
	counter := 0
	page.handle("update_counter", func(args json.RawMessage) any {
		var a struct{ Delta int }
		_ = json.Unmarshal(args, &a)
		counter += a.Delta
		return map[string]int{"value": counter}
	})
	sid := page.createSession(cli.name)
	// The form the first-turn prompt teaches (and the seeds use).
	ms.Push(
		modelserver.Run(`pedelec-cli --thread-id `+sid+` tool-call update_counter '{"delta":2}'`),
		modelserver.Say("The counter is now 2."),
	)

	// Turn 1: the model asks for the tool; the page's handler runs; the
	// result goes back to the model; the final text reaches the chat.
	done := page.sendText(sid, "Add two to the counter.")
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
	if chat := page.chat(done.turnID); chat != "The counter is now 2." {
		t.Errorf("chat = %q", chat)
	}

	// Turn 2 resumes the same provider thread: the model sees turn 1. An
	// invalid call (in the short form) comes back to the model with
	// TOOL_ARGS_INVALID and the handler does not run.
	ms.Push(
		modelserver.Run(`pedelec tool-call update_counter '{"delta":"two"}'`),
		modelserver.Say("That did not work."),
	)
	done = page.sendText(sid, "Now add the word two.")
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
	if out := cli.toolOutput(reqs[3]); !strings.Contains(out, wire.CodeToolArgsInvalid) {
		t.Errorf("the invalid call's result lacks %s; the agent sent back:\n%s", wire.CodeToolArgsInvalid, out)
	}
	if counter != 2 {
		t.Errorf("counter = %d: the handler ran for an invalid call", counter)
	}
	if chat := page.chat(done.turnID); chat != "That did not work." {
		t.Errorf("turn 2 chat = %q", chat)
	}
}

func testCLIModelError(t *testing.T, cli agentCLI, message string) {
	step := modelserver.FailWith(400, message)
	step.Repeat = true
	ms := cli.newServer(t, step)
	srv := serveCLI(t, cli, ms.URL)
	page := openCLIPage(t, srv)
	sid := page.createSession(cli.name)
	done := page.sendText(sid, "hello")
	if done.OK || done.Error == nil {
		t.Fatalf("turn succeeded, want a session error")
	}
	if done.Error.Code != wire.CodeProviderError || !strings.Contains(done.Error.Message, message) {
		t.Errorf("error = %s: %s; want %s carrying %q", done.Error.Code, done.Error.Message, wire.CodeProviderError, message)
	}
	if e := page.errorEvent(done.turnID); e == nil || e.Code != wire.CodeProviderError {
		t.Errorf("error event = %+v, want the same PROVIDER_ERROR", e)
	}
	noCLIProcessLeft(t, sid)
}

func testCLIModelDown(t *testing.T, cli agentCLI) {
	env := cli.env(t, modelserver.DownURL(t))
	// Codex retries an unreachable server forever. Claude Code retries too,
	// with backoff, unless told not to: let it, as a user's would.
	delete(env, "CLAUDE_CODE_MAX_RETRIES")
	srv := serveCLIEnv(t, cli, env, "--turn-timeout", "4s")
	page := openCLIPage(t, srv)
	sid := page.createSession(cli.name)
	start := time.Now()
	done := page.sendText(sid, "hello")
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
	page := openCLIPage(t, srv)
	called := make(chan struct{}, 1)
	page.handle("update_counter", func(json.RawMessage) any {
		called <- struct{}{}
		return nil // never answered: the call stays pending
	})
	sid := page.createSession(cli.name)
	page.request("send_text", map[string]string{"sessionId": sid, "text": "add one"})
	select {
	case <-called:
	case <-time.After(60 * time.Second):
		t.Fatal("the tool call never reached the page")
	}
	if pids := testenv.ProcessesWithEnv("PEDELEC_THREAD_ID=" + sid); len(pids) < 2 {
		t.Errorf("processes of the session = %v, want the CLI and its pedelec tool-call", pids)
	}
	page.request("end_session", map[string]string{"sessionId": sid})
	testenv.Await(t, 10*time.Second, "the ended event", func() bool { return page.has(sid, "ended") })
	noCLIProcessLeft(t, sid)
}

// noCLIProcessLeft waits a little for every process of the session to go.
func noCLIProcessLeft(t *testing.T, sid string) {
	t.Helper()
	entry := "PEDELEC_THREAD_ID=" + sid
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids := testenv.ProcessesWithEnv(entry)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left behind with %s: %v", entry, pids)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ---- the page ----

type cliFrame struct {
	Type      string          `json:"type"`
	ID        int64           `json:"id"`
	OK        bool            `json:"ok"`
	Result    json.RawMessage `json:"result"`
	Error     *wire.Error     `json:"error"`
	Event     string          `json:"event"`
	SessionID string          `json:"sessionId"`
	Seq       int64           `json:"seq"`
	TurnID    string          `json:"turnId"`
	Data      json.RawMessage `json:"data"`
}

// cliPage is a minimal SDK: requests by id, events recorded, tool calls
// answered by handlers (a nil result is never submitted).
type cliPage struct {
	t        *testing.T
	conn     *websocket.Conn
	ctx      context.Context
	mu       sync.Mutex
	nextID   int64
	waiting  map[int64]chan cliFrame
	events   []cliFrame
	handlers map[string]func(json.RawMessage) any
}

func openCLIPage(t *testing.T, srv *testenv.Server) *cliPage {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	conn, _, err := websocket.Dial(ctx, srv.WSURL, &websocket.DialOptions{HTTPHeader: map[string][]string{"Origin": {srv.URL}}})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	conn.SetReadLimit(16 << 20)
	p := &cliPage{t: t, conn: conn, ctx: ctx, waiting: map[int64]chan cliFrame{}, handlers: map[string]func(json.RawMessage) any{}}
	t.Cleanup(func() {
		conn.Close(websocket.StatusNormalClosure, "")
		cancel()
	})
	go p.read()
	return p
}

func (p *cliPage) read() {
	for {
		_, data, err := p.conn.Read(p.ctx)
		if err != nil {
			return
		}
		var f cliFrame
		if json.Unmarshal(data, &f) != nil {
			continue
		}
		p.mu.Lock()
		switch f.Type {
		case "response":
			if ch, ok := p.waiting[f.ID]; ok {
				ch <- f
				delete(p.waiting, f.ID)
			}
		case "event":
			p.events = append(p.events, f)
			if f.Event == wire.EventToolCall {
				var call wire.ToolCallData
				_ = json.Unmarshal(f.Data, &call)
				if h := p.handlers[call.Tool]; h != nil {
					go p.answer(f.SessionID, call, h)
				}
			}
		}
		p.mu.Unlock()
	}
}

func (p *cliPage) answer(sid string, call wire.ToolCallData, h func(json.RawMessage) any) {
	result := h(call.Args)
	if result == nil {
		return
	}
	raw, _ := json.Marshal(result)
	p.request("submit_tool_result", map[string]any{"sessionId": sid, "toolRequestId": call.ToolRequestID, "result": json.RawMessage(raw)})
}

func (p *cliPage) handle(tool string, h func(json.RawMessage) any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.handlers[tool] = h
}

// request sends one request and waits for its response; an error response
// fails the test.
func (p *cliPage) request(method string, params any) json.RawMessage {
	p.t.Helper()
	raw, _ := json.Marshal(params)
	ch := make(chan cliFrame, 1)
	p.mu.Lock()
	p.nextID++
	id := p.nextID
	p.waiting[id] = ch
	p.mu.Unlock()
	msg, _ := json.Marshal(wire.Request{Type: "request", ID: id, Method: method, Params: raw})
	ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
	defer cancel()
	if err := p.conn.Write(ctx, websocket.MessageText, msg); err != nil {
		p.t.Errorf("%s: %v", method, err)
		return nil
	}
	select {
	case f := <-ch:
		if !f.OK {
			p.t.Errorf("%s failed: %+v", method, f.Error)
		}
		return f.Result
	case <-ctx.Done():
		p.t.Errorf("%s: no response", method)
		return nil
	}
}

func (p *cliPage) createSession(provider string) string {
	p.t.Helper()
	res := p.request("create_session", map[string]any{"provider": provider, "skills": json.RawMessage(cliCounterSkills)})
	var info wire.SessionInfo
	if err := json.Unmarshal(res, &info); err != nil || info.SessionID == "" {
		p.t.Fatalf("create_session: %s", res)
	}
	if info.Provider != provider {
		p.t.Fatalf("session provider = %q, want %q", info.Provider, provider)
	}
	return info.SessionID
}

type cliTurnDone struct {
	wire.DoneData
	turnID string
}

// sendText starts a turn and waits for its done event.
func (p *cliPage) sendText(sid, text string) cliTurnDone {
	p.t.Helper()
	var started wire.TurnStarted
	if err := json.Unmarshal(p.request("send_text", map[string]string{"sessionId": sid, "text": text}), &started); err != nil || started.TurnID == "" {
		p.t.Fatalf("send_text: no turn id")
	}
	var done cliTurnDone
	testenv.Await(p.t, 90*time.Second, "turn "+started.TurnID+" to finish", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, f := range p.events {
			if f.Event == wire.EventDone && f.TurnID == started.TurnID {
				_ = json.Unmarshal(f.Data, &done.DoneData)
				done.turnID = f.TurnID
				return true
			}
		}
		return false
	})
	return done
}

// chat is the text of a turn's chat_delta events.
func (p *cliPage) chat(turnID string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	for _, f := range p.events {
		if f.Event == wire.EventChatDelta && f.TurnID == turnID {
			var d wire.ChatDeltaData
			_ = json.Unmarshal(f.Data, &d)
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

func (p *cliPage) errorEvent(turnID string) *wire.Error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range p.events {
		if f.Event == wire.EventError && f.TurnID == turnID {
			var d wire.ErrorData
			_ = json.Unmarshal(f.Data, &d)
			return d.Error
		}
	}
	return nil
}

func (p *cliPage) has(sid, event string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range p.events {
		if f.SessionID == sid && f.Event == event {
			return true
		}
	}
	return false
}

// ---- a real page: Chromium running the SDK served by Core ----

// browserPage is the page of testCLIInBrowser. It imports the SDK from Core,
// declares update_counter with an inline handler, runs two turns and posts
// what it saw (onChat text, sendText results, errors) to /report; then, in
// a second session whose handler never answers, it calls end() while the
// agent waits for the tool. provider_openai_test.go runs the same page.
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
session.onChat((e) => { chats[e.turnId] = e.text; });
session.onError((e) => { errors.push(e.code + ": " + e.message); });
const turns = [];
for (const text of ["Add two to the counter.", "Now add the word two."]) {
  try {
    const r = await session.sendText(text);
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
	Errors        []string `json:"errors"`
	MidTurn       string   `json:"midTurn"`
	HangingID     string   `json:"hangingId"`
	HangingStatus string   `json:"hangingStatus"`
}

func testCLIInBrowser(t *testing.T, cli agentCLI) {
	chromium := testenv.Chromium(t)
	ms := cli.newServer(t,
		modelserver.Run(`pedelec tool-call update_counter '{"delta":2}'`),
		modelserver.Say("The counter is now 2."),
		modelserver.Run(`pedelec tool-call update_counter '{"delta":"two"}'`),
		modelserver.Say("That did not work."),
		modelserver.Run(`pedelec tool-call update_counter '{"delta":1}'`),
	)
	reports := make(chan browserReport, 8)
	var coreURL string
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, strings.NewReplacer("CORE", coreURL, "PROVIDER", cli.name).Replace(browserPage))
		case "/report":
			var rep browserReport
			_ = json.NewDecoder(r.Body).Decode(&rep)
			reports <- rep
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	srv := serveCLI(t, cli, ms.URL, "--allow-origin", site.URL)
	coreURL = srv.URL

	browser := exec.Command(chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-dev-shm-usage", "--user-data-dir="+t.TempDir(), site.URL+"/")
	var logs strings.Builder
	browser.Stdout, browser.Stderr = &logs, &logs
	if err := browser.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = browser.Process.Kill()
		_ = browser.Wait()
		if t.Failed() {
			t.Logf("chromium:\n%s", logs.String())
		}
	}()

	var rep browserReport
	waited := false
	for rep.Stage != "done" {
		select {
		case rep = <-reports:
		case <-time.After(120 * time.Second):
			t.Fatal("the page did not finish")
		}
		switch rep.Stage {
		case "error":
			t.Fatalf("the page failed: %s", rep.Error)
		case "waiting":
			// The agent's pedelec tool-call waits for the page: the CLI
			// and its command are running. The page now calls end().
			waited = true
			if pids := testenv.ProcessesWithEnv("PEDELEC_THREAD_ID=" + rep.SessionID); len(pids) < 2 {
				t.Errorf("processes of the waiting session = %v, want the CLI and its pedelec tool-call", pids)
			}
		}
	}
	t.Logf("page report: %+v", rep)
	if rep.SessionID == "" || rep.HangingID == "" || !waited {
		t.Fatalf("incomplete report: %+v", rep)
	}
	// end() mid-turn: the turn's promise fails with SESSION_ENDED, and no
	// process of that session is left.
	if rep.MidTurn != wire.CodeSessionEnded || rep.HangingStatus != wire.StatusEnded {
		t.Errorf("after end() mid-turn: sendText %q, status %q; want %s, %s", rep.MidTurn, rep.HangingStatus, wire.CodeSessionEnded, wire.StatusEnded)
	}
	noCLIProcessLeft(t, rep.HangingID)
	noCLIProcessLeft(t, rep.SessionID)
	if len(rep.Turns) != 2 || rep.Turns[0].Error != "" || rep.Turns[1].Error != "" {
		t.Fatalf("turns = %+v, want two that succeeded", rep.Turns)
	}
	// The handler ran once (the invalid call never reached it) and the final
	// texts reached onChat and the sendText results.
	if rep.Counter != 2 {
		t.Errorf("counter = %d, want 2", rep.Counter)
	}
	for i, want := range []string{"The counter is now 2.", "That did not work."} {
		if rep.Turns[i].Chat != want || rep.Turns[i].Text != want {
			t.Errorf("turn %d: onChat %q, sendText %q; want %q", i+1, rep.Turns[i].Chat, rep.Turns[i].Text, want)
		}
	}
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
	if out := cli.toolOutput(reqs[3]); !strings.Contains(out, wire.CodeToolArgsInvalid) {
		t.Errorf("the invalid call's result lacks %s:\n%s", wire.CodeToolArgsInvalid, out)
	}
	noCLIProcessLeft(t, rep.SessionID)
}
