package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// Issue 26, long calls: `pedelec tool-call` (the real binary) hands a call
// that outlasts its budget over with exit 3 and the command that waits for
// it; the handler's progress reaches stderr; and an agent that reads only
// stdout and the exit status makes the right next move in one step. The
// texts are pinned in testdata/agent_recovers (go test ./e2e -run
// TestAgentRecovers_ -update rewrites them).

// agentShell is a session whose script agent holds its turn open (its own
// call waits on the page), and the environment its shell commands get.
type agentShell struct {
	t    *testing.T
	p    *wspage.Page
	info wire.SessionInfo
	env  []string
	turn string
	held wire.ToolCallData // the script agent's own call, answered at the end
}

func newAgentShell(t *testing.T) *agentShell {
	t.Helper()
	testenv.SkipShort(t, "runs the pedelec binary")
	srv := testenv.Serve(t, nil)
	p := wspage.Dial(t, srv.WSURL, "")
	info := scriptSession(t, p, true)
	turn, held := awaitPendingCall(t, p, info.SessionID)
	pids := testenv.ProcessesWithEnv(wire.EnvThreadID + "=" + info.SessionID)
	if len(pids) == 0 {
		t.Fatal("no provider process")
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for _, kv := range processEnv(t, pids[0]) {
		if strings.HasPrefix(kv, "PEDELEC_") && !strings.HasPrefix(kv, wire.EnvCallBudgetMs+"=") {
			env = append(env, kv)
		}
	}
	a := &agentShell{t: t, p: p, info: info, env: env, turn: turn, held: held}
	t.Cleanup(func() {
		p.Call(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: held.ToolRequestID, Result: json.RawMessage(`{}`)})
	})
	return a
}

// ran is one command as the agent's shell ran it.
type ran struct {
	stdout, stderr string
	exit           int
}

// syncBuffer is a command's output that the test may read while the
// command still writes it (a progress line on stderr).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// start runs the binary with args and the budget (ms, "" for none).
func (a *agentShell) start(budget string, args ...string) (*exec.Cmd, *syncBuffer, *syncBuffer) {
	cmd := exec.Command(testenv.Binary(a.t), args...)
	cmd.Env = append(append([]string{}, a.env...), wire.EnvCallBudgetMs+"="+budget)
	var out, errb syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		a.t.Fatal(err)
	}
	return cmd, &out, &errb
}

func finish(t *testing.T, cmd *exec.Cmd, out, errb *syncBuffer) ran {
	t.Helper()
	err := cmd.Wait()
	r := ran{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.exit = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

func (a *agentShell) run(budget string, args ...string) ran {
	cmd, out, errb := a.start(budget, args...)
	return finish(a.t, cmd, out, errb)
}

// agentMove is the scripted agent of agent_recovers_test.go (nextMove),
// which reads only the command's stdout and exit status; stdout must be
// one JSON object.
func agentMove(t *testing.T, r ran) move {
	t.Helper()
	var res wire.AgentResult
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &res); err != nil {
		t.Fatalf("stdout is not one JSON object: %q", r.stdout)
	}
	return nextMove(strings.TrimSpace(r.stdout), r.exit)
}

var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`s_[a-z0-9]{26}`), "s_SESSION"},
	{regexp.MustCompile(`t_[a-z0-9]{26}`), "t_THREAD"},
	{regexp.MustCompile(`tr_[a-z0-9]{26}`), "tr_CALL"},
	{regexp.MustCompile(`h_[a-z0-9]{26}`), "h_HANDLE"},
	{regexp.MustCompile(`"elapsedMs":\d+`), `"elapsedMs":N`},
	{regexp.MustCompile(`after [0-9.]+m?s`), "after Ns"},
}

// golden pins what the agent saw: exit status, stdout, and its move.
func golden(t *testing.T, name string, r ran, m move) {
	t.Helper()
	text := r.stdout
	for _, v := range volatile {
		text = v.re.ReplaceAllString(text, v.with)
	}
	got := "exit " + itoa(r.exit) + "\n" + text + "next move: " + m.kind + "\n"
	path := filepath.Join("testdata", "agent_recovers", name+".golden")
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./e2e -run TestAgentRecovers_ -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (go test ./e2e -run TestAgentRecovers_ -update, then review):\n--- got\n%s--- want\n%s", path, got, want)
	}
}

// nthCall waits for the page's nth tool_call event for tool.
func nthCall(t *testing.T, p *wspage.Page, tool string, nth int) wire.ToolCallData {
	t.Helper()
	var call wire.ToolCallData
	seen := 0
	p.AwaitEvent(10*time.Second, tool+" call", func(e wire.Event) bool {
		if e.Event != wire.EventToolCall {
			return false
		}
		var d wire.ToolCallData
		json.Unmarshal(e.Data.(json.RawMessage), &d)
		if d.Tool == tool {
			seen++
			call = d
		}
		return d.Tool == tool && seen == nth
	})
	return call
}

// A call still running when the budget is spent: exit 3 with the command
// that waits; the agent runs it (one step) and, once the page answers,
// gets the result, with the handler's progress on stderr; the handle is
// then spent.
func TestAgentRecovers_CallPending(t *testing.T) {
	a := newAgentShell(t)
	r := a.run("700", "tool-call", "--thread-id", a.info.SessionID, "get_current_page", "{}")
	m := agentMove(t, r)
	if r.exit != wire.ExitPending || m.kind != "run" || len(m.command) < 4 || m.command[0] != "pedelec" {
		t.Fatalf("exit %d, move %+v: %s", r.exit, m, r.stdout)
	}
	golden(t, "call_pending", r, m)
	call := nthCall(t, a.p, "get_current_page", 1)

	// The agent runs details.next (its shell finds pedelec on PATH; here
	// the binary under test stands for it).
	cmd, out, errb := a.start("20000", m.command[1:]...)
	deadline := time.Now().Add(10 * time.Second)
	for i := 1; !strings.Contains(errb.String(), "pedelec: progress"); i++ {
		if time.Now().After(deadline) {
			t.Fatalf("no progress line on stderr: %q", errb.String())
		}
		a.p.MustCall(wire.MethodToolProgress, wire.ToolProgressParams{SessionID: a.info.SessionID, ToolRequestID: call.ToolRequestID, Progress: float64(i), Total: 10, Message: "reading\nthe page"})
		time.Sleep(100 * time.Millisecond)
	}
	a.p.MustCall(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: a.info.SessionID, ToolRequestID: call.ToolRequestID, Result: json.RawMessage(`{"title":"Test page"}`)})
	waited := finish(t, cmd, out, errb)
	if waited.exit != 0 || strings.TrimSpace(waited.stdout) != `{"ok":true,"result":{"title":"Test page"}}` || agentMove(t, waited).kind != "done" {
		t.Fatalf("wait: exit %d %s", waited.exit, waited.stdout)
	}
	if !regexp.MustCompile(`(?m)^pedelec: progress \d+/10: reading the page$`).MatchString(waited.stderr) {
		t.Fatalf("stderr: %q", waited.stderr)
	}
	again := a.run("700", m.command[1:]...)
	if again.exit != wire.ExitFailed || errorCode(t, again.stdout) != wire.CodeToolCallNotWaitable {
		t.Fatalf("second wait: exit %d %s", again.exit, again.stdout)
	}
	golden(t, "call_pending_waited_twice", again, move{kind: "stop_tell_user"})
}

// A tool that does not answer within its timeout: the agent tells the user.
func TestAgentRecovers_Timeout(t *testing.T) {
	a := newAgentShell(t)
	r := a.run("5000", "tool-call", "--thread-id", a.info.SessionID, "slow_tool", "{}")
	m := agentMove(t, r)
	if r.exit != wire.ExitFailed || errorCode(t, r.stdout) != wire.CodeToolTimeout || m.kind != "stop_tell_user" {
		t.Fatalf("exit %d, move %+v: %s", r.exit, m, r.stdout)
	}
	golden(t, "timeout", r, m)
}

// A call cut off by Ctrl-C (or the shell's SIGINT): exit 130 and
// TOOL_CALL_CANCELLED; the agent does not repeat it on its own.
func TestAgentRecovers_Cancelled(t *testing.T) {
	a := newAgentShell(t)
	cmd, out, errb := a.start("20000", "tool-call", "--thread-id", a.info.SessionID, "get_current_page", "{}")
	call := nthCall(t, a.p, "get_current_page", 1)
	cmd.Process.Signal(syscall.SIGINT)
	r := finish(t, cmd, out, errb)
	m := agentMove(t, r)
	if r.exit != wire.ExitInterrupted || errorCode(t, r.stdout) != wire.CodeToolCallCancelled || m.kind != "stop_tell_user" {
		t.Fatalf("exit %d, move %+v: %s", r.exit, m, r.stdout)
	}
	a.p.AwaitEvent(10*time.Second, "the call settled cancelled", func(e wire.Event) bool {
		var d wire.ToolCallSettledData
		return e.Event == wire.EventToolCallSettled && json.Unmarshal(e.Data.(json.RawMessage), &d) == nil &&
			d.ToolRequestID == call.ToolRequestID && d.Outcome == wire.OutcomeCancelled
	})
	golden(t, "cancelled", r, m)
}
