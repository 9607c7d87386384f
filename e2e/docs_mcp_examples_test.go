package e2e

// docs/mcp.md's examples, run as written against the demo's tools: the
// MCP Inspector commands a reader copies (issue 23: `--tool-arg
// title=milk` failed, the demo's add_todo takes `text`).

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// docCommands are the lines of docs/mcp.md's code blocks that start with
// prefix.
func docCommands(t *testing.T, doc, prefix string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), doc))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	inBlock := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
			continue
		}
		if inBlock && strings.HasPrefix(line, prefix) {
			out = append(out, line)
		}
	}
	return out
}

func TestDocsMCPExamplesAgainstTheDemo(t *testing.T) {
	testenv.SkipShort(t, "chromium and the MCP Inspector")
	inspector := npmBin(t, filepath.Join(".bin", "mcp-inspector"))
	d := openDemo(t, "?provider=mcp")
	const npx = "npx @modelcontextprotocol/inspector --cli pedelec mcp "
	lines := docCommands(t, "docs/mcp.md", npx)
	if len(lines) < 2 {
		t.Fatalf("docs/mcp.md has %d Inspector commands, want its tools/list and tools/call", len(lines))
	}
	// run runs one documented command as written, with the cached
	// Inspector for npx and this test's binary for pedelec, and the
	// environment the docs say to add when Core does not use the defaults.
	run := func(args []string, isError bool) string {
		t.Helper()
		all := append([]string{"--cli", "-e", "PEDELEC_CORE_URL=" + d.core.URL, "-e", "PEDELEC_STATE_DIR=" + d.core.StateDir, testenv.Binary(t), "mcp"}, args...)
		cmd := exec.Command(inspector, all...)
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "HOME="+cmd.Dir)
		out, err := cmd.CombinedOutput()
		// The Inspector exits non-zero for an isError result.
		if err != nil && !isError {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	for _, line := range lines {
		args := strings.Fields(strings.TrimPrefix(line, npx))
		out := run(args, false)
		switch {
		case strings.Contains(line, "tools/list"):
			for _, want := range []string{`"add_todo"`, `"update_counter"`, `"reset_counter"`} {
				if !strings.Contains(out, want) {
					t.Errorf("%s: no %s in\n%s", line, want, out)
				}
			}
		case strings.Contains(line, "tools/call"):
			if strings.Contains(out, `"isError": true`) || strings.Contains(out, "TOOL_ARGS_INVALID") {
				t.Errorf("%s failed against the demo:\n%s", line, out)
			}
		default:
			t.Errorf("a documented command this test does not check: %s", line)
		}
	}
	var todos []string
	d.b.js(t, &todos, `return [...document.querySelectorAll("#todo-list li span")].map((s) => s.textContent)`)
	if len(todos) != 1 || todos[0] != "milk" {
		t.Errorf("the demo's todos after the documented tools/call: %v", todos)
	}

	// Arguments that miss the schema: the MCP client is pointed at the
	// tool's inputSchema, not at `pedelec tool-spec`, which it cannot run.
	out := run([]string{"--method", "tools/call", "--tool-name", "add_todo", "--tool-arg", "title=milk"}, true)
	if !strings.Contains(out, "TOOL_ARGS_INVALID") || !strings.Contains(out, "inputSchema") || strings.Contains(out, "tool-spec") {
		t.Errorf("wrong arguments over MCP:\n%s", out)
	}
}
