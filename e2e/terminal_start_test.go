package e2e

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"golang.org/x/sys/unix"
)

// A terminal that answers no colour query (`script -qc`, some IDE run
// panes, CI jobs with a pty) must not hold `pedelec serve` back: the
// logger asked the terminal for its colours before the listener was up
// and waited 5 s per query. Not timed: the test asserts that no query
// reaches the terminal and that /healthz answers while the terminal
// stays silent; the deadline only guards against a hang.
func TestServeOnSilentTerminalQueriesNothing(t *testing.T) {
	for _, term := range []string{"xterm-256color", "dumb"} {
		t.Run(term, func(t *testing.T) {
			pty := openSilentPty(t)
			addr, stateDir := testenv.FreeAddr(t), t.TempDir()
			cmd := exec.Command(testenv.Binary(t), "serve", "--addr", addr, "--state-dir", stateDir)
			// CI set in the environment means "no colour" to the logger (termenv),
			// as it should in a CI log: the child runs as on a person's terminal.
			cmd.Env = append(withoutEnv(os.Environ(), "CI"), "TERM="+term, "PEDELEC_CONFIG="+filepath.Join(stateDir, "none.toml"))
			pty.attach(cmd, true, true, true)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pty.closeChildSide()
			t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
			testenv.Await(t, 30*time.Second, "/healthz", func() bool {
				resp, err := http.Get("http://" + addr + "/healthz")
				if err != nil {
					return false
				}
				resp.Body.Close()
				return resp.StatusCode == 200
			})
			testenv.Await(t, 30*time.Second, "the listening line on the terminal", func() bool {
				return strings.Contains(pty.output(), "Pedelec Core listening")
			})
			checkNoTerminalQuery(t, pty.output(), term)
			if term != "dumb" && !strings.Contains(pty.output(), "\x1b[") {
				t.Errorf("no colour on a terminal that does colour (TERM=%s): %q", term, pty.output())
			}
		})
	}
}

// `pedelec mcp` run by an IDE has its stdin and stdout on pipes and its
// stderr on the IDE's terminal: it must answer initialize at once and ask
// that terminal nothing.
func TestMCPOnSilentTerminalQueriesNothing(t *testing.T) {
	pty := openSilentPty(t)
	stateDir := t.TempDir()
	cmd := exec.Command(testenv.Binary(t), "--log-level", "debug", "mcp", "--core-url", "http://"+testenv.FreeAddr(t), "--state-dir", stateDir)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	pty.attach(cmd, false, false, true)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pty.closeChildSide()
	t.Cleanup(func() { stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- s
	}()
	select {
	case s := <-line:
		if !strings.Contains(s, `"id":1`) || !strings.Contains(s, `"result"`) {
			t.Fatalf("initialize answered %q", s)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("pedelec mcp did not answer initialize; its terminal shows %q", pty.output())
	}
	checkNoTerminalQuery(t, pty.output(), "xterm-256color")
}

// checkNoTerminalQuery fails on any OSC (ESC ]) or device-status query
// (ESC [6n) the program wrote, and on any escape at all where TERM says
// the terminal does not do colour.
func checkNoTerminalQuery(t *testing.T, out, term string) {
	t.Helper()
	if strings.Contains(out, "\x1b]") || strings.Contains(out, "\x1b[6n") {
		t.Errorf("the program queried the terminal (TERM=%s): %q", term, out)
	}
	if term == "dumb" && strings.Contains(out, "\x1b") {
		t.Errorf("escape sequences on a terminal without colour (TERM=dumb): %q", out)
	}
}

// silentPty is a pseudo-terminal whose far end never answers: what a
// program sees under `script -qc cmd /dev/null` with nobody typing.
type silentPty struct {
	master, slave *os.File
	mu            sync.Mutex
	buf           bytes.Buffer
}

func openSilentPty(t *testing.T) *silentPty {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pty: %v", err)
	}
	p := &silentPty{master: m, slave: s}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := m.Read(b)
			p.mu.Lock()
			p.buf.Write(b[:n])
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { m.Close(); s.Close() })
	return p
}

// attach puts the chosen standard streams of cmd on the terminal and makes
// it the child's controlling terminal, as a shell in it would.
func (p *silentPty) attach(cmd *exec.Cmd, stdin, stdout, stderr bool) {
	ctty := -1
	if stdin {
		cmd.Stdin = p.slave
		ctty = 0
	}
	if stdout {
		cmd.Stdout = p.slave
		if ctty < 0 {
			ctty = 1
		}
	}
	if stderr {
		cmd.Stderr = p.slave
		if ctty < 0 {
			ctty = 2
		}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: ctty}
}

func (p *silentPty) closeChildSide() { p.slave.Close() }

func (p *silentPty) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.buf.String()
}

// withoutEnv is env less the variables named.
func withoutEnv(env []string, names ...string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, name) {
			out = append(out, kv)
		}
	}
	return out
}
