package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// The fault soak (e2e/soak) on the path Gemini CLI, opencode and Copilot
// CLI take by default: ACP, a warm agent per session started at
// createSession, the page's tools through the session's MCP endpoint.
// Both run the soak program against the real binary (built with -race by
// the test command) with its faults: Core restarts (SIGKILL and SIGTERM,
// which cancels the turns under way mid-call), page disconnects, agent
// kills, late results, and for the scripted agent calls it gives up on
// mid-call. The verdict is the soak's: nothing lost, duplicated or hung, no
// data race or panic in Core's log, no process or work directory left.
// These are the test command's short forms; docs/performance.md has the
// long ones.

// TestSoakACP: the scripted ACP agent (e2e/soak/acpagent).
func TestSoakACP(t *testing.T) {
	runSoak(t, "-provider", "acp", "-sessions", "4", "-calls", "80", "-fault-every", "300ms", "-duration", "6m")
}

// TestCopilotACPSoak: Copilot CLI over ACP (the fastest of the three to
// start here) against a scripted model that calls the page's tool for each
// `call` line of the turn's message and then says each answer.
func TestCopilotACPSoak(t *testing.T) {
	ms := modelserver.NewChatCLI(t, modelserver.Step{Repeat: true, Decide: soakModel})
	config := filepath.Join(t.TempDir(), "config.toml")
	settings := fmt.Sprintf("[providers.copilot]\nexecutable = %s\nidle_timeout = \"10m\"\n%s\n",
		strconv.Quote(testenv.CopilotBinary(t)), copilotACPCLI.settingsFor(ms.URL))
	if err := os.WriteFile(config, []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	runSoak(t, "-provider", "copilot", "-config", config, "-sessions", "3", "-calls", "40", "-per-turn", "4",
		"-fault-every", "1s", "-restarts", "0.25", "-duration", "8m", "-log-level", "debug")
}

// runSoak builds and runs the soak with args against the test binary, and
// fails with its report unless it passed.
func runSoak(t *testing.T, args ...string) {
	bin := testenv.Binary(t)
	dir := t.TempDir()
	soak := filepath.Join(dir, "soak")
	build := exec.Command("go", "build", "-o", soak, "./e2e/soak")
	build.Dir = testenv.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./e2e/soak: %v\n%s", err, out)
	}
	cmd := exec.Command(soak, append([]string{"-bin", bin}, args...)...)
	cmd.Dir = testenv.RepoRoot() // it builds ./e2e/soak/acpagent
	// Its state, Core's log and the agent's build go under the test's
	// directory, removed afterwards.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	t.Logf("soak %s:\n%s", strings.Join(args, " "), out)
	if err != nil {
		logs, _ := filepath.Glob(filepath.Join(tmp, "pedelec-soak-core-*.log"))
		for _, l := range logs {
			data, _ := os.ReadFile(l)
			t.Logf("Core's log (last 8 KB):\n%s", tail(string(data), 8<<10))
			// The whole log outlives the test's directory: a failure
			// under load is rare and its log is the evidence.
			if kept, err := os.CreateTemp("", "pedelec-soak-failed-*.log"); err == nil {
				kept.Write(data)
				kept.Close()
				t.Logf("Core's whole log: %s", kept.Name())
			}
		}
		t.Fatalf("soak failed: %v", err)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

var soakCallLine = regexp.MustCompile(`call record (\{"id":"[^"]*"\})`)

// soakModel is the scripted model of TestCopilotACPSoak, decided from each
// request alone (any session, after any restart): the last user message
// holding `call record {...}` lines is the turn's; each tool message after
// it answers one call. While calls are left it asks for the next; then it
// says one line per answer, as `pedelec tool-call` prints it, which is what
// the soak counts in the turn's chat.
func soakModel(r modelserver.Request) modelserver.Step {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(r.Body, &req)
	turn := -1
	var calls [][]string
	for i, m := range req.Messages {
		if m.Role != "user" {
			continue
		}
		if c := soakCallLine.FindAllStringSubmatch(chatText(m.Content), -1); len(c) > 0 {
			turn, calls = i, c
		}
	}
	if turn < 0 {
		return modelserver.Say("Nothing to call.")
	}
	var answers []string
	for _, m := range req.Messages[turn+1:] {
		if m.Role == "tool" {
			answers = append(answers, chatText(m.Content))
		}
	}
	if len(answers) < len(calls) {
		var args map[string]string
		_ = json.Unmarshal([]byte(calls[len(answers)][1]), &args)
		return modelserver.Use("record", args)
	}
	lines := make([]string, len(answers))
	for i, a := range answers {
		lines[i] = soakAnswer(a)
	}
	return modelserver.Say(strings.Join(lines, "\n"))
}

// soakAnswer is the line the soak looks for, from what the agent handed
// the model: the result, a Pedelec error, or anything else kept whole (the
// soak then counts the call as lost and prints the chat). Copilot hands an
// error result over after "MCP server 'pedelec': ".
func soakAnswer(text string) string {
	text = strings.TrimSpace(text)
	if i := strings.IndexByte(text, '{'); i > 0 {
		text = text[i:]
	}
	var ok struct {
		ID *string `json:"id"`
	}
	if json.Unmarshal([]byte(text), &ok) == nil && ok.ID != nil {
		b, _ := json.Marshal(map[string]any{"ok": true, "result": map[string]string{"id": *ok.ID}})
		return string(b)
	}
	var failed struct {
		OK    bool            `json:"ok"`
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal([]byte(text), &failed) == nil && len(failed.Error) > 0 {
		b, _ := json.Marshal(map[string]any{"ok": false, "error": failed.Error})
		return string(b)
	}
	b, _ := json.Marshal(map[string]any{"ok": false, "unexpected": text})
	return string(b)
}

// chatText is a chat message's content: a string, or text parts.
func chatText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}
