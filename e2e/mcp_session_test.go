package e2e

// A session's own MCP endpoint (issue 25, item 2) against the real binary,
// with the page's handlers in real Chromium. The agent Core drives is a
// stand-in for an ACP agent: the script provider's executable, replaced by
// a shell script, hands the test the session's MCP credentials from the
// environment Core gave it (as Core hands them to an ACP agent at
// session/new) and holds the turn open; the test then is that agent's MCP
// client, over Streamable HTTP and over `pedelec mcp` on stdio.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// heldAgent writes the session's Core URL, id and secret to
// $AGENT_DIR/<id>.env and holds the turn until $AGENT_DIR/<id>.release
// exists (at most 60 s).
const heldAgent = `#!/bin/sh
umask 077
printf '%s\n%s\n%s\n%s\n' "$PEDELEC_CORE_URL" "$PEDELEC_THREAD_ID" "$PEDELEC_AGENT_SECRET" "$PEDELEC_CORE_KEY" > "$AGENT_DIR/$PEDELEC_THREAD_ID.tmp"
mv "$AGENT_DIR/$PEDELEC_THREAD_ID.tmp" "$AGENT_DIR/$PEDELEC_THREAD_ID.env"
cat >/dev/null
i=0
while [ ! -e "$AGENT_DIR/$PEDELEC_THREAD_ID.release" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
`

// heldAgentConfig makes the script provider's agent heldAgent.
func heldAgentConfig(t *testing.T) (config, agentDir string) {
	t.Helper()
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(agent, []byte(heldAgent), 0o700); err != nil {
		t.Fatal(err)
	}
	agentDir = filepath.Join(dir, "agents")
	if err := os.Mkdir(agentDir, 0o700); err != nil {
		t.Fatal(err)
	}
	config = filepath.Join(dir, "config.toml")
	body := fmt.Sprintf("[providers.script]\nexecutable = %q\nenv = { AGENT_DIR = %q }\n", agent, agentDir)
	if err := os.WriteFile(config, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return config, agentDir
}

// agentCreds is what Core gave one session's agent.
type agentCreds struct{ coreURL, sessionID, secret, coreKey string }

func (a agentCreds) url() string { return a.coreURL + wire.MCPSessionPath + a.sessionID }

// awaitAgent waits for the agent of sessionID to report its environment.
func awaitAgent(t *testing.T, agentDir, sessionID string) agentCreds {
	t.Helper()
	path := filepath.Join(agentDir, sessionID+".env")
	var data []byte
	testenv.Await(t, 20*time.Second, "the agent of "+sessionID, func() bool {
		var err error
		data, err = os.ReadFile(path)
		return err == nil
	})
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 4 || lines[1] != sessionID || lines[2] == "" || lines[3] == "" {
		t.Fatalf("the agent's environment: %q", data)
	}
	return agentCreds{lines[0], lines[1], lines[2], lines[3]}
}

// probeSessionMCP sends one MCP initialize and returns the status and the
// Pedelec error code of a refusal.
func probeSessionMCP(t *testing.T, endpoint, auth, origin string) (int, wire.Code) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out wire.AgentResult
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if out.Error != nil {
		return resp.StatusCode, out.Error.Code
	}
	return resp.StatusCode, ""
}

// sessionPage: two sessions of the script provider, each with its own
// tools; each starts a turn its held agent keeps open.
const sessionPage = `
const { Pedelec, defineTool } = window.sdk;
const pedelec = new Pedelec();
window.todos = [];
window.turnIds = [];
const addTodo = defineTool({
  name: "add_todo", description: "Add a todo and return it with the new count.",
  argsSchema: { type: "object", properties: { title: { type: "string", minLength: 1 } }, required: ["title"] },
  handler: (args, ctx) => { window.todos.push(args.title); window.turnIds.push(ctx.turnId); return { title: args.title, count: window.todos.length }; },
});
window.aborted = null;
const waitForever = defineTool({
  name: "wait_forever", description: "Waits until the call is abandoned.",
  argsSchema: { type: "object", properties: {}, required: [] },
  handler: (args, ctx) => new Promise((resolve) => ctx.signal.addEventListener("abort", () => {
    window.aborted = { code: ctx.signal.reason?.code ?? String(ctx.signal.reason) };
    resolve({ abandoned: true });
  })),
});
const other = defineTool({
  name: "read_note", description: "Read the other page's note.",
  argsSchema: { type: "object", properties: {}, required: [] },
  handler: () => ({ note: "from session B" }),
});
window.a = await pedelec.createSession({ provider: "script", skills: { guidance: "A.", tools: [addTodo, waitForever] } });
window.b = await pedelec.createSession({ provider: "script", skills: { guidance: "B.", tools: [other] } });
window.turnA = window.a.sendTurn("hold"); window.turnA.catch(() => {});
window.turnB = window.b.sendTurn("hold"); window.turnB.catch(() => {});
return { a: window.a.sessionId, b: window.b.sessionId };
`

func TestMCPSessionEndpoint(t *testing.T) {
	testenv.SkipShort(t, "chromium and the pedelec binary")
	config, agentDir := heldAgentConfig(t)
	env := newSDKEnv(t, "--config", config)
	var ids struct{ A, B string }
	env.b.js(t, &ids, sessionPage)
	a, b := awaitAgent(t, agentDir, ids.A), awaitAgent(t, agentDir, ids.B)

	// Refused before MCP, from outside: each credential opens its own
	// session's endpoint and no other.
	other := testenv.Serve(t, nil) // another Core, whose token is worth nothing here
	for _, tc := range []struct {
		name, url, auth, origin string
		status                  int
		code                    wire.Code
	}{
		{"no credential", a.url(), "", "", http.StatusUnauthorized, wire.CodeThreadAccessDenied},
		{"a forged secret", a.url(), "Bearer k_forged", "", http.StatusUnauthorized, wire.CodeThreadAccessDenied},
		{"another session's secret", a.url(), "Bearer " + b.secret, "", http.StatusUnauthorized, wire.CodeThreadAccessDenied},
		{"another Core's token", a.url(), "Bearer " + coreToken(t, other), "", http.StatusUnauthorized, wire.CodeThreadAccessDenied},
		{"this Core's token", a.url(), "Bearer " + coreToken(t, env.core), "", http.StatusUnauthorized, wire.CodeThreadAccessDenied},
		{"a browser origin", a.url(), "Bearer " + a.secret, env.app.URL, http.StatusForbidden, wire.CodeOriginNotAllowed},
	} {
		if status, code := probeSessionMCP(t, tc.url, tc.auth, tc.origin); status != tc.status || code != tc.code {
			t.Errorf("%s: HTTP %d %s, want %d %s", tc.name, status, code, tc.status, tc.code)
		}
	}

	// Streamable HTTP with A's credentials: A's tools only, under their own
	// names; a call runs the handler in Chromium, in A's turn.
	c := &mcpClient{}
	client := mcp.NewClient(&mcp.Implementation{Name: "acp-agent-stand-in", Version: "1"}, newMCPClientOptions(c))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: a.url(),
		HTTPClient: &http.Client{Transport: bearer{a.secret, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v", a.url(), err)
	}
	defer cs.Close()
	c.cs = cs
	if got := strings.Join(c.toolNames(t), ","); got != "add_todo,wait_forever" {
		t.Fatalf("session A's endpoint lists %s", got)
	}
	res := c.call(t, ctx, "add_todo", `{"title":"milk"}`)
	if res.IsError || resultText(res) != `{"title":"milk","count":1}` {
		t.Fatalf("add_todo = %+v %q", res, resultText(res))
	}
	if res = c.call(t, ctx, "add_todo", `{"title":""}`); !res.IsError || !strings.Contains(resultText(res), string(wire.CodeToolArgsInvalid)) {
		t.Fatalf("invalid args = %q", resultText(res))
	}
	var page struct {
		Todos   []string `json:"todos"`
		TurnIDs []string `json:"turnIds"`
	}
	env.b.js(t, &page, `return { todos: window.todos, turnIds: window.turnIds };`)
	if len(page.Todos) != 1 || page.Todos[0] != "milk" || len(page.TurnIDs) != 1 || !strings.HasPrefix(page.TurnIDs[0], "t_") {
		t.Fatalf("page: %+v (the call belongs to A's turn)", page)
	}

	// The TypeScript SDK's HTTP client, which Node agents connect with.
	t.Run("TypeScript SDK", func(t *testing.T) {
		sdkDir := filepath.Join(testenv.CacheDir(), "npm", "node_modules", "@modelcontextprotocol", "sdk")
		if _, err := os.Stat(sdkDir); err != nil {
			testenv.Need(t, "@modelcontextprotocol/sdk", sdkDir+" not found")
		}
		nodeCtx, stop := context.WithTimeout(ctx, 30*time.Second)
		defer stop()
		cmd := exec.CommandContext(nodeCtx, "node", filepath.Join(testenv.RepoRoot(), "e2e", "testdata", "mcp", "ts-session-client.mjs"),
			a.url(), a.secret, "add_todo", `{"title":"eggs"}`)
		cmd.Env = append(withoutPedelecEnv(os.Environ()), "MCP_SDK_DIR="+sdkDir)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("ts-session-client: %v\n%s", err, out)
		}
		var got struct {
			Tools  []string `json:"tools"`
			Result struct {
				IsError           bool           `json:"isError"`
				StructuredContent map[string]any `json:"structuredContent"`
			} `json:"result"`
			Refused *string `json:"refused"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if strings.Join(got.Tools, ",") != "add_todo,wait_forever" || got.Result.IsError || got.Result.StructuredContent["count"] != float64(2) {
			t.Errorf("over the TypeScript SDK: %s", out)
		}
		// The SDK's error carries Core's JSON: the agent reads the code.
		if got.Refused == nil || !strings.Contains(*got.Refused, string(wire.CodeThreadAccessDenied)) {
			t.Errorf("a wrong secret was not refused with THREAD_ACCESS_DENIED: %s", out)
		}
	})

	// The client cancelling aborts the handler's ctx.signal in Chromium.
	callCtx, stopCall := context.WithCancel(ctx)
	go func() { // no t.Fatal off the test's goroutine: a call never seen is cancelled anyway
		defer stopCall()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if raw, err := env.b.eval(5*time.Second, "window.a.getStatus() === 'waiting_tool_result'"); err == nil && string(raw) == "true" {
				return
			}
		}
	}()
	if _, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "wait_forever", Arguments: map[string]any{}}); err == nil {
		t.Fatal("a cancelled call returned no error")
	}
	env.b.waitJS(t, 10*time.Second, "window.aborted !== null && window.aborted.code === 'TOOL_CALL_CANCELLED'", "ctx.signal aborted with TOOL_CALL_CANCELLED")

	// A's turn ends: a call between turns is refused, as tool-call's is.
	if err := os.WriteFile(filepath.Join(agentDir, a.sessionID+".release"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	env.b.js(t, nil, `await window.turnA; return null;`)
	if res := c.call(t, ctx, "add_todo", `{"title":"late"}`); !res.IsError || !strings.Contains(resultText(res), string(wire.CodeNoActiveTurn)) {
		t.Fatalf("a call between turns = %q, want NO_ACTIVE_TURN", resultText(res))
	}

	// stdio: `pedelec mcp` with B's environment serves B alone. The
	// environment is exactly sessionMCP's Env: an agent may start the
	// server with nothing else (no PATH, no HOME).
	cmd := exec.Command(testenv.Binary(t), "mcp")
	cmd.Env = []string{wire.EnvCoreURL + "=" + b.coreURL, wire.EnvThreadID + "=" + b.sessionID, wire.EnvSecret + "=" + b.secret, wire.EnvCoreKey + "=" + b.coreKey}
	stderr := &lockedWriter{w: &strings.Builder{}}
	cmd.Stderr = stderr
	stdio := &mcpClient{stderr: stderr}
	sc, err := mcp.NewClient(&mcp.Implementation{Name: "acp-agent-stdio", Version: "1"}, newMCPClientOptions(stdio)).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to pedelec mcp: %v", err)
	}
	defer sc.Close()
	stdio.cs = sc
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("pedelec mcp stderr:\n%s", stdio.stderrText())
		}
	})
	if got := strings.Join(stdio.toolNames(t), ","); got != "read_note" {
		t.Fatalf("session B over stdio lists %s", got)
	}
	if res := stdio.call(t, ctx, "read_note", `{}`); res.IsError || resultText(res) != `{"note":"from session B"}` {
		t.Fatalf("read_note over stdio = %q", resultText(res))
	}

	// A ends: its endpoint is gone, for its own secret too.
	env.b.js(t, nil, `await window.a.end(); return null;`)
	if status, code := probeSessionMCP(t, a.url(), "Bearer "+a.secret, ""); status != http.StatusNotFound || code != wire.CodeSessionEnded {
		t.Errorf("A's endpoint after A ended: HTTP %d %s, want 404 SESSION_ENDED", status, code)
	}
	if _, err := cs.ListTools(ctx, nil); err == nil {
		t.Error("A's MCP session still answers after A ended")
	}
	// B is untouched by A's end.
	if res := stdio.call(t, ctx, "read_note", `{}`); res.IsError {
		t.Fatalf("read_note after A ended = %q", resultText(res))
	}

	// B ends: `pedelec mcp` serving it exits by itself, and no process
	// holding B's secret is left (the agent is gone with the session).
	env.b.js(t, nil, `await window.b.end(); return null;`)
	testenv.Await(t, 20*time.Second, "no process left with B's secret", func() bool {
		return len(testenv.ProcessesWithEnv(wire.EnvSecret+"="+b.secret)) == 0
	})
	// It stops in one of two ways, both right: it sees the session end and
	// says so, or Core's sweep of the session's processes (everything
	// carrying its thread id, as an agent's `pedelec mcp` does) kills it
	// first. Closing the client reaps it, so its exit can be read.
	_ = sc.Close()
	if cmd.ProcessState != nil {
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Logf("pedelec mcp was stopped by the session's sweep (%v) before it could say why", ws.Signal())
			return
		}
	}
	// Its stderr is copied by a goroutine that may still be draining the
	// pipe when the process is gone: wait for the words, not the exit.
	testenv.Await(t, 10*time.Second, "pedelec mcp saying why it stopped", func() bool {
		return strings.Contains(stdio.stderrText(), "has ended")
	})
}

// withoutPedelecEnv drops the variables Core sets, so a test run inside a
// Pedelec session does not lend them to the process it starts.
func withoutPedelecEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PEDELEC_") {
			out = append(out, kv)
		}
	}
	return out
}
