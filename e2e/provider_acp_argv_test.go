package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// An ACP agent is handed its session's MCP endpoint (URL with the session
// id, and the secret as a header) over its stdin, which no other user can
// read. What the agent does with it must not put either where every user
// reads: a command line. claude-agent-acp hands its MCP servers to the
// `claude` it starts as `--mcp-config <json>`, headers and all.
func TestClaudeACPSecretNotInProcessList(t *testing.T) { testACPSecretNotInArgv(t, claudeACPCLI) }
func TestGeminiACPSecretNotInProcessList(t *testing.T) { testACPSecretNotInArgv(t, geminiACPCLI) }

// bearerValue is a bearer credential's value; a reference to a variable
// (Bearer ${PEDELEC_AGENT_SECRET}) is not one.
var bearerValue = regexp.MustCompile(`Bearer [A-Za-z0-9_]{16,}`)

func testACPSecretNotInArgv(t *testing.T, cli agentCLI) {
	ms := cli.newServer(t, modelserver.Use("update_counter", map[string]int{"delta": 1}), modelserver.Say("never reached"))
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), cli.env(t, ms.URL))
	page := dialCLIPage(t, srv) // no handler: the call stays pending while the list is read
	sid := cliSession(t, page, cli)
	// Another user polling the list from the agent's start on: a process
	// may rewrite its command line after it starts, too late.
	idBody := strings.TrimPrefix(sid, "s_")
	stop := make(chan struct{})
	seen := make(chan string, 1)
	go func() {
		defer close(seen)
		for {
			select {
			case <-stop:
				return
			default:
			}
			procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
			for _, f := range procs {
				data, err := os.ReadFile(f)
				if err == nil && (strings.Contains(string(data), idBody) || bearerValue.Match(data)) {
					seen <- f + ": " + strings.ReplaceAll(string(data), "\x00", " ")
					return
				}
			}
		}
	}()
	page.SendText(sid, "add one")
	page.AwaitEvent(cliTurnWait, "the tool call to reach the page", func(e wire.Event) bool {
		return e.Event == wire.EventToolCall && e.SessionID == sid
	})
	pids := sessionPIDs(sid)
	if len(pids) == 0 {
		t.Fatal("no agent process while the turn waits for the page")
	}
	var secret string
	for _, kv := range processEnv(t, pids[0]) {
		if v, ok := strings.CutPrefix(kv, wire.EnvSecret+"="); ok {
			secret = v
		}
	}
	if secret == "" {
		t.Fatal("the agent has no secret in its environment")
	}
	for _, pid := range pids {
		data, _ := os.ReadFile(filepath.Join("/proc", itoa(pid), "cmdline"))
		t.Logf("agent process %d: %.300s", pid, strings.ReplaceAll(string(data), "\x00", " "))
	}
	close(stop)
	if got, ok := <-seen; ok {
		t.Errorf("while the agent started, a command line showed the session's id or a bearer credential to every user: %.600s", got)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range procs {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // gone meanwhile
		}
		cmdline := strings.ReplaceAll(string(data), "\x00", " ")
		if strings.Contains(cmdline, secret) {
			t.Errorf("%s shows the session's secret to every user: %.400s", f, cmdline)
		} else if strings.Contains(cmdline, idBody) {
			t.Errorf("%s shows the session's id to every user: %.400s", f, cmdline)
		}
	}
	page.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})
	noCLIProcessLeft(t, sid)
}
func TestOpencodeACPSecretNotInProcessList(t *testing.T) { testACPSecretNotInArgv(t, opencodeACPCLI) }
func TestCodexACPSecretNotInProcessList(t *testing.T)    { testACPSecretNotInArgv(t, codexACPCLI) }
func TestCopilotACPSecretNotInProcessList(t *testing.T)  { testACPSecretNotInArgv(t, copilotACPCLI) }
