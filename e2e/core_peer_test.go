package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// nobody is the uid and gid the peer-check tests run a client as.
const nobody = "65534"

// asNobody returns the command line prefix that runs a program as another
// user: setpriv, as root (CI runs as root).
func asNobody(t *testing.T) []string {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("SKIPPED: switching to another uid needs root; CI runs as root")
	}
	p, err := exec.LookPath("setpriv")
	if err != nil {
		testenv.Need(t, "setpriv", "util-linux's setpriv runs a client as another user")
	}
	return []string{p, "--reuid=" + nobody, "--regid=" + nobody, "--clear-groups"}
}

// sharedBinary copies the pedelec binary where another user can run it.
func sharedBinary(t *testing.T) string {
	t.Helper()
	dir := sharedDir(t)
	data, err := os.ReadFile(testenv.Binary(t))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "pedelec")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// wsUpgrade is a WebSocket upgrade with curl: it prints the status line.
func wsUpgrade(prefix []string, url string) (string, error) {
	args := append(append([]string{}, prefix...), "curl", "-s", "-i", "--max-time", "2",
		"-H", "Connection: Upgrade", "-H", "Upgrade: websocket", "-H", "Sec-WebSocket-Version: 13",
		"-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", url)
	out, err := exec.Command(args[0], args[1:]...).Output()
	if _, ok := err.(*exec.ExitError); ok {
		err = nil // curl --max-time ends the open socket with exit 28
	}
	return string(out), err
}

// A program of another user is refused on the WebSocket and on the agent
// endpoint, even holding the session's real secret; the same programs run as
// Core's user are accepted. The refusal is logged once per uid, then counted.
// Core closes such a connection as it accepts it, having written the 403
// without reading the request; a client that sends a small request and then
// reads (curl, `pedelec tool-call`) gets the 403 (200 of 200 tool-calls).
func TestPeerOfAnotherUserRefused(t *testing.T) {
	prefix := asNobody(t)
	if _, err := exec.LookPath("curl"); err != nil {
		testenv.Need(t, "curl", "the WebSocket peer test upgrades with curl")
	}
	bin := sharedBinary(t)
	srv := testenv.Serve(t, []string{"--refusal-log-window", "5s"})
	p := wspage.Dial(t, srv.WSURL, "")
	info := scriptSession(t, p, true)

	// The WebSocket: 403 PEER_NOT_ALLOWED for nobody, 101 for us.
	url := "http" + strings.TrimPrefix(srv.WSURL, "ws")
	out, err := wsUpgrade(prefix, url)
	if err != nil || !strings.Contains(out, " 403 ") || !strings.Contains(out, string(wire.CodePeerNotAllowed)) {
		t.Fatalf("WebSocket upgrade as uid %s: err=%v\n%s", nobody, err, out)
	}
	out, err = wsUpgrade(nil, url)
	if err != nil || !strings.HasPrefix(out, "HTTP/1.1 101") {
		t.Fatalf("WebSocket upgrade as Core's user: err=%v\n%s", err, out)
	}

	// The agent endpoint, with the session's real secret.
	turn, call := awaitPendingCall(t, p, info.SessionID)
	pids := testenv.ProcessesWithEnv(wire.EnvThreadID + "=" + info.SessionID)
	if len(pids) == 0 {
		t.Fatal("no provider process")
	}
	env := []string{"PATH=/usr/bin:/bin"}
	for _, kv := range processEnv(t, pids[0]) {
		if strings.HasPrefix(kv, "PEDELEC_") {
			env = append(env, kv)
		}
	}
	run := func(prefix []string) (string, int) {
		args := append(append([]string{}, prefix...), bin, "tool-call", "--thread-id", info.SessionID, "get_current_page", "{}")
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = env
		cmd.Dir = "/"
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	for i := 0; i < 5; i++ {
		out, code := run(prefix)
		if code != 1 || errorCode(t, out) != wire.CodePeerNotAllowed {
			t.Fatalf("tool-call as uid %s with the real secret: exit %d %s", nobody, code, out)
		}
	}
	p.Handle("get_current_page", func(json.RawMessage) any { return map[string]any{"title": "mine"} })
	if out, code := run(nil); code != 0 || !strings.Contains(out, `"mine"`) {
		t.Fatalf("tool-call as Core's user: exit %d %s", code, out)
	}
	p.MustCall(wire.MethodSubmitToolResult, wire.SubmitToolResultParams{SessionID: info.SessionID, ToolRequestID: call.ToolRequestID, Result: json.RawMessage(`{}`)})
	p.AwaitDone(turn, 10*time.Second)

	// Six refusals of uid 65534: each first one in a window is a line with
	// the uid, repeats are counted on one line when the window closes.
	var logs string
	testenv.Await(t, 30*time.Second, "six refusals accounted for in the log", func() bool {
		logs = srv.Logs()
		return refusalsLogged(logs, "refused a connection from another user") == 6
	})
	if n := strings.Count(logs, "refused a connection from another user"); n >= 6 {
		t.Errorf("%d log lines for six refusals of one uid; repeats must be counted, not logged:\n%s", n, logs)
	}
	if !strings.Contains(logs, "uid=65534") {
		t.Errorf("the refusal lines do not name the uid:\n%s", logs)
	}
	if !strings.Contains(logs, "peer check on") {
		t.Errorf("start-up does not say the peer check is on:\n%s", logs)
	}
}

// --allow-other-users lets the other user in, and start-up says so.
func TestAllowOtherUsers(t *testing.T) {
	prefix := asNobody(t)
	if _, err := exec.LookPath("curl"); err != nil {
		testenv.Need(t, "curl", "the peer test uses curl")
	}
	srv := testenv.Serve(t, []string{"--allow-other-users"})
	args := append(append([]string{}, prefix...), "curl", "-s", srv.URL+"/healthz")
	out, err := exec.Command(args[0], args[1:]...).Output()
	if err != nil || !strings.Contains(string(out), `"ok":true`) {
		t.Fatalf("healthz as uid %s with --allow-other-users: %v %s", nobody, err, out)
	}
	if !strings.Contains(srv.Logs(), "peer check off") {
		t.Errorf("start-up does not warn that the peer check is off:\n%s", srv.Logs())
	}
}

// refusalsLogged adds up the refusals a log reports for msg: one per line
// logged at once, plus the count of each "(repeated)" line.
func refusalsLogged(logs, msg string) int {
	total := 0
	for _, line := range testenv.Lines(logs) {
		if !strings.Contains(line, msg) {
			continue
		}
		if !strings.Contains(line, msg+" (repeated)") {
			total++
			continue
		}
		if _, after, ok := strings.Cut(line, " count="); ok {
			n := 0
			for _, r := range after {
				if r < '0' || r > '9' {
					break
				}
				n = n*10 + int(r-'0')
			}
			total += n
		}
	}
	return total
}
