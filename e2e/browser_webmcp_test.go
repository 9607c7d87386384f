package e2e

// Issue 24: a page written only against WebMCP (document.modelContext.
// registerTool), plus the two lines docs/webmcp.md asks for, in real
// Chromium: used by the script provider, by a real agent CLI against a
// scripted model, and by an MCP client through `pedelec mcp`; tools
// registered and unregistered mid-session; execute that rejects, throws,
// resolves non-JSON or is cancelled; the draft's registration errors; and
// a defineTool tool seen through a stand-in native modelContext.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// webmcpApp serves e2e/testdata/webmcp on its own origin, with __CORE__ in
// its pages replaced by Core's URL once it is known (Core must first know
// the app's origin to allow it).
func webmcpApp(t testing.TB) (*httptest.Server, *atomic.Pointer[string]) {
	t.Helper()
	dir := filepath.Join(testenv.RepoRoot(), "e2e", "testdata", "webmcp")
	var core atomic.Pointer[string]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := filepath.Base(r.URL.Path)
		if name == "no-content" {
			// A form's action that does not navigate: the page stays.
			w.WriteHeader(http.StatusNoContent)
			return
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(name, ".js") {
			w.Header().Set("Content-Type", "text/javascript")
		} else {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			if c := core.Load(); c != nil {
				data = []byte(strings.ReplaceAll(string(data), "__CORE__", *c))
			}
		}
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv, &core
}

// webmcpEnv is a browser on the WebMCP page (page: index.html or
// native.html) of an app whose origin Core, started by serve, allows.
func webmcpEnv(t *testing.T, page string, serve func(origin string) *testenv.Server) (*browser, *testenv.Server) {
	t.Helper()
	return webmcpEnvIn(t, newBrowser(t), page, serve)
}

// webmcpEnvIn is webmcpEnv in a browser of the caller's (one with
// Chromium's native WebMCP, say).
func webmcpEnvIn(t testing.TB, b *browser, page string, serve func(origin string) *testenv.Server) (*browser, *testenv.Server) {
	t.Helper()
	app, coreURL := webmcpApp(t)
	core := serve(app.URL)
	coreURL.Store(&core.URL)
	b.open(t, app.URL+"/"+page, "ready")
	return b, core
}

type agentLine struct {
	OK               bool            `json:"ok"`
	UntrustedContent bool            `json:"untrustedContent"`
	Result           json.RawMessage `json:"result"`
	Error            *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// agentLines are the JSON lines the script agent printed, in order.
func agentLines(t *testing.T, text string) []agentLine {
	t.Helper()
	var out []agentLine
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "{") {
			continue
		}
		var a agentLine
		if err := json.Unmarshal([]byte(l), &a); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		out = append(out, a)
	}
	return out
}

func TestBrowserWebMCPScriptProvider(t *testing.T) {
	testenv.SkipShort(t, "chromium")
	b, _ := webmcpEnv(t, "index.html", func(origin string) *testenv.Server {
		return testenv.Serve(t, []string{"--allow-origin", origin})
	})

	t.Run("the page's WebMCP tools are the session's, each outcome as the agent reads it", func(t *testing.T) {
		var got struct {
			Tools []string `json:"tools"`
			Alias bool     `json:"alias"`
			Text  string   `json:"text"`
			Todos []string `json:"todos"`
		}
		b.js(t, &got, `
window.session = await window.pedelec.createSession({ provider: "script", webmcp: true });
window.errors = [];
session.onError((e) => window.errors.push({ code: e.code, message: e.message, details: e.details ?? null }));
const { text } = await session.sendTurn([
  'call add_todo {"title":"milk"}',
  'call list_todos {}',
  'call read_reviews {}',
  'call checkout {}',
  'call throw_now {}',
  'call odd_value {}',
  'call clear_todos {}',
  'call add_todo {"title":""}',
].join("\n"));
return { tools: [...session.tools], alias: navigator.modelContext === document.modelContext, text, todos: window.todos };
`)
		want := "add_todo,list_todos,read_reviews,checkout,throw_now,odd_value,wait_forever"
		if strings.Join(got.Tools, ",") != want || !got.Alias {
			t.Fatalf("session tools %v (want %s), navigator alias %v", got.Tools, want, got.Alias)
		}
		lines := agentLines(t, got.Text)
		if len(lines) != 8 {
			t.Fatalf("agent saw %d answers:\n%s", len(lines), got.Text)
		}
		if !lines[0].OK || string(lines[0].Result) != `{"id":1,"title":"milk","count":1}` || strings.Join(got.Todos, ",") != "milk" {
			t.Errorf("add_todo: %+v, todos %v", lines[0], got.Todos)
		}
		if !lines[1].OK || lines[1].UntrustedContent || string(lines[1].Result) != `{"todos":["milk"]}` {
			t.Errorf("list_todos: %+v", lines[1])
		}
		if !lines[2].OK || !lines[2].UntrustedContent || !strings.Contains(string(lines[2].Result), "IGNORE PREVIOUS") {
			t.Errorf("read_reviews should reach the agent marked untrusted: %+v", lines[2])
		}
		for i, msg := range map[int]string{3: "the shop is closed", 4: "thrown at once"} {
			var r struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			json.Unmarshal(lines[i].Result, &r)
			if !lines[i].OK || r.Error.Code != "TOOL_HANDLER_ERROR" || r.Error.Message != msg {
				t.Errorf("answer %d: %s, want TOOL_HANDLER_ERROR %q", i, lines[i].Result, msg)
			}
		}
		if !lines[5].OK || string(lines[5].Result) != `{"when":"1970-01-01T00:00:00.000Z","map":{},"n":null}` {
			t.Errorf("odd_value, as JSON.stringify sends it: %s", lines[5].Result)
		}
		if lines[6].OK || lines[6].Error.Code != "TOOL_NOT_FOUND" {
			t.Errorf("clear_todos before it is registered: %+v", lines[6])
		}
		if lines[7].OK || lines[7].Error.Code != "TOOL_ARGS_INVALID" {
			t.Errorf("add_todo with an empty title: %+v", lines[7])
		}
	})

	t.Run("a tool registered mid-session is callable; unregistered by its signal it is TOOL_NOT_FOUND", func(t *testing.T) {
		var got struct {
			After   []string `json:"after"`
			Spec    string   `json:"spec"`
			Removed []string `json:"removed"`
			Gone    string   `json:"gone"`
			Todos   []string `json:"todos"`
			Changes int      `json:"changes"`
		}
		b.js(t, &got, `
let changes = 0;
document.modelContext.addEventListener("toolchange", () => changes++);
await window.showClear();
const wait = async (cond) => { const end = Date.now() + 10000; while (!cond()) { if (Date.now() > end) throw new Error("timed out"); await new Promise((r) => setTimeout(r, 10)); } };
await wait(() => session.tools.includes("clear_todos"));
const after = [...session.tools];
const spec = (await session.sendTurn("spec clear_todos\ncall clear_todos {}")).text;
const todos = [...window.todos];
window.hideClear();
await wait(() => !session.tools.includes("clear_todos"));
const gone = (await session.sendTurn("call clear_todos {}")).text;
return { after, spec, removed: [...session.tools], gone, todos, changes };
`)
		if !containsString(got.After, "clear_todos") || containsString(got.Removed, "clear_todos") {
			t.Errorf("tools after register %v, after abort %v", got.After, got.Removed)
		}
		lines := agentLines(t, got.Spec)
		if len(lines) != 2 || !lines[0].OK || !strings.Contains(string(lines[0].Result), `"name":"clear_todos"`) || !lines[1].OK || len(got.Todos) != 0 {
			t.Errorf("spec and call of the new tool:\n%s\ntodos %v", got.Spec, got.Todos)
		}
		if gone := agentLines(t, got.Gone); len(gone) != 1 || gone[0].OK || gone[0].Error.Code != "TOOL_NOT_FOUND" {
			t.Errorf("after its signal aborted: %s", got.Gone)
		}
		if got.Changes != 2 {
			t.Errorf("toolchange fired %d times, want 2 (register, unregister)", got.Changes)
		}
	})

	t.Run("registration errors as the draft lists them", func(t *testing.T) {
		var got map[string]string
		b.js(t, &got, `
const mc = document.modelContext;
const ok = { name: "fine_tool", description: "d", execute: async () => 1 };
const cyclic = {}; cyclic.self = cyclic;
const outcome = async (p) => { try { await p; return "resolved"; } catch (e) { return e.name + (e instanceof DOMException ? " (DOMException)" : ""); } };
const ac = new AbortController();
const aborted = new AbortController(); aborted.abort(new RangeError("no longer"));
return {
  duplicate: await outcome(mc.registerTool({ ...ok, name: "add_todo" })),
  emptyName: await outcome(mc.registerTool({ ...ok, name: "" })),
  emptyDescription: await outcome(mc.registerTool({ ...ok, description: "" })),
  badName: await outcome(mc.registerTool({ ...ok, name: "two words" })),
  longName: await outcome(mc.registerTool({ ...ok, name: "n".repeat(129) })),
  cyclicSchema: await outcome(mc.registerTool({ ...ok, inputSchema: cyclic })),
  undefinedSchema: await outcome(mc.registerTool({ ...ok, inputSchema: { toJSON: () => undefined } })),
  abortedSignal: await outcome(mc.registerTool(ok, { signal: aborted.signal })),
  insecureExposedTo: await outcome(mc.registerTool(ok, { exposedTo: ["http://example.com"] })),
  exposedTo: await outcome(mc.registerTool({ ...ok, name: "exposed_tool" }, { exposedTo: ["https://example.com"], signal: ac.signal })),
  noExecute: await outcome(mc.registerTool({ name: "x", description: "d" })),
  after: (ac.abort(), "ok"),
};
`)
		want := map[string]string{
			"duplicate": "InvalidStateError (DOMException)", "emptyName": "InvalidStateError (DOMException)",
			"emptyDescription": "InvalidStateError (DOMException)", "badName": "InvalidStateError (DOMException)",
			"longName": "InvalidStateError (DOMException)", "cyclicSchema": "TypeError", "undefinedSchema": "TypeError",
			"abortedSignal": "RangeError", "insecureExposedTo": "SecurityError (DOMException)", "exposedTo": "resolved",
			"noExecute": "TypeError", "after": "ok",
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %q, want %q", k, got[k], v)
			}
		}
	})

	t.Run("inputSchema is standard JSON Schema; what Core could not check is refused naming the tool and keyword", func(t *testing.T) {
		var got struct {
			Mid    []map[string]any `json:"mid"`
			Tools  []string         `json:"tools"`
			Create map[string]any   `json:"create"`
		}
		b.js(t, &got, `
const ac = new AbortController();
const before = window.errors.length;
// additionalProperties: false is JSON Schema as WebMCP pages write it: the tool joins the session.
await document.modelContext.registerTool({ name: "strict_tool", description: "Takes exactly one field.",
  inputSchema: { type: "object", properties: { a: { type: "string" } }, additionalProperties: false },
  execute: async () => 1 }, { signal: ac.signal });
// nullable is no JSON Schema keyword: nothing would check it, so the tool is refused.
await document.modelContext.registerTool({ name: "openapi_tool", description: "Uses an OpenAPI keyword.",
  inputSchema: { type: "object", properties: { a: { type: "string", nullable: true } } },
  execute: async () => 1 }, { signal: ac.signal });
const end = Date.now() + 5000;
while ((window.errors.length === before || !session.tools.includes("strict_tool")) && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
const mid = window.errors.slice(before);
const tools = [...session.tools];
let create = null;
try { await window.pedelec.createSession({ provider: "script", webmcp: true }); } catch (e) { create = { code: e.code, message: e.message }; }
ac.abort();
return { mid, tools, create };
`)
		if len(got.Mid) != 1 || got.Mid[0]["code"] != "INVALID_INPUT" || !strings.Contains(fmt.Sprint(got.Mid[0]["message"]), `"openapi_tool"`) || !strings.Contains(fmt.Sprint(got.Mid[0]["message"]), "nullable") {
			t.Errorf("mid-session registration: onError %v", got.Mid)
		}
		if containsString(got.Tools, "openapi_tool") || !containsString(got.Tools, "strict_tool") {
			t.Errorf("the session's tools %v: want strict_tool and not openapi_tool", got.Tools)
		}
		if got.Create == nil || got.Create["code"] != "INVALID_INPUT" || !strings.Contains(fmt.Sprint(got.Create["message"]), `WebMCP tool "openapi_tool": inputSchema.properties.a.nullable`) {
			t.Errorf("createSession with it registered: %v", got.Create)
		}
	})
}

func TestBrowserWebMCPNativeModelContext(t *testing.T) {
	testenv.SkipShort(t, "chromium")
	b, _ := webmcpEnv(t, "native.html", func(origin string) *testenv.Server {
		return testenv.Serve(t, []string{"--allow-origin", origin})
	})
	var got struct {
		Native      []string `json:"native"`
		BrowserCall any      `json:"browserCall"`
		Text        string   `json:"text"`
		AfterEnd    []string `json:"afterEnd"`
		OptedOut    []string `json:"optedOut"`
		Polyfilled  bool     `json:"polyfilled"`
	}
	b.js(t, &got, `
const { Pedelec, defineTool } = window.sdk;
let count = 0;
const bump = defineTool({ name: "bump_counter", description: "Add delta to the counter.",
  argsSchema: { type: "object", properties: { delta: { type: "integer" } }, required: ["delta"] },
  annotations: { title: "Bump" },
  handler: ({ delta }) => ({ value: (count += delta) }) });
const pedelec = new Pedelec();
const session = await pedelec.createSession({ provider: "script", webmcp: true, skills: { guidance: "g", tools: [bump] } });
const native = [...window.nativeTools.keys()].sort();
// The browser's own agent calls the Pedelec tool through its modelContext.
const browserCall = await window.nativeTools.get("bump_counter").execute({ delta: 5 });
// The page's native registration reached the Pedelec session.
const { text } = await session.sendTurn('call page_title {}\ncall bump_counter {"delta":1}');
await session.end();
const afterEnd = [...window.nativeTools.keys()].sort();
const quiet = await pedelec.createSession({ provider: "script", exposeToBrowser: false, skills: { guidance: "g", tools: [bump] } });
const optedOut = [...window.nativeTools.keys()].sort();
await quiet.end();
return { native, browserCall, text, afterEnd, optedOut, polyfilled: document.modelContext.constructor.name !== "Object" };
`)
	if strings.Join(got.Native, ",") != "bump_counter,page_title" {
		t.Errorf("native registrations: %v", got.Native)
	}
	if fmt.Sprint(got.BrowserCall) != "map[value:5]" {
		t.Errorf("the browser agent's call: %v", got.BrowserCall)
	}
	lines := agentLines(t, got.Text)
	if len(lines) != 2 || string(lines[0].Result) != `{"title":"A browser with its own document.modelContext"}` || string(lines[1].Result) != `{"value":6}` {
		t.Errorf("the agent's calls:\n%s", got.Text)
	}
	if strings.Join(got.AfterEnd, ",") != "page_title" || strings.Join(got.OptedOut, ",") != "page_title" {
		t.Errorf("after end %v; with exposeToBrowser false %v", got.AfterEnd, got.OptedOut)
	}
	if got.Polyfilled {
		t.Errorf("the SDK replaced the browser's modelContext")
	}
}

func TestBrowserWebMCPThroughMCPClient(t *testing.T) {
	testenv.SkipShort(t, "chromium and the TypeScript MCP SDK")
	sdkDir := filepath.Join(testenv.CacheDir(), "npm", "node_modules", "@modelcontextprotocol", "sdk")
	if _, err := os.Stat(sdkDir); err != nil {
		testenv.Need(t, "@modelcontextprotocol/sdk", sdkDir+" not found")
	}
	b, core := webmcpEnv(t, "index.html", func(origin string) *testenv.Server {
		return testenv.Serve(t, []string{"--allow-origin", origin})
	})
	cmd := exec.Command("node", filepath.Join(testenv.RepoRoot(), "e2e", "testdata", "mcp", "webmcp-client.mjs"),
		testenv.Binary(t), "mcp", "--core-url", core.URL, "--state-dir", core.StateDir)
	cmd.Env = append(os.Environ(), "MCP_SDK_DIR="+sdkDir)
	var stderr lockedWriter
	stderr.w = &strings.Builder{}
	cmd.Stderr = &stderr
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("webmcp-client stderr:\n%s", stderr.w.String())
		}
	})
	lines := make(chan string, 8)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(what string, v any) {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("webmcp-client exited before %s", what)
			}
			if err := json.Unmarshal([]byte(l), v); err != nil {
				t.Fatalf("%s: %v: %s", what, err, l)
			}
		case <-time.After(90 * time.Second):
			t.Fatalf("no %s from webmcp-client within 90s", what)
		}
	}
	var connected struct{ Tools []string }
	next("the first tool list", &connected)
	if len(connected.Tools) != 0 {
		t.Fatalf("before the page's session: %v", connected.Tools)
	}
	b.js(t, nil, `window.session = await window.pedelec.createSession({ provider: "mcp", webmcp: true });`)

	type callResult struct {
		IsError           bool              `json:"isError"`
		StructuredContent map[string]any    `json:"structuredContent"`
		Content           []json.RawMessage `json:"content"`
		Meta              map[string]any    `json:"_meta"`
	}
	var called struct {
		Tools   []string `json:"tools"`
		Reviews struct {
			Annotations map[string]any `json:"annotations"`
			Meta        map[string]any `json:"_meta"`
		} `json:"reviews"`
		Added, Untrusted, Rejected callResult
		Cancelled                  *string `json:"cancelled"`
	}
	next("the calls", &called)
	if strings.Join(called.Tools, ",") != "add_todo,checkout,list_todos,odd_value,read_reviews,throw_now,wait_forever" {
		t.Errorf("tools: %v", called.Tools)
	}
	if called.Reviews.Annotations["readOnlyHint"] != true || called.Reviews.Meta["untrustedContentHint"] != true {
		t.Errorf("read_reviews as listed: %+v", called.Reviews)
	}
	if called.Added.IsError || called.Added.StructuredContent["title"] != "milk" {
		t.Errorf("add_todo: %+v", called.Added)
	}
	if u := called.Untrusted; u.IsError || u.Meta["pedelec/untrustedContent"] != true || len(u.Content) != 2 ||
		!strings.Contains(string(u.Content[0]), "untrusted content") || !strings.Contains(string(u.Content[1]), "IGNORE PREVIOUS") {
		t.Errorf("read_reviews' result should be marked untrusted: %+v", u)
	}
	if r := called.Rejected; !r.IsError || !strings.Contains(string(r.Content[0]), "TOOL_HANDLER_ERROR") || !strings.Contains(string(r.Content[0]), "the shop is closed") {
		t.Errorf("checkout's rejection: %+v", r)
	}
	if called.Cancelled == nil {
		t.Errorf("the cancelled call did not reject")
	}
	// Cancelling in the MCP client aborted execute's signal in the page.
	b.waitJS(t, 10*time.Second, "window.aborted !== null", "execute's signal aborted in the page")
	var aborted string
	b.js(t, &aborted, `return window.aborted;`)
	if aborted != "TOOL_CALL_CANCELLED" {
		t.Errorf("the signal's reason: %q", aborted)
	}

	b.js(t, nil, `await window.showClear();`)
	var registered struct {
		Tools   []string
		Cleared callResult
		Changed int
	}
	next("the list with clear_todos", &registered)
	if registered.Cleared.IsError || registered.Cleared.StructuredContent["count"] != float64(0) || registered.Changed < 2 {
		t.Errorf("clear_todos registered mid-session: %+v", registered)
	}
	b.js(t, nil, `window.hideClear();`)
	var unregistered struct {
		Tools   []string
		Changed int
	}
	next("the list without clear_todos", &unregistered)
	if containsString(unregistered.Tools, "clear_todos") || unregistered.Changed < 3 {
		t.Errorf("after the signal: %+v", unregistered)
	}
}

// A real agent CLI (codex) against a scripted model uses the WebMCP page's
// tools, and its next turn is told of a tool the page registered meanwhile.
func TestBrowserWebMCPWithCodex(t *testing.T) {
	testenv.SkipShort(t, "chromium and the codex CLI")
	ms := codexCLI.newServer(t,
		modelserver.Run(`pedelec tool-call add_todo '{"title":"milk"}'`),
		modelserver.Say("Added milk."),
		modelserver.Run(`pedelec tool-call clear_todos '{}'`),
		modelserver.Say("Cleared."),
	)
	b, _ := webmcpEnv(t, "index.html", func(origin string) *testenv.Server {
		return serveCLI(t, codexCLI, ms.URL, "--allow-origin", origin)
	})
	var got struct {
		First  string   `json:"first"`
		Second string   `json:"second"`
		Todos  []string `json:"todos"`
	}
	b.js(t, &got, `
const session = await window.pedelec.createSession({ provider: "codex", webmcp: true });
const first = (await session.sendTurn("Add milk to my todos.")).text;
const todos = [...window.todos];
await window.showClear();
const end = Date.now() + 10000;
while (!session.tools.includes("clear_todos")) { if (Date.now() > end) throw new Error("clear_todos never reached the session"); await new Promise((r) => setTimeout(r, 10)); }
const second = (await session.sendTurn("Now clear them.")).text;
await session.end();
return { first, second, todos };
`)
	if strings.Join(got.Todos, ",") != "milk" || !strings.Contains(got.First, "Added milk.") || !strings.Contains(got.Second, "Cleared.") {
		t.Errorf("turns: %q, %q; todos after the first %v", got.First, got.Second, got.Todos)
	}
	reqs := ms.Requests()
	if len(reqs) != 4 {
		t.Fatalf("model requests = %d, want 4", len(reqs))
	}
	if out := codexCLI.toolOutput(reqs[1]); !strings.Contains(out, `{"ok":true,"result":{"id":1,"title":"milk","count":1}}`) {
		t.Errorf("the agent's next request lacks add_todo's result:\n%s", out)
	}
	body := string(reqs[2].Body)
	for _, want := range []string{"Tools changed since your last turn", "clear_todos (new)", "Now clear them."} {
		if !strings.Contains(body, want) {
			t.Errorf("the second turn's prompt lacks %q", want)
		}
	}
	if out := codexCLI.toolOutput(reqs[3]); !strings.Contains(out, `{"ok":true,"result":{"count":0}}`) {
		t.Errorf("clear_todos' result did not reach the agent:\n%s", out)
	}
}

// After a reload, resumeSession(id, {webmcp: true}) gives the session the
// page's WebMCP tools as they are now (the reloaded page registered them
// anew, without the one it had added mid-session before).
func TestBrowserWebMCPResumeAfterReload(t *testing.T) {
	testenv.SkipShort(t, "chromium")
	b, _ := webmcpEnv(t, "index.html", func(origin string) *testenv.Server {
		return testenv.Serve(t, []string{"--allow-origin", origin})
	})
	var sid string
	b.js(t, &sid, `
const s = await window.pedelec.createSession({ provider: "script", webmcp: true, autoEndOnDisconnect: false });
await window.showClear();
const end = Date.now() + 10000;
while (!s.tools.includes("clear_todos")) { if (Date.now() > end) throw new Error("clear_todos never reached the session"); await new Promise((r) => setTimeout(r, 10)); }
return s.sessionId;
`)
	var here string
	b.js(t, &here, `return location.href;`)
	b.open(t, here, "ready")
	var got struct {
		Resumed []string `json:"resumed"`
		Text    string   `json:"text"`
	}
	b.js(t, &got, `
const s = await window.pedelec.resumeSession(`+"`"+sid+"`"+`, { webmcp: true });
const end = Date.now() + 10000;
while (s.tools.includes("clear_todos") || !s.tools.includes("add_todo")) { if (Date.now() > end) throw new Error("the page's list never reached the session: " + s.tools); await new Promise((r) => setTimeout(r, 10)); }
const { text } = await s.sendTurn('call add_todo {"title":"after reload"}\ncall clear_todos {}');
await s.end();
return { resumed: [...s.tools], text };
`)
	if containsString(got.Resumed, "clear_todos") || !containsString(got.Resumed, "add_todo") {
		t.Errorf("tools after the resume: %v", got.Resumed)
	}
	lines := agentLines(t, got.Text)
	if len(lines) != 2 || !lines[0].OK || !strings.Contains(string(lines[0].Result), "after reload") || lines[1].OK || lines[1].Error.Code != "TOOL_NOT_FOUND" {
		t.Errorf("the agent after the reload:\n%s", got.Text)
	}
}
