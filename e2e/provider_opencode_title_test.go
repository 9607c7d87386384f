package e2e

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// opencode makes no request of its own before the turn's real one: its
// session-title request is switched off in the session's opencode config
// (agent.title.disable), so a turn's first model request is the turn's.
func TestOpencodeACPMakesNoTitleRequest(t *testing.T) {
	cli := opencodeACPCLI
	ms := cli.newServer(t)
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), cli.env(t, ms.URL))
	page := acpCounterPage(t, srv, new(int))
	sid := cliSession(t, page, cli)
	for _, text := range []string{"Say hello.", "Say it again."} {
		ms.Push(modelserver.Say("Hello."))
		if _, done := cliTurn(t, page, sid, text); !done.OK {
			t.Fatalf("turn %q failed: %+v", text, done.Error)
		}
	}
	if side := ms.SideRequests(); len(side) != 0 {
		t.Errorf("opencode made %d side requests (a session title?); the first:\n%.1500s", len(side), side[0].Body)
	}
	if n := len(ms.Requests()); n != 2 {
		t.Errorf("model requests = %d, want 2 (one per turn)", n)
	}
}

// An early start of opencode warms the directory up (opencode boots its
// tool registry, file finder and watcher for a directory at its first
// prompt) with a throw-away session against Core's warm-up endpoint: the
// session's model is asked nothing for it, and the session's own first
// turn is the model's first request and answers as scripted.
func TestOpencodeACPWarmsUpWithoutTheModel(t *testing.T) {
	cli := opencodeACPCLI
	ms := cli.newServer(t)
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), cli.env(t, ms.URL))
	page := acpCounterPage(t, srv, new(int))
	sid := cliSession(t, page, cli)
	// opencode's own log (in the session's directory) says when the
	// warm-up model was asked; the turn comes after that.
	testenv.Await(t, 3*time.Minute, "opencode's log to show the warm-up model's request", func() bool {
		logs, _ := filepath.Glob(filepath.Join(srv.StateDir, "sessions", "*", "opencode", "data", "opencode", "log", "*.log"))
		for _, f := range logs {
			if data, _ := os.ReadFile(f); strings.Contains(string(data), "providerID=pedelecwarmup") {
				return true
			}
		}
		return false
	})
	ms.Push(modelserver.Say("Hello from the session."))
	turnID, done := cliTurn(t, page, sid, "Say hello.")
	if !done.OK {
		t.Fatalf("turn failed: %+v", done.Error)
	}
	if chat := page.Chat(turnID); !strings.Contains(chat, "Hello from the session.") {
		t.Errorf("chat = %q", chat)
	}
	if logs := srv.Logs(); !strings.Contains(logs, "opencode warmed up in") && !strings.Contains(logs, "opencode stopped warming up") {
		t.Error("Core's log does not say the early start warmed opencode up")
	}
	reqs := ms.Requests()
	if len(reqs) != 1 || len(ms.SideRequests()) != 0 {
		t.Fatalf("the session's model got %d requests and %d side requests, want only the turn's", len(reqs), len(ms.SideRequests()))
	}
	if body := string(reqs[0].Body); !strings.Contains(body, "Say hello.") || strings.Contains(body, `"content":"ok"`) {
		t.Errorf("the model's one request is not the turn's alone:\n%.2000s", body)
	}
}

// `opencode acp` serves its whole API (prompts, shell, files) on loopback
// for its own ACP side: the session's agent gets a password for it, so a
// local process that is not that ACP side is refused.
func TestOpencodeACPLocalServerNeedsItsPassword(t *testing.T) {
	cli := opencodeACPCLI
	ms := cli.newServer(t)
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), cli.env(t, ms.URL))
	page := acpCounterPage(t, srv, new(int))
	sid := cliSession(t, page, cli)
	ms.Push(modelserver.Say("Hello."))
	if _, done := cliTurn(t, page, sid, "Say hello."); !done.OK {
		t.Fatalf("turn failed: %+v", done.Error)
	}
	addrs := listeningAddrs(t, sessionPIDs(sid))
	if len(addrs) == 0 {
		t.Fatal("the session's opencode listens on no TCP port (has it stopped serving its API?)")
	}
	for _, addr := range addrs {
		resp, err := http.Get("http://" + addr + "/session")
		if err != nil {
			t.Errorf("%s: %v", addr, err)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET http://%s/session without the password: %d, want 401", addr, resp.StatusCode)
		}
	}
}

// listeningAddrs are the TCP addresses pids listen on (from `ss -ltnp`).
func listeningAddrs(t *testing.T, pids []int) []string {
	t.Helper()
	out, err := exec.Command("ss", "-Hltnp").Output()
	if err != nil {
		t.Fatalf("ss: %v", err)
	}
	var addrs []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		for _, pid := range pids {
			if strings.Contains(f[5], "pid="+strconv.Itoa(pid)+",") {
				addrs = append(addrs, f[3])
			}
		}
	}
	return addrs
}
