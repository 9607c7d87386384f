package e2e

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The agent recovers by itself (issue 26, item 5). Each test runs the
// real `pedelec tool-call` as the agent's shell would, hands ONLY its
// stdout and exit status to a scripted agent (nextMove) that follows the
// prompt's documented rules (prompt.go, rule 9), and checks that its one
// next move is the right one and works. The texts the agent reads are
// pinned in testdata/agent_recovers/*.golden (go test ./e2e -run
// TestAgentRecovers_ -update-agent-goldens).

var updateAgentGoldens = flag.Bool("update-agent-goldens", false, "rewrite testdata/agent_recovers/*.golden")

const recoverSkills = `{
  "guidance": "Tools of a shop page.",
  "tools": [
    {"name": "update_counter", "description": "Add a signed delta to the counter.",
     "argsSchema": {"type": "object", "properties": {"delta": {"type": "integer", "minimum": -100, "maximum": 100}}, "required": ["delta"]}},
    {"name": "buy", "description": "Buy an item.", "argsSchema": {"type": "object", "properties": {"item": {"type": "integer"}}, "required": ["item"]}},
    {"name": "reserve", "description": "Reserve a table.", "argsSchema": {"type": "object", "properties": {}, "required": []}},
    {"name": "table", "description": "The whole order table.", "argsSchema": {"type": "object", "properties": {}, "required": []}},
    {"name": "totals", "description": "Order totals.", "argsSchema": {"type": "object", "properties": {}, "required": []},
     "outputSchema": {"type": "object", "properties": {"total": {"type": "integer", "minimum": 0}, "currency": {"type": "string"}}, "required": ["total", "currency"]}},
    {"name": "pay", "description": "Pay an order.", "argsSchema": {"type": "object", "properties": {"amount": {"type": "integer"}}, "required": ["amount"]}, "needsApproval": true},
    {"name": "hold", "description": "Never answers: keeps the agent's turn running.", "argsSchema": {"type": "object", "properties": {}, "required": []}}
  ]
}`

// move is the scripted agent's next step.
type move struct {
	kind    string // "retry_fixed", "use_tool", "retry_later", "retry_same", "read_file", "run", "stop_tell_user", "done"
	tool    string
	path    string
	command []string // for "run": the command the answer names (TOOL_CALL_PENDING's details.next)
}

// nextMove is the scripted agent: it reads only what the shell gave it
// (stdout, exit status) and acts on the prompt's rules.
func nextMove(stdout string, exit int) move {
	var r wire.AgentResult
	if exit == wire.ExitCoreUnreachable {
		return move{kind: "retry_same"} // rule 9: wait a few seconds, run it again
	}
	if json.Unmarshal([]byte(stdout), &r) != nil {
		return move{kind: "stop_tell_user"}
	}
	if exit == wire.ExitPending && r.Error != nil {
		// Still running in Core: run the command the answer names.
		next, _ := r.Error.Details.(map[string]any)["next"].(string)
		return move{kind: "run", command: strings.Fields(next)}
	}
	if r.OK {
		if r.ResultFile != nil {
			return move{kind: "read_file", path: r.ResultFile.Path}
		}
		return move{kind: "done"}
	}
	details, _ := r.Error.Details.(map[string]any)
	switch r.Error.Code {
	case wire.CodeToolArgsInvalid:
		return move{kind: "retry_fixed"}
	case wire.CodeToolNotFound:
		// Use the available tool the wanted one was a misspelling of.
		if avail, ok := details["available"].([]any); ok {
			wanted, _ := details["tool"].(string)
			for _, a := range avail {
				if name, _ := a.(string); name != "" && closeName(wanted, name) {
					return move{kind: "use_tool", tool: name}
				}
			}
		}
		return move{kind: "stop_tell_user"}
	case wire.CodeToolRefused:
		if retry, _ := details["retryable"].(bool); retry {
			return move{kind: "retry_later"}
		}
		return move{kind: "stop_tell_user"}
	}
	// TOOL_RESULT_INVALID, SESSION_ENDED, TOOL_CALL_DENIED, ...: tell the user.
	return move{kind: "stop_tell_user"}
}

// closeName: same letters but at most one missing or extra.
func closeName(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	for i := 0; i < len(a); i++ {
		if a[i] != b[i] {
			return a[i:] == b[i+1:] || a[i+1:] == b[i+1:]
		}
	}
	return true
}

// recoverEnv is a Core, a page and a running turn whose agent
// environment the test uses to run tool-call as the agent.
type recoverEnv struct {
	srv     *testenv.Server
	page    *wspage.Page
	session string
	env     []string
	table   []byte // what the page returned for "table"
}

func newRecoverEnv(t *testing.T) *recoverEnv {
	t.Helper()
	srv := testenv.Serve(t, []string{"--max-inline-result-bytes", "2048"})
	p := wspage.Dial(t, srv.WSURL, "")
	e := &recoverEnv{srv: srv, page: p}
	p.Handle("update_counter", func(args json.RawMessage) any { return map[string]any{"ok": true} })
	p.Handle("buy", func(json.RawMessage) any {
		return &wire.Refusal{Code: "OUT_OF_STOCK", Message: "Item 42 is sold out and will not be restocked."}
	})
	var reserveCalls atomic.Int32
	p.Handle("reserve", func(json.RawMessage) any {
		if reserveCalls.Add(1) == 1 {
			return &wire.Refusal{Code: "KITCHEN_BUSY", Message: "The kitchen takes no reservations for the next minute.", Retryable: true}
		}
		return map[string]any{"reserved": true}
	})
	rows := make([]map[string]any, 200)
	for i := range rows {
		rows[i] = map[string]any{"id": i + 1, "item": fmt.Sprintf("item %d", i+1), "qty": i%7 + 1}
	}
	table := map[string]any{"rows": rows, "total": 200}
	e.table, _ = json.Marshal(table)
	p.Handle("table", func(json.RawMessage) any { return table })
	p.Handle("totals", func(json.RawMessage) any { return map[string]any{"total": "12.50"} })
	autoEnd := true
	info := p.CreateSession(wire.CreateSessionParams{Provider: "script", Skills: json.RawMessage(recoverSkills), AutoEndOnDisconnect: &autoEnd})
	e.session = info.SessionID
	p.SendText(info.SessionID, "call hold {}")
	p.AwaitEvent(10*time.Second, "the hold call", func(ev wire.Event) bool { return ev.Event == wire.EventToolCall })
	for _, kv := range processEnv(t, testenv.ProcessesWithEnv(wire.EnvThreadID + "=" + info.SessionID)[0]) {
		if strings.HasPrefix(kv, "PEDELEC_") {
			e.env = append(e.env, kv)
		}
	}
	return e
}

// call runs tool-call as the agent and pins what it printed.
func (e *recoverEnv) call(t *testing.T, golden string, env []string, tool, args string) (string, int) {
	t.Helper()
	if env == nil {
		env = e.env
	}
	out, code := runAgentCommand(t, env, "tool-call", tool, args)
	if golden != "" {
		checkAgentGolden(t, golden, e, out, code)
	}
	return strings.TrimSpace(out), code
}

var (
	trIDs   = regexp.MustCompile(`tr_[A-Za-z0-9_-]+`)
	fileIDs = regexp.MustCompile(`(tool-results/[a-z_]+-)[A-Za-z0-9_-]+(\.json)`)
)

func checkAgentGolden(t *testing.T, name string, e *recoverEnv, out string, code int) {
	t.Helper()
	got := strings.ReplaceAll(out, e.session, "<session>")
	got = strings.ReplaceAll(got, e.srv.StateDir, "<state>")
	got = trIDs.ReplaceAllString(got, "<toolRequestId>")
	got = fileIDs.ReplaceAllString(got, "${1}<id>${2}")
	got = regexp.MustCompile(`sessions/[^/"]+/work`).ReplaceAllString(got, "sessions/<dir>/work")
	got = regexp.MustCompile(`127\.0\.0\.1:[0-9]+`).ReplaceAllString(got, "127.0.0.1:<port>")
	got = fmt.Sprintf("%s\nexit %d\n", strings.TrimSpace(got), code)
	path := filepath.Join("testdata", "agent_recovers", name+".golden")
	if *updateAgentGoldens {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./e2e -run TestAgentRecovers_ -update-agent-goldens)", err)
	}
	if string(want) != got {
		t.Errorf("%s: the agent's text changed; review and run with -update-agent-goldens.\n--- got\n%s--- want\n%s", path, got, want)
	}
}

func expectMove(t *testing.T, out string, code int, want string) move {
	t.Helper()
	m := nextMove(out, code)
	if m.kind != want {
		t.Fatalf("after exit %d and %s the agent's move is %q; want %q", code, out, m.kind, want)
	}
	return m
}

func TestAgentRecovers_BadArguments(t *testing.T) {
	e := newRecoverEnv(t)
	out, code := e.call(t, "bad_arguments", nil, "update_counter", `{"delta":"two"}`)
	expectMove(t, out, code, "retry_fixed")
	// The violation named delta and an integer: the fixed call succeeds.
	if out, code := e.call(t, "", nil, "update_counter", `{"delta":2}`); expectMove(t, out, code, "done").kind != "done" {
		t.Fatal(out)
	}
}

func TestAgentRecovers_UnknownTool(t *testing.T) {
	e := newRecoverEnv(t)
	out, code := e.call(t, "unknown_tool", nil, "update_countr", `{"delta":2}`)
	m := expectMove(t, out, code, "use_tool")
	if m.tool != "update_counter" {
		t.Fatalf("the agent picked %q", m.tool)
	}
	out, code = e.call(t, "", nil, m.tool, `{"delta":2}`)
	expectMove(t, out, code, "done")
}

func TestAgentRecovers_RefusedForGood(t *testing.T) {
	e := newRecoverEnv(t)
	out, code := e.call(t, "refused", nil, "buy", `{"item":42}`)
	expectMove(t, out, code, "stop_tell_user")
	if code != wire.ExitFailed {
		t.Fatalf("exit %d; a refusal is a failed call (1)", code)
	}
}

func TestAgentRecovers_RefusedForNow(t *testing.T) {
	e := newRecoverEnv(t)
	out, code := e.call(t, "refused_retryable", nil, "reserve", `{}`)
	expectMove(t, out, code, "retry_later")
	out, code = e.call(t, "", nil, "reserve", `{}`)
	expectMove(t, out, code, "done")
}

func TestAgentRecovers_ResultTooLarge(t *testing.T) {
	e := newRecoverEnv(t)
	out, code := e.call(t, "result_file", nil, "table", `{}`)
	m := expectMove(t, out, code, "read_file")
	// The agent reads the file with its own tools: it lies in its working
	// directory and holds exactly what the page returned.
	work := filepath.Dir(filepath.Dir(filepath.Dir(m.path)))
	if filepath.Base(work) != "work" || !strings.HasPrefix(m.path, e.srv.StateDir) {
		t.Fatalf("result file %s is not under the agent's work directory", m.path)
	}
	data, err := os.ReadFile(m.path)
	if err != nil || string(data) != string(e.table) {
		t.Fatalf("the file holds %d bytes (%v); the page returned %d", len(data), err, len(e.table))
	}
	if len(out) > 1500 {
		t.Fatalf("the agent got %d bytes instead of a small pointer", len(out))
	}
}

func TestAgentRecovers_ResultBreaksOutputSchema(t *testing.T) {
	e := newRecoverEnv(t)
	out, code := e.call(t, "result_invalid", nil, "totals", `{}`)
	expectMove(t, out, code, "stop_tell_user")
	// The page hears it as its handler's bug.
	testenv.Await(t, 5*time.Second, "the page's TOOL_RESULT_INVALID", func() bool {
		for _, err := range e.page.SubmitErrors() {
			if err.Code == wire.CodeToolResultInvalid {
				return true
			}
		}
		return false
	})
}

func TestAgentRecovers_CoreUnreachable(t *testing.T) {
	e := newRecoverEnv(t)
	env := append(append([]string{}, e.env...), wire.EnvCoreURL+"=http://127.0.0.1:1")
	out, code := e.call(t, "core_unreachable", env, "update_counter", `{"delta":1}`)
	expectMove(t, out, code, "retry_same")
	out, code = e.call(t, "", nil, "update_counter", `{"delta":1}`) // Core is back
	expectMove(t, out, code, "done")
}

func TestAgentRecovers_ConsentDenied(t *testing.T) {
	e := newRecoverEnv(t)
	e.page.Handle("pay", func(json.RawMessage) any { return map[string]any{"paid": true} })
	type ran struct {
		out  string
		code int
	}
	done := make(chan ran, 1)
	bin := testenv.Binary(t)
	go func() {
		cmd := exec.Command(bin, "tool-call", "pay", `{"amount":700}`)
		cmd.Env = append(os.Environ(), e.env...)
		out, _ := cmd.Output()
		done <- ran{string(out), cmd.ProcessState.ExitCode()}
	}()
	ev := e.page.AwaitEvent(20*time.Second, "waiting_approval for pay", func(ev wire.Event) bool {
		var d wire.StatusChangedData
		return ev.Event == wire.EventStatusChanged && json.Unmarshal(ev.Data.(json.RawMessage), &d) == nil &&
			d.Status == wire.StatusWaitingApproval && len(d.WaitingOn) > 0
	})
	var d wire.StatusChangedData
	json.Unmarshal(ev.Data.(json.RawMessage), &d)
	if out, err := pedelecCLI(t, e.srv, nil, "deny", d.WaitingOn[0].ApprovalID, "--reason", "too much money"); err != nil {
		t.Fatalf("deny: %v %s", err, out)
	}
	r := <-done
	checkAgentGolden(t, "consent_denied", e, r.out, r.code)
	expectMove(t, strings.TrimSpace(r.out), r.code, "stop_tell_user")
}

func TestAgentRecovers_SessionEnded(t *testing.T) {
	e := newRecoverEnv(t)
	// Core ends the processes that carry the session's thread id with the
	// session; this agent names it with --thread-id, as one that outlived
	// its session (an MCP client's, a detached shell) would.
	var env []string
	for _, kv := range e.env {
		if !strings.HasPrefix(kv, wire.EnvThreadID+"=") {
			env = append(env, kv)
		}
	}
	e.page.MustCall(wire.MethodEndSession, wire.SessionParams{SessionID: e.session})
	out, code := runAgentCommand(t, env, "--thread-id", e.session, "tool-call", "update_counter", `{"delta":1}`)
	checkAgentGolden(t, "session_ended", e, out, code)
	r := agentSaw(t, out)
	if r.OK || (r.Error.Code != wire.CodeSessionEnded && r.Error.Code != wire.CodeThreadAccessDenied) {
		t.Fatalf("after the end: %s", out)
	}
	expectMove(t, out, code, "stop_tell_user")
}
