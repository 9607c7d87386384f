package e2e

// Claude Code and Codex, each configured as docs/mcp.md says, call a tool
// of a page in real Chromium through `pedelec mcp`; only the model behind
// each CLI is scripted.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// runCLI runs an agent CLI once with a deadline and returns its output.
func runAgentCLI(t *testing.T, env map[string]string, stdin string, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", filepath.Base(bin), args, err, out)
	}
	return string(out)
}

// checkMCPCallReachedPage: the model was offered the page's tool, the
// page's handler ran, and its result went back to the model.
func checkMCPCallReachedPage(t *testing.T, env *sdkEnv, ms *modelserver.Server, result func(modelserver.Request) string, out string) {
	t.Helper()
	reqs := ms.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d model requests, want 2 (the tool call and the answer); CLI output:\n%s", len(reqs), out)
	}
	if !strings.Contains(string(reqs[0].Body), "__add_todo") && !strings.Contains(string(reqs[0].Body), `"name":"mcp__pedelec"`) {
		var offered struct {
			Tools []json.RawMessage `json:"tools"`
		}
		json.Unmarshal(reqs[0].Body, &offered)
		var names []string
		for _, tool := range offered.Tools {
			names = append(names, string(tool)[:min(len(tool), 160)])
		}
		t.Errorf("the model was not offered the page's add_todo through MCP; it was offered:\n%s", strings.Join(names, "\n"))
	}
	var todos []string
	env.b.js(t, &todos, `return window.todos;`)
	if len(todos) != 1 || todos[0] != "milk" {
		t.Fatalf("the page's handler saw %v; CLI output:\n%s", todos, out)
	}
	if got := result(reqs[len(reqs)-1]); !strings.Contains(got, `"count":1`) {
		t.Errorf("the tool result the model got back: %q", got)
	}
}

func TestBrowserMCPClaudeCode(t *testing.T) {
	claude := testenv.ClaudeBinary(t)
	env := newSDKEnv(t)
	env.b.js(t, nil, mcpPageSession)
	ms := modelserver.NewMessages(t, modelserver.Use("add_todo", map[string]any{"title": "milk"}), modelserver.Say("Added milk."))

	// The config docs/mcp.md gives for Claude Code (--mcp-config / .mcp.json).
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"pedelec": map[string]any{
		"command": testenv.Binary(t), "args": []string{"mcp"},
		"env": map[string]string{"PEDELEC_CORE_URL": env.core.URL, "PEDELEC_STATE_DIR": env.core.StateDir},
	}}})
	cfgPath := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	claudeEnv := modelserver.ClaudeEnv(t, ms.URL)
	// The scripted model calls the tool at once, without searching for it
	// first: the tool's schema must be in the first request.
	claudeEnv["ENABLE_TOOL_SEARCH"] = "false"
	out := runAgentCLI(t, claudeEnv, "Add milk to my todo list.", claude,
		"-p", "--output-format", "json", "--model", modelserver.ClaudeModel,
		"--mcp-config", cfgPath, "--strict-mcp-config", "--allowedTools", "mcp__pedelec__add_todo")
	checkMCPCallReachedPage(t, env, ms, func(r modelserver.Request) string { s, _, _ := r.ToolResult(); return s }, out)
}

func TestBrowserMCPCodex(t *testing.T) {
	codex := testenv.CodexBinary(t)
	env := newSDKEnv(t)
	env.b.js(t, nil, mcpPageSession)
	ms := modelserver.NewResponses(t, modelserver.Use("add_todo", map[string]any{"title": "milk"}), modelserver.Say("Added milk."))

	codexEnv := modelserver.CodexHome(t, ms.URL)
	// The config docs/mcp.md gives for Codex (~/.codex/config.toml).
	server := `
[mcp_servers.pedelec]
command = "` + testenv.Binary(t) + `"
args = ["mcp"]
env = { PEDELEC_CORE_URL = "` + env.core.URL + `", PEDELEC_STATE_DIR = "` + env.core.StateDir + `" }
default_tools_approval_mode = "approve"
`
	f, err := os.OpenFile(filepath.Join(codexEnv["CODEX_HOME"], "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(server)
	f.Close()
	out := runAgentCLI(t, codexEnv, "", codex, "exec", "--json", "--skip-git-repo-check",
		// A model without Codex's tool search, so the page's tools are in the
		// first request, where the scripted model finds them.
		"-c", `approval_policy="never"`, "-c", `model="gpt-4.1"`, "Add milk to my todo list.")
	checkMCPCallReachedPage(t, env, ms, func(r modelserver.Request) string { s, _ := r.FunctionOutput(); return s }, out)
}
