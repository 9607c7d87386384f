package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// review5eSquatter listens as nobody on 127.0.0.1:4096 and [::1]:4096,
// opencode's own API port, logs every connection and what it sends, and
// answers each request with an empty JSON 200 (a server that would take
// what comes). A python script: nothing of Core's or the test's.
const review5eSquatter = `
import socket, sys, threading
lock = threading.Lock()
def log(*a):
    with lock:
        sys.stdout.write(" ".join(str(x) for x in a) + "\n"); sys.stdout.flush()
def serve(fam, host):
    s = socket.socket(fam, socket.SOCK_STREAM)
    try:
        s.bind((host, 4096)); s.listen(16)
    except OSError as e:
        log("BIND FAILED", host, e); return
    log("LISTENING", host)
    while True:
        c, peer = s.accept()
        log("CONNECTION", host, peer)
        def talk(c=c):
            c.settimeout(5)
            try:
                data = c.recv(65536)
                log("RECEIVED", repr(data[:2000]))
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
            except Exception as e:
                log("ERROR", e)
            c.close()
        threading.Thread(target=talk, daemon=True).start()
threading.Thread(target=serve, args=(socket.AF_INET6, "::1"), daemon=True).start()
threading.Thread(target=serve, args=(socket.AF_INET, "127.0.0.1"), daemon=True).start()
log("READY")
threading.Event().wait()
`

// The fifth review (e): opencode's API port squatted by another user
// (nobody) before Core starts ` + "`opencode acp`" + ` for a session, Core
// as root and as a normal user. The session still answers prompts and
// calls the page's tool, and the squatter gets no connection: opencode
// serves its API on a port of its own and its ACP side talks to that one,
// with its password.
func TestReview5eOpencodePortSquatted(t *testing.T) {
	testenv.SkipShort(t, "opencode and the pedelec binary")
	for _, asUser := range []bool{false, true} {
		who := "root"
		if asUser {
			who = "a normal user"
		}
		t.Run("Core as "+who, func(t *testing.T) {
			if os.Getenv(review5UIDEnv) != "" {
				review5eOpencodeTurn(t) // the child, as the normal user
				return
			}
			seen := review5eSquat(t)
			if asUser {
				// The child cannot reach root's npm cache: opencode, copied.
				bin := filepath.Join(sharedDir(t), "opencode")
				copyExecutable(t, testenv.OpencodeBinary(t), bin)
				if review5AsUserEnv(t, true, "PEDELEC_OPENCODE_BIN="+bin) {
					t.Fatal("the test did not run as the normal user")
				}
			} else {
				review5eOpencodeTurn(t)
			}
			log := seen()
			t.Logf("the squatter (nobody) saw:\n%s", log)
			if strings.Contains(log, "CONNECTION") || strings.Contains(log, "RECEIVED") {
				t.Errorf("the squatter on opencode's port got a connection:\n%s", log)
			}
		})
	}
}

// review5eSquat starts the squatter as nobody and returns what it printed
// so far (skipping if another program holds 127.0.0.1:4096 already).
func review5eSquat(t *testing.T) func() string {
	t.Helper()
	prefix := asNobody(t)
	py := "/usr/bin/python3" // the system's: pyenv's shims are root's
	if _, err := os.Stat(py); err != nil {
		t.Skip("python3 is missing")
	}
	script := filepath.Join(sharedDir(t), "squat.py")
	if err := os.WriteFile(script, []byte(review5eSquatter), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prefix[0], append(prefix[1:], py, "-u", script)...)
	cmd.Dir = "/"
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got strings.Builder
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			mu.Lock()
			got.WriteString(sc.Text() + "\n")
			mu.Unlock()
		}
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); <-done })
	seen := func() string { mu.Lock(); defer mu.Unlock(); return got.String() }
	testenv.Await(t, 20*time.Second, "the squatter to listen", func() bool {
		return strings.Count(seen(), "LISTENING")+strings.Count(seen(), "BIND FAILED") >= 2
	})
	if !strings.Contains(seen(), "LISTENING 127.0.0.1") {
		t.Skipf("127.0.0.1:4096 is taken by something else here:\n%s", seen())
	}
	return seen
}

// review5eOpencodeTurn is a session with opencode against a scripted
// model: a turn that calls the page's tool.
func review5eOpencodeTurn(t *testing.T) {
	cli := opencodeACPCLI
	ms := cli.newServer(t)
	srv := serveCLIEnv(t, withBaseURL(cli, ms.URL), cli.env(t, ms.URL))
	counter := 0
	page := acpCounterPage(t, srv, &counter)
	sid := cliSession(t, page, cli)
	ms.Push(modelserver.Use("update_counter", map[string]int{"delta": 2}), modelserver.Say("The counter is now 2."))
	turnID, done := cliTurn(t, page, sid, "Add two to the counter.")
	if !done.OK {
		t.Fatalf("the turn failed with opencode's port squatted: %+v", done.Error)
	}
	if counter != 2 {
		t.Errorf("counter = %d, want 2", counter)
	}
	if chat := page.Chat(turnID); !strings.Contains(chat, "The counter is now 2.") {
		t.Errorf("chat = %q", chat)
	}
	t.Logf("the session's opencode listens on %v", listeningAddrs(t, sessionPIDs(sid)))
}
