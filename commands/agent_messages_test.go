package commands

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// clearAgentEnv runs a test as outside any session, whatever the
// environment the tests themselves run in.
func clearAgentEnv(t *testing.T) {
	for _, name := range []string{wire.EnvThreadID, wire.EnvCoreURL, wire.EnvSecret} {
		t.Setenv(name, "")
		os.Unsetenv(name)
	}
}

// Issue 23: outside a session one error names everything missing (the
// thread id and Core's environment) and where each comes from, so fixing
// the first does not lead to a second error.
func TestToolCallOutsideSessionSaysItAllAtOnce(t *testing.T) {
	clearAgentEnv(t)
	for _, cmd := range []string{"tool-call", "tool-spec"} {
		var out bytes.Buffer
		code := Main([]string{"pedelec", cmd, "add_todo"}, strings.NewReader(""), &out, &bytes.Buffer{})
		var res wire.AgentResult
		if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Error == nil {
			t.Fatalf("%s: %q", cmd, out.String())
		}
		if code != wire.ExitUsage || res.Error.Code != wire.CodeNotInSession {
			t.Errorf("%s: exit %d, %s", cmd, code, out.String())
		}
		for _, want := range []string{"--thread-id", wire.EnvThreadID, wire.EnvCoreURL, wire.EnvSecret, "http://127.0.0.1:7077", "/console/"} {
			if !strings.Contains(res.Error.Message, want) {
				t.Errorf("%s: the message does not mention %s: %q", cmd, want, res.Error.Message)
			}
		}
		missing, _ := res.Error.Details.(map[string]any)["missing"].([]any)
		if len(missing) != 3 {
			t.Errorf("%s: details.missing = %v, want the thread id and both variables", cmd, missing)
		}
	}
	// With the thread id given only the environment is missing.
	var out bytes.Buffer
	Main([]string{"pedelec", "tool-call", "--thread-id", "s_x", "add_todo"}, strings.NewReader(""), &out, &bytes.Buffer{})
	if strings.Contains(out.String(), "missing --thread-id") || !strings.Contains(out.String(), "missing "+wire.EnvCoreURL+", "+wire.EnvSecret) {
		t.Errorf("with --thread-id: %s", out.String())
	}
}

// Issue 23: what tool-call prints is read by an agent or a person, never
// put in an HTML page: `<`, `>` and `&` are themselves, in results (which
// Core's HTTP answer escapes) and in errors.
func TestToolCallJSONIsNotHTMLEscaped(t *testing.T) {
	answers := map[string]string{
		"ok":  `{"ok":true,"result":{"html":"\u003cb\u003eTom \u0026 Jerry\u003c/b\u003e"}}`,
		"err": `{"ok":false,"error":{"code":"TOOL_NOT_FOUND","message":"no tool \"\u003cx\u003e\"; available tools: a, b"}}`,
	}
	core := fakeCore(t, func(w http.ResponseWriter, r *http.Request) {
		var req wire.AgentToolCallRequest
		json.NewDecoder(r.Body).Decode(&req)
		w.Write([]byte(answers[req.Tool]))
	})
	defer core.Close()
	clearAgentEnv(t)
	t.Setenv(wire.EnvCoreURL, core.URL)
	t.Setenv(wire.EnvSecret, "s3cret")
	for tool, want := range map[string]string{
		"ok":  `{"ok":true,"result":{"html":"<b>Tom & Jerry</b>"}}`,
		"err": `{"ok":false,"error":{"code":"TOOL_NOT_FOUND","message":"no tool \"<x>\"; available tools: a, b"}}`,
	} {
		var out bytes.Buffer
		Main([]string{"pedelec", "tool-call", "--thread-id", "s_x", tool, "{}"}, strings.NewReader(""), &out, &bytes.Buffer{})
		if got := strings.TrimSpace(out.String()); got != want {
			t.Errorf("%s: printed %s\nwant %s", tool, got, want)
		}
	}
}
