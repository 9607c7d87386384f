package e2e

// A WebMCP tool's CallToolResult reaches MCP clients as the page wrote it:
// its own content blocks and structuredContent, isError for an error,
// through `pedelec mcp` (stdio) and Core's /mcp (Streamable HTTP), with
// Pedelec's polyfill and with Chromium's native WebMCP. `pedelec
// tool-call` of the same tools prints what the result means. Hostile
// blocks get their codes, and the call is answered.

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const redPixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

// contentWant is what an MCP client must get for one of content.html's tools.
type contentWant struct {
	tool       string
	content    string // the blocks, exactly ("" when the call fails in Core)
	structured string // "" for none
	isError    bool
	errorText  []string // what the failure's text says, when content is ""
}

var contentWants = []contentWant{
	{tool: "say_hello", content: `[{"type":"text","text":"Hello, <b>world</b> & \"friends\""}]`},
	{tool: "snapshot", content: `[{"type":"text","text":"one red pixel"},{"type":"image","data":"` + redPixel + `","mimeType":"image/png","annotations":{"audience":["user"]}}]`,
		structured: `{"width":1,"height":1}`},
	{tool: "checkout", content: `[{"type":"text","text":"Error: the card was declined"}]`, isError: true},
	{tool: "bad_type", isError: true, errorText: []string{"TOOL_RESULT_INVALID", "mcpContent[1].type", `\"video\" is not a content type`}},
	{tool: "no_mime", isError: true, errorText: []string{"TOOL_RESULT_INVALID", "mcpContent[0].mimeType", "is missing"}},
	{tool: "huge", isError: true, errorText: []string{"MESSAGE_TOO_LARGE"}},
}

func TestBrowserWebMCPContentReachesMCPClients(t *testing.T) {
	testenv.SkipShort(t, "chromium")
	for _, mode := range webmcpModes {
		t.Run(mode.name, func(t *testing.T) {
			b, core := webmcpPage(t, mode.native, "content.html")

			// `pedelec tool-call` (the script provider's agent): the meaning.
			var got struct {
				Text   string   `json:"text"`
				Errors []string `json:"errors"`
			}
			b.js(t, &got, `
const session = await window.pedelec.createSession({ provider: "script", webmcp: true });
const errors = []; session.onError((e) => errors.push(e.code + " " + JSON.stringify(e.details ?? {})));
const calls = ["say_hello", "snapshot", "checkout", "bad_type", "no_mime", "huge"].map((t) => "call " + t + " {}");
const { text } = await session.sendTurn(calls.join("\n"));
await session.end();
return { text, errors };
`)
			lines := agentLines(t, got.Text)
			if len(lines) != 6 {
				t.Fatalf("the agent saw %d answers:\n%s", len(lines), got.Text)
			}
			wantOK := []string{`"Hello, <b>world</b> & \"friends\""`, `{"width":1,"height":1}`,
				`{"error":{"code":"TOOL_HANDLER_ERROR","message":"Error: the card was declined"}}`}
			for i, want := range wantOK {
				if !lines[i].OK || string(lines[i].Result) != want {
					t.Errorf("tool-call %s: %+v %s, want %s", contentWants[i].tool, lines[i], lines[i].Result, want)
				}
			}
			for _, i := range []int{3, 4} {
				if lines[i].OK || lines[i].Error.Code != string(wire.CodeToolResultInvalid) || !strings.Contains(lines[i].Error.Message, contentWants[i].errorText[1]) {
					t.Errorf("tool-call %s: %+v", contentWants[i].tool, lines[i])
				}
			}
			if !lines[5].OK || !strings.Contains(string(lines[5].Result), "MESSAGE_TOO_LARGE") {
				t.Errorf("tool-call huge: %+v %s", lines[5], lines[5].Result)
			}
			// The page hears its bad blocks, by path.
			joined := strings.Join(got.Errors, "\n")
			for _, want := range []string{`TOOL_RESULT_INVALID {`, `"path":"mcpContent[1].type"`, `"path":"mcpContent[0].mimeType"`, "SUBMIT_TOOL_RESULT_FAILED"} {
				if !strings.Contains(joined, want) {
					t.Errorf("the page's onError lacks %s:\n%s", want, joined)
				}
			}

			// MCP clients: the page's blocks, unchanged.
			b.js(t, nil, `window.session = await window.pedelec.createSession({ provider: "mcp", webmcp: true }); return null;`)
			stdio := startPedelecMCP(t, core.URL, core.StateDir)
			testenv.Await(t, 15*time.Second, "the tools over pedelec mcp", func() bool { return containsString(stdio.toolNames(t), "snapshot") })
			clients := map[string]*mcpClient{"pedelec mcp": stdio, "/mcp": coreMCPClient(t, core)}
			for name, c := range clients {
				for _, w := range contentWants {
					checkContent(t, name, c.call(t, t.Context(), w.tool, `{}`), w)
				}
			}
		})
	}
}

// Shapes the SDK never sends, from a page written by hand: content that
// is no array, an unknown block type, too many blocks. Each answers the
// call with TOOL_RESULT_INVALID naming the path, to the MCP client and to
// the page.
func TestMCPContentHostileShapes(t *testing.T) {
	srv := testenv.Serve(t, nil)
	p := wspage.Dial(t, srv.WSURL, "")
	p.CreateSession(wire.CreateSessionParams{Provider: "mcp", Skills: json.RawMessage(`{"guidance":"g","tools":[
		{"name":"not_array","description":"d","argsSchema":{"type":"object","properties":{},"required":[]}},
		{"name":"unknown_type","description":"d","argsSchema":{"type":"object","properties":{},"required":[]}},
		{"name":"many","description":"d","argsSchema":{"type":"object","properties":{},"required":[]}},
		{"name":"fine","description":"d","argsSchema":{"type":"object","properties":{},"required":[]}}]}`)})
	raw := func(content string) wspage.Handler {
		return func(json.RawMessage) any {
			return &wire.SubmitToolResultParams{MCPContent: json.RawMessage(content), Result: json.RawMessage(`"r"`)}
		}
	}
	p.Handle("not_array", raw(`{"type":"text","text":"one block, not in an array"}`))
	p.Handle("unknown_type", raw(`[{"type":"tool_use","id":"x","name":"y","input":{}}]`))
	p.Handle("many", raw(`[`+strings.Repeat(`{"type":"text","text":"a"},`, 256)+`{"type":"text","text":"a"}]`))
	p.Handle("fine", raw(`[{"type":"resource","resource":{"uri":"test://r","mimeType":"text/plain","text":"hi"}},{"type":"resource_link","uri":"test://l","name":"l"}]`))
	c := startPedelecMCP(t, srv.URL, srv.StateDir)
	testenv.Await(t, 15*time.Second, "the tools over pedelec mcp", func() bool { return len(c.toolNames(t)) == 4 })
	for _, w := range []contentWant{
		{tool: "not_array", isError: true, errorText: []string{"TOOL_RESULT_INVALID", `"path":"mcpContent"`, "must be an array"}},
		{tool: "unknown_type", isError: true, errorText: []string{"TOOL_RESULT_INVALID", "mcpContent[0].type", `\"tool_use\" is not a content type`}},
		{tool: "many", isError: true, errorText: []string{"TOOL_RESULT_INVALID", "has 257 blocks; at most 256"}},
		{tool: "fine", content: `[{"type":"resource","resource":{"uri":"test://r","mimeType":"text/plain","text":"hi"}},{"type":"resource_link","uri":"test://l","name":"l"}]`},
	} {
		checkContent(t, "pedelec mcp", c.call(t, t.Context(), w.tool, `{}`), w)
	}
	var paths []string
	for _, e := range p.SubmitErrors() {
		if e.Code != wire.CodeToolResultInvalid {
			t.Errorf("the page got %s: %s", e.Code, e.Message)
		}
		paths = append(paths, e.Details.(map[string]any)["path"].(string))
	}
	if got := strings.Join(paths, ","); got != "mcpContent,mcpContent[0].type,mcpContent" {
		t.Errorf("the page's errors name %s", got)
	}
}

// checkContent compares one MCP answer with w: the blocks as JSON values,
// structuredContent, isError, or the failure's text.
func checkContent(t *testing.T, client string, res *mcp.CallToolResult, w contentWant) {
	t.Helper()
	if res.IsError != w.isError {
		t.Errorf("%s %s: isError %v, want %v (%q)", client, w.tool, res.IsError, w.isError, resultText(res))
	}
	if w.content == "" {
		text := resultText(res)
		for _, want := range w.errorText {
			if !strings.Contains(text, want) {
				t.Errorf("%s %s: the text lacks %s: %s", client, w.tool, want, text)
			}
		}
		return
	}
	got, _ := json.Marshal(res.Content)
	if !jsonEqual(t, got, w.content) {
		t.Errorf("%s %s: content\n %s\nwant\n %s", client, w.tool, got, w.content)
	}
	sc, _ := json.Marshal(res.StructuredContent)
	if w.structured == "" && res.StructuredContent != nil || w.structured != "" && !jsonEqual(t, sc, w.structured) {
		t.Errorf("%s %s: structuredContent %s, want %q", client, w.tool, sc, w.structured)
	}
}

func jsonEqual(t *testing.T, a []byte, b string) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		t.Fatalf("not JSON: %s or %s", a, b)
	}
	return reflect.DeepEqual(x, y)
}

// A session's own MCP endpoints, which an agent Core drives uses (an ACP
// agent over Streamable HTTP, or `pedelec mcp` started with the session's
// environment): the page's blocks reach them unchanged too, here from a
// Pedelec handler's mcpResult.
func TestMCPSessionEndpointContent(t *testing.T) {
	testenv.SkipShort(t, "chromium and the pedelec binary")
	config, agentDir := heldAgentConfig(t)
	env := newSDKEnv(t, "--config", config)
	var id string
	env.b.js(t, &id, `
const { Pedelec, defineTool, mcpResult } = window.sdk;
const none = { type: "object", properties: {}, required: [] };
const snapshot = defineTool({ name: "snapshot", description: "A picture, with its size.", argsSchema: none,
  handler: () => mcpResult({ content: [{ type: "text", text: "one red pixel" }, { type: "image", data: "`+redPixel+`", mimeType: "image/png" }], structuredContent: { width: 1, height: 1 } }) });
const hello = defineTool({ name: "say_hello", description: "Greets.", argsSchema: none,
  handler: () => mcpResult({ content: [{ type: "text", text: "Hello <there>" }] }) });
window.s = await new Pedelec().createSession({ provider: "script", skills: { guidance: "g", tools: [snapshot, hello] } });
window.turn = window.s.sendTurn("hold"); window.turn.catch(() => {});
return window.s.sessionId;
`)
	a := awaitAgent(t, agentDir, id)
	t.Cleanup(func() { os.WriteFile(filepath.Join(agentDir, id+".release"), nil, 0o600) })
	wants := []contentWant{
		{tool: "snapshot", content: `[{"type":"text","text":"one red pixel"},{"type":"image","data":"` + redPixel + `","mimeType":"image/png"}]`, structured: `{"width":1,"height":1}`},
		{tool: "say_hello", content: `[{"type":"text","text":"Hello <there>"}]`},
	}
	ctx := t.Context()

	c := &mcpClient{}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "acp-agent-stand-in", Version: "1"}, newMCPClientOptions(c)).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: a.url(), HTTPClient: &http.Client{Transport: bearer{a.secret, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v", a.url(), err)
	}
	defer cs.Close()
	c.cs = cs

	cmd := exec.Command(testenv.Binary(t), "mcp")
	cmd.Env = []string{wire.EnvCoreURL + "=" + a.coreURL, wire.EnvThreadID + "=" + a.sessionID, wire.EnvSecret + "=" + a.secret, wire.EnvCoreKey + "=" + a.coreKey}
	stdio := &mcpClient{stderr: &lockedWriter{w: &strings.Builder{}}}
	cmd.Stderr = stdio.stderr
	sc, err := mcp.NewClient(&mcp.Implementation{Name: "acp-agent-stdio", Version: "1"}, newMCPClientOptions(stdio)).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to pedelec mcp: %v", err)
	}
	defer sc.Close()
	stdio.cs = sc

	for name, client := range map[string]*mcpClient{"the session's endpoint": c, "pedelec mcp for the session": stdio} {
		for _, w := range wants {
			checkContent(t, name, client.call(t, ctx, w.tool, `{}`), w)
		}
	}
}
