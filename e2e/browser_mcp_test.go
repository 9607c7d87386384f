package e2e

// Real MCP clients against `pedelec mcp`, with the page's handlers running
// in real Chromium: the MCP Inspector's CLI mode and the TypeScript MCP SDK.

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// mcpPageSession is what the page runs to offer its tools to MCP clients.
const mcpPageSession = `
const { Pedelec, defineTool } = window.sdk;
const pedelec = new Pedelec();
window.todos = [];
window.aborted = null;
const addTodo = defineTool({
  name: "add_todo", description: "Add a todo to the visible list and return it with the new count.",
  argsSchema: { type: "object", properties: { title: { type: "string", minLength: 1, description: "What to do." }, done: { type: "boolean" } }, required: ["title"] },
  handler: (args) => { window.todos.push(args.title); return { id: window.todos.length, title: args.title, count: window.todos.length }; },
});
const slow = defineTool({
  name: "slow_tool", description: "Answers after 2 s, but its timeout is 300 ms.", timeoutMs: 300,
  argsSchema: { type: "object", properties: {}, required: [] },
  handler: async () => { await h.sleep(2000); return { late: true }; },
});
const waitForever = defineTool({
  name: "wait_forever", description: "Waits until the call is abandoned, like a modal nobody answers.",
  argsSchema: { type: "object", properties: {}, required: [] },
  handler: (args, ctx) => new Promise((resolve) => ctx.signal.addEventListener("abort", () => {
    window.aborted = { code: ctx.signal.reason?.code ?? String(ctx.signal.reason) };
    resolve({ abandoned: true });
  })),
});
window.mcpSession = await pedelec.createSession({ provider: "mcp", skills: { guidance: "A todo list.", tools: [addTodo, slow, waitForever] } });
window.rec = h.record(window.mcpSession);
let sendText = null;
try { await window.mcpSession.sendText("hello"); } catch (e) { sendText = e.code; }
await window.mcpSession.prepare();
return { sessionId: window.mcpSession.sessionId, sendText, afterPrepare: window.mcpSession.getStatus() };
`

// npmBin is a program the test command installs into the cache's npm tree.
func npmBin(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(testenv.CacheDir(), "npm", "node_modules", rel)
	if _, err := os.Stat(p); err != nil {
		testenv.Need(t, rel, p+" not found")
	}
	return p
}

func TestBrowserMCPInspectorCLI(t *testing.T) {
	testenv.SkipShort(t, "chromium and the MCP Inspector")
	inspector := npmBin(t, filepath.Join(".bin", "mcp-inspector"))
	env := newSDKEnv(t)
	var opened struct{ SessionID, SendText, AfterPrepare string }
	env.b.js(t, &opened, mcpPageSession)
	if opened.SendText != "SEND_TEXT_NOT_SUPPORTED" || opened.AfterPrepare != "idle" {
		t.Errorf("sendText on an mcp session: %q, want SEND_TEXT_NOT_SUPPORTED; status after prepare(): %q, want idle", opened.SendText, opened.AfterPrepare)
	}
	// The Inspector starts `pedelec mcp` as any client does, configured
	// through the environment (-e) as a client config would.
	inspect := func(args ...string) string {
		t.Helper()
		// The target (the server's command) goes before the options: the
		// Inspector's --tool-arg takes every word after it.
		all := append([]string{"--cli", "-e", "PEDELEC_CORE_URL=" + env.core.URL, "-e", "PEDELEC_STATE_DIR=" + env.core.StateDir, testenv.Binary(t), "mcp"}, args...)
		cmd := exec.Command(inspector, all...)
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "HOME="+cmd.Dir) // the Inspector's catalog stays in the test's directory
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("mcp-inspector %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	list := inspect("--method", "tools/list")
	for _, want := range []string{`"add_todo"`, `"wait_forever"`, `"minLength"`, "Add a todo to the visible list"} {
		if !strings.Contains(list, want) {
			t.Fatalf("tools/list lacks %s:\n%s", want, list)
		}
	}
	call := inspect("--method", "tools/call", "--tool-name", "add_todo", "--tool-arg", "title=buy milk")
	if !strings.Contains(call, `"structuredContent"`) || !strings.Contains(call, `"count": 1`) && !strings.Contains(call, `"count":1`) {
		t.Fatalf("tools/call output:\n%s", call)
	}
	var todos []string
	env.b.js(t, &todos, `return window.todos;`)
	if len(todos) != 1 || todos[0] != "buy milk" {
		t.Fatalf("the page's handler saw %v", todos)
	}
}

// tsResult is what ts-client.mjs reports at its end.
type tsResult struct {
	ListChanged int      `json:"listChanged"`
	Tools       []string `json:"tools"`
	AddTodo     struct {
		Description string         `json:"description"`
		InputSchema map[string]any `json:"inputSchema"`
	} `json:"addTodo"`
	OK, Invalid, Timeout struct {
		IsError           bool              `json:"isError"`
		StructuredContent map[string]any    `json:"structuredContent"`
		Content           []json.RawMessage `json:"content"`
	}
	Cancelled *string `json:"cancelled"`
}

func TestBrowserMCPTypeScriptSDK(t *testing.T) {
	testenv.SkipShort(t, "chromium and the TypeScript MCP SDK")
	sdkDir := filepath.Join(testenv.CacheDir(), "npm", "node_modules", "@modelcontextprotocol", "sdk")
	if _, err := os.Stat(sdkDir); err != nil {
		testenv.Need(t, "@modelcontextprotocol/sdk", sdkDir+" not found")
	}
	env := newSDKEnv(t)
	cmd := exec.Command("node", filepath.Join(testenv.RepoRoot(), "e2e", "testdata", "mcp", "ts-client.mjs"),
		testenv.Binary(t), "mcp", "--core-url", env.core.URL, "--state-dir", env.core.StateDir)
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
			t.Logf("ts-client stderr:\n%s", stderr.w.String())
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
	next := func(what string) string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("ts-client exited before %s", what)
			}
			return l
		case <-time.After(90 * time.Second):
			t.Fatalf("no %s from ts-client within 90s", what)
		}
		return ""
	}
	if first := next("the first tool list"); !strings.Contains(first, `"tools":[]`) {
		t.Fatalf("before the page's session: %s", first)
	}
	env.b.js(t, nil, mcpPageSession)

	var got tsResult
	last := next("the scenario's result")
	if err := json.Unmarshal([]byte(last), &got); err != nil {
		t.Fatalf("%v: %s", err, last)
	}
	if got.ListChanged < 1 || strings.Join(got.Tools, ",") != "add_todo,slow_tool,wait_forever" {
		t.Errorf("list_changed %d, tools %v", got.ListChanged, got.Tools)
	}
	if got.AddTodo.InputSchema["required"] == nil || !strings.HasPrefix(got.AddTodo.Description, "Add a todo") {
		t.Errorf("add_todo as listed: %+v", got.AddTodo)
	}
	if got.OK.IsError || got.OK.StructuredContent["title"] != "milk" || got.OK.StructuredContent["count"] != float64(1) {
		t.Errorf("add_todo result: %+v", got.OK)
	}
	if !got.Invalid.IsError || !strings.Contains(string(got.Invalid.Content[0]), "TOOL_ARGS_INVALID") ||
		!strings.Contains(string(got.Invalid.Content[0]), "title") || !strings.Contains(string(got.Invalid.Content[0]), "done") {
		t.Errorf("invalid args should come back in-band with both violations: %s", got.Invalid.Content)
	}
	if !got.Timeout.IsError || !strings.Contains(string(got.Timeout.Content[0]), "TOOL_TIMEOUT") {
		t.Errorf("slow_tool: %+v", got.Timeout)
	}
	if got.Cancelled == nil {
		t.Errorf("the aborted call did not reject")
	}
	// Cancelling in the client aborted the handler's ctx.signal in the page.
	env.b.waitJS(t, 10*time.Second, "window.aborted !== null", "ctx.signal aborted in the page")
	var page struct {
		Todos    []string `json:"todos"`
		Statuses []string `json:"statuses"`
	}
	env.b.js(t, &page, `return { todos: window.todos, statuses: window.rec.statuses.map((s) => s.previousStatus + "->" + s.status) };`)
	if len(page.Todos) != 1 || !containsString(page.Statuses, "idle->waiting_tool_result") || !containsString(page.Statuses, "waiting_tool_result->idle") {
		t.Errorf("page: %+v", page)
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
