package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// forbiddenCommands are what an agent CLI must refuse to run: only
// `pedelec` commands may run, and nothing may ride along with one.
var forbiddenCommands = []string{
	`curl -s -o fetched.txt file:///etc/hostname`,
	`rm -f keep.txt`,
	`echo x > made.txt`,
	`pedelec-cli $(rm -f keep.txt)`,
	`pedelec tool-call update_counter '{"delta":1}' && rm -f keep.txt`,
	// Last: a redirect on an allowed command. opencode does not check it.
	`pedelec tool-spec > redirected.txt`,
}

// testCLIForbiddenCommands has the model ask for each forbidden command in
// one turn. The turn goes on (each refusal goes back to the model), the
// handler never runs, and the session's working directory is as it was,
// but for what the CLI is documented to let through.
func testCLIForbiddenCommands(t *testing.T, cli agentCLI) {
	var steps []modelserver.Step
	for _, c := range forbiddenCommands {
		steps = append(steps, modelserver.Run(c))
	}
	ms := cli.newServer(t, append(steps, modelserver.Say("Nothing ran."))...)
	srv := serveCLI(t, cli, ms.URL)
	page := dialCLIPage(t, srv)
	ran := 0
	page.Handle("update_counter", func(json.RawMessage) any { ran++; return map[string]int{"value": ran} })
	sid := cliSession(t, page, cli)
	work := filepath.Join(runtime.WorkDir(srv.StateDir, sid), "work")
	if err := os.WriteFile(filepath.Join(work, "keep.txt"), []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	before := dirNames(t, work)

	_, done := cliTurn(t, page, sid, "Run these commands.")
	if done.Error != nil || !done.OK {
		t.Fatalf("turn failed: %+v", done.Error)
	}
	if ran != 0 {
		t.Errorf("the handler ran %d times: a command chained to pedelec ran", ran)
	}
	reqs := ms.Requests()
	if len(reqs) != len(steps)+1 {
		t.Errorf("model requests = %d, want %d: one per refused command and the last", len(reqs), len(steps)+1)
	}
	for i := 1; i < len(reqs) && i <= len(forbiddenCommands); i++ {
		t.Logf("%s -> %s", forbiddenCommands[i-1], cli.toolOutput(reqs[i]))
	}
	after := dirNames(t, work)
	if cli.redirectRuns {
		// The redirect is not checked: the command ran (what came back is
		// pedelec's own output, not the refusal). Where its file lands is
		// the CLI's shell's business; nothing else may appear.
		if len(reqs) > len(forbiddenCommands) {
			if out := cli.toolOutput(reqs[len(forbiddenCommands)]); strings.Contains(out, cli.refusal) {
				t.Errorf("the redirect on an allowed command was refused (%s); docs/providers.md says it runs", out)
			}
		}
		after = slices.DeleteFunc(after, func(n string) bool { return n == "redirected.txt" })
	}
	if !slices.Equal(after, before) {
		t.Errorf("working directory after the turn = %v, want %v", after, before)
	}
	if data, err := os.ReadFile(filepath.Join(work, "keep.txt")); err != nil || string(data) != "keep" {
		t.Errorf("keep.txt = %q, %v: a refused command changed it", data, err)
	}
	noCLIProcessLeft(t, sid)
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// testCLIEndMidTurnWithSleep ends a session while a `sleep` the agent
// started runs (in its own process group, as these CLIs start commands):
// no process of the session is left, the sleep included.
func testCLIEndMidTurnWithSleep(t *testing.T, cli agentCLI) {
	ms := cli.newServer(t, modelserver.Run("sleep 317"), modelserver.Say("never reached"))
	c := cli
	c.settings += "\n" + cli.allowSleep(t)
	srv := serveCLI(t, c, ms.URL)
	page := dialCLIPage(t, srv)
	sid := cliSession(t, page, c)
	if c.allowSleepIn != nil {
		c.allowSleepIn(t, filepath.Join(runtime.WorkDir(srv.StateDir, sid), "work"))
	}
	page.SendText(sid, "sleep a while")
	entry := wire.EnvThreadID + "=" + sid
	testenv.Await(t, cliTurnWait, "the agent's sleep to run", func() bool {
		return len(sleepers(entry)) > 0
	})
	page.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: sid})
	page.AwaitEvent(10*time.Second, "the ended event", func(e wire.Event) bool {
		return e.Event == wire.EventEnded && e.SessionID == sid
	})
	noCLIProcessLeft(t, sid)
	if left := sleepers(entry); len(left) > 0 {
		t.Errorf("sleep still running: %v", left)
	}
}

// sleepers are the live `sleep 317` processes carrying entry.
func sleepers(entry string) []int {
	var out []int
	for _, pid := range testenv.ProcessesWithEnv(entry) {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if strings.HasPrefix(string(cmdline), "sleep\x00317") {
			out = append(out, pid)
		}
	}
	return out
}

// testCLIModelHangs runs a turn against a model server that never answers:
// the turn ends with PROVIDER_TIMEOUT at its deadline, and nothing is left.
func testCLIModelHangs(t *testing.T, cli agentCLI) {
	ms := cli.newServer(t, modelserver.Step{Hang: true, Repeat: true})
	// Long enough for the CLI to start and ask on a loaded machine.
	deadline := 40 * time.Second
	if cli.slowStart != 0 {
		deadline = cli.slowStart
	}
	srv := serveCLI(t, cli, ms.URL, "--turn-timeout", deadline.String())
	page := dialCLIPage(t, srv)
	sid := cliSession(t, page, cli)
	start := time.Now()
	_, done := cliTurn(t, page, sid, "hello")
	took := time.Since(start)
	if done.OK || done.Error == nil || done.Error.Code != wire.CodeProviderTimeout {
		t.Fatalf("turn ended with %+v, want %s", done.Error, wire.CodeProviderTimeout)
	}
	if took < deadline || took > deadline+15*time.Second {
		t.Errorf("the turn ended %s after it started, want soon after the %s deadline", took, deadline)
	}
	if len(ms.Requests()) == 0 {
		t.Errorf("the model server saw no request: the deadline was not hit while the model hung")
	}
	noCLIProcessLeft(t, sid)
}
