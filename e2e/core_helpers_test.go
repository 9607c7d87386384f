package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// coreSkills is the seeds' update_counter example plus a no-argument
// reader and a tool with a short timeout.
const coreSkills = `{
  "guidance": "Use update_counter to change the visible counter.",
  "tools": [
    {"name": "update_counter", "description": "Increase or decrease the visible counter by a signed delta.",
     "argsSchema": {"type": "object", "properties": {"delta": {"type": "integer", "description": "Signed amount to add to the counter.", "minimum": -100, "maximum": 100}}, "required": ["delta"]},
     "timeoutMs": 10000},
    {"name": "get_current_page", "description": "Read the title and URL of the current page.",
     "argsSchema": {"type": "object", "properties": {}, "required": []}},
    {"name": "slow_tool", "description": "A tool that answers late; times out after 300 ms.",
     "argsSchema": {"type": "object", "properties": {}, "required": []}, "timeoutMs": 300}
  ]
}`

func scriptSession(t *testing.T, p *wspage.Page, autoEnd bool) wire.SessionInfo {
	t.Helper()
	return p.CreateSession(wire.CreateSessionParams{Provider: "script", Skills: json.RawMessage(coreSkills), AutoEndOnDisconnect: &autoEnd})
}

// counterPage answers update_counter like the seeds' handler does.
func counterPage(p *wspage.Page) *int {
	value := new(int)
	p.Handle("update_counter", func(args json.RawMessage) any {
		var a struct{ Delta int }
		json.Unmarshal(args, &a)
		*value += a.Delta
		return map[string]any{"value": *value}
	})
	p.Handle("get_current_page", func(json.RawMessage) any {
		return map[string]any{"title": "Test page", "url": "http://127.0.0.1/test"}
	})
	return value
}

// agentSaw decodes the JSON the agent's tool-call printed (one chat line).
func agentSaw(t *testing.T, chatLine string) wire.AgentResult {
	t.Helper()
	var r wire.AgentResult
	if err := json.Unmarshal([]byte(strings.TrimSpace(chatLine)), &r); err != nil {
		t.Fatalf("agent output is not one JSON object: %q: %v", chatLine, err)
	}
	return r
}

func errorCode(t *testing.T, chat string) wire.Code {
	t.Helper()
	r := agentSaw(t, chat)
	if r.OK || r.Error == nil {
		t.Fatalf("agent saw success, want an error: %s", chat)
	}
	return r.Error.Code
}

// noSessionLeftovers asserts no process carries the session's thread id and
// its work directory is gone.
func noSessionLeftovers(t *testing.T, srv *testenv.Server, sessionID string) {
	t.Helper()
	testenv.Await(t, 10*time.Second, "provider processes of "+sessionID+" to exit", func() bool {
		return len(testenv.ProcessesWithEnv(wire.EnvThreadID+"="+sessionID)) == 0
	})
	testenv.Await(t, 10*time.Second, "work directory of "+sessionID+" to be removed", func() bool {
		_, err := os.Stat(runtime.WorkDir(srv.StateDir, sessionID))
		return os.IsNotExist(err)
	})
}

// runAgentCommand runs the real binary as an agent would, with env.
func runAgentCommand(t *testing.T, env []string, args ...string) (stdout string, code int) {
	t.Helper()
	cmd := exec.Command(testenv.Binary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

func itoa(n int) string { return strconv.Itoa(n) }

// testenvCommand runs an arbitrary executable with exactly env.
func testenvCommand(path string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(path, args...)
	cmd.Env = env
	return cmd
}
