package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/e2e/wspage"
)

// The fifth hostile review: opencode's warm-up model endpoint, a loopback
// server inside Core that answers "ok" to opencode's throw-away warm-up
// prompt, attacked by another local user (nobody) with Core as root and as
// a normal user. The real binary starts it for a session with opencode (a
// stand-in executable: the endpoint is Core's, not opencode's).
//
// The attacker is this test binary re-run as nobody with
// PEDELEC_E2E_R5_WARMUP set to the endpoint's address; it prints a
// warmupReport.
const r5WarmupEnv = "PEDELEC_E2E_R5_WARMUP"

// The page that starts the session is this test binary re-run as Core's
// user with PEDELEC_E2E_R5_PAGE set to Core's WebSocket URL: it creates an
// opencode session, prints its answer and holds the connection until its
// stdin closes.
const r5PageEnv = "PEDELEC_E2E_R5_PAGE"

func init() {
	if addr := os.Getenv(r5WarmupEnv); addr != "" {
		_ = json.NewEncoder(os.Stdout).Encode(attackWarmup(addr))
		os.Exit(0)
	}
	if ws := os.Getenv(r5PageEnv); ws != "" {
		p, _, err := wspage.TryDial(ws, "")
		if err != nil {
			fmt.Println("DIAL FAILED", err)
			os.Exit(0)
		}
		res, werr := p.Call("create_session", map[string]any{"provider": "opencode", "model": "fake/model", "skills": map[string]any{"guidance": "g", "tools": []any{}}})
		if werr != nil {
			fmt.Println("ERROR", werr.Code, werr.Message)
		} else {
			fmt.Println("CREATED", string(res))
		}
		_, _ = io.Copy(io.Discard, os.Stdin)
		p.Close()
		os.Exit(0)
	}
}

// warmupAttack is what one attack got back.
type warmupAttack struct {
	Name   string `json:"name"`
	Got    string `json:"got"`    // what the endpoint answered (at most 300 bytes)
	Sent   int64  `json:"sent"`   // bytes the attacker managed to write
	Closed bool   `json:"closed"` // the endpoint closed the connection
	Err    string `json:"err,omitempty"`
}

type warmupReport struct {
	Attacks []warmupAttack `json:"attacks"`
	// Held: of HoldN connections opened and left idle, how many the
	// endpoint still held open after 3 s.
	HoldN, Held int
}

func attackWarmup(addr string) warmupReport {
	var r warmupReport
	one := func(name string, write func(c net.Conn) (int64, error)) {
		a := warmupAttack{Name: name}
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			a.Err = "dial: " + err.Error()
			r.Attacks = append(r.Attacks, a)
			return
		}
		defer c.Close()
		done := make(chan string, 1)
		go func() {
			c.SetReadDeadline(time.Now().Add(20 * time.Second))
			b, _ := io.ReadAll(io.LimitReader(c, 300))
			done <- string(b)
		}()
		a.Sent, err = write(c)
		if err != nil {
			a.Err = err.Error()
		}
		select {
		case a.Got = <-done:
			a.Closed = true
		case <-time.After(20 * time.Second):
		}
		r.Attacks = append(r.Attacks, a)
	}
	post := func(auth string) func(c net.Conn) (int64, error) {
		return func(c net.Conn) (int64, error) {
			body := `{"model":"warmup","stream":true,"messages":[{"role":"user","content":"hi"}]}`
			n, err := fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, auth, len(body), body)
			return int64(n), err
		}
	}
	one("a chat request", post(""))
	one("a chat request with the config's api key", post("Authorization: Bearer warmup\r\n"))
	one("a chat request with a guessed password", post("Authorization: Basic "+"b3BlbmNvZGU6Z3Vlc3M="+"\r\n"))
	one("slowloris: a header byte every 200 ms", func(c net.Conn) (int64, error) {
		req := "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
		var n int64
		for i := 0; i < len(req); i++ {
			if _, err := c.Write([]byte{req[i]}); err != nil {
				return n, err
			}
			n++
			time.Sleep(200 * time.Millisecond)
			if n > 20 {
				break
			}
		}
		return n, nil
	})
	one("a 256 MiB body", func(c net.Conn) (int64, error) {
		const size = 256 << 20
		n, err := fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", addr, size)
		sent := int64(n)
		chunk := make([]byte, 64<<10)
		c.SetWriteDeadline(time.Now().Add(20 * time.Second))
		for sent < size && err == nil {
			var m int
			m, err = c.Write(chunk)
			sent += int64(m)
		}
		return sent, err
	})
	// Many idle connections, held open as long as the endpoint lets them.
	r.HoldN = 200
	var conns []net.Conn
	for range r.HoldN {
		if c, err := net.DialTimeout("tcp", addr, 5*time.Second); err == nil {
			conns = append(conns, c)
		}
	}
	time.Sleep(3 * time.Second)
	for _, c := range conns {
		c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		_, err := c.Read(make([]byte, 1))
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			r.Held++
		}
		c.Close()
	}
	return r
}

// corePID is Core's process id.
func (c *r5Core) PID() int {
	if c.srv != nil {
		return c.srv.Cmd.Process.Pid
	}
	return c.cmd.Process.Pid
}

// openFiles counts the descriptors of pid.
func openFiles(t *testing.T, pid int) int {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// runAsUser runs this test binary as uid ("" for this process's own user)
// with env, and returns the command (stdout piped) and its stdin.
func runAsUser(t *testing.T, uid string, env ...string) (*exec.Cmd, io.WriteCloser, *bufio.Scanner) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(self)
	bin := filepath.Join(sharedDir(t), "r5-as-user")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	var args []string
	if uid != "" {
		args = asUser(t, uid)
	}
	args = append(args, bin)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, env...)
	cmd.Dir = "/"
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	return cmd, in, sc
}

// warmupAddr is the warm-up endpoint's address: the one port Core
// listens on besides its own.
func warmupAddr(t *testing.T, c *r5Core) string {
	t.Helper()
	var found string
	_, corePort, _ := net.SplitHostPort(c.Addr)
	testenv.Await(t, 60*time.Second, "Core to listen on the warm-up endpoint", func() bool {
		out, err := exec.Command("ss", "-Hltnp").Output()
		if err != nil {
			t.Fatalf("ss: %v", err)
		}
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			if len(f) < 6 || !strings.Contains(f[5], "pid="+strconv.Itoa(c.PID())+",") {
				continue
			}
			if _, port, _ := net.SplitHostPort(f[3]); port != corePort {
				found = f[3]
				return true
			}
		}
		return false
	})
	return found
}

func TestWarmupEndpointRefusesAnotherUser(t *testing.T) {
	for _, u := range r5Users {
		t.Run(u.name, func(t *testing.T) {
			asNobody(t)
			dir := sharedDir(t)
			fake := filepath.Join(dir, "opencode")
			// A stand-in opencode: it says a version and then reads its
			// stdin until Core lets it go; the warm-up endpoint is Core's.
			if err := os.WriteFile(fake, []byte("#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo 1.0.0; exit 0; fi\nexec cat >/dev/null\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			core := serveAsEnv(t, u.uid, "http://app.invalid", []string{"PEDELEC_OPENCODE_BIN=" + fake})
			_, _, page := runAsUser(t, u.uid, r5PageEnv+"=ws://"+core.Addr+"/ws")
			if !page.Scan() || !strings.HasPrefix(page.Text(), "CREATED ") {
				t.Fatalf("the opencode session: %q", page.Text())
			}
			addr := warmupAddr(t, core)
			t.Logf("the warm-up endpoint: %s", addr)

			// Core's own user is served: this is the endpoint.
			var mine []string
			if u.uid != "" {
				mine = asUser(t, u.uid)
			}
			mine = append(mine, "curl", "-sS", "-m", "10", "-X", "POST", "-d", `{"stream":true}`, "http://"+addr+"/v1/chat/completions")
			if out, err := exec.Command(mine[0], mine[1:]...).CombinedOutput(); err != nil || !strings.Contains(string(out), `"content":"ok"`) {
				t.Fatalf("Core's own user at the warm-up endpoint: %v\n%s", err, out)
			}

			before := openFiles(t, core.PID())
			cmd, _, sc := runAsUser(t, nobody, r5WarmupEnv+"="+addr)
			var r warmupReport
			if !sc.Scan() || json.Unmarshal(sc.Bytes(), &r) != nil {
				t.Fatalf("the attacker: %q", sc.Text())
			}
			_ = cmd.Wait()
			after := openFiles(t, core.PID())
			for _, a := range r.Attacks {
				t.Logf("nobody: %s: sent %d bytes, closed %v, got %q %s", a.Name, a.Sent, a.Closed, a.Got, a.Err)
				if strings.Contains(a.Got, `"content":"ok"`) || strings.Contains(a.Got, "HTTP/1.1 200") || !strings.Contains(a.Got, "PEER_NOT_ALLOWED") {
					t.Errorf("%s: the warm-up endpoint served uid 65534: %q", a.Name, a.Got)
				}
				if !a.Closed {
					t.Errorf("%s: the endpoint kept the connection of uid 65534 open", a.Name)
				}
				if a.Sent >= 256<<20 {
					t.Errorf("%s: the endpoint took the whole body (%d bytes) from uid 65534", a.Name, a.Sent)
				}
			}
			t.Logf("nobody held %d of %d idle connections open; Core's descriptors %d before, %d after", r.Held, r.HoldN, before, after)
			if r.Held != 0 {
				t.Errorf("uid 65534 held %d connections open at the warm-up endpoint", r.Held)
			}
			if after > before+10 {
				t.Errorf("Core's descriptors grew from %d to %d", before, after)
			}
		})
	}
}
