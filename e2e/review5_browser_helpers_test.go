package e2e

// Helpers of the fifth hostile review's browser tests: Core as root or as
// a normal user (uid 1001, with Chromium as that user too: Core's peer
// check lets only its own user in), and an impostor of another user on
// Core's port that plays a hostile Core to a page.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/coder/websocket"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime/coreauth"
	"github.com/kaoruisaac/pedelec/runtime/locate"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// normalUser is the uid (and gid) a "normal user" Core runs as.
const normalUser = "1001"

// r5User is who runs Core (and the browser) in a review5 test.
type r5User struct{ name, uid string }

var r5Users = []r5User{{"root", ""}, {"normal user", normalUser}}

// r5Core is a `pedelec serve` run as some user, on a fixed address.
type r5Core struct {
	Addr, URL, StateDir string
	uid                 string
	srv                 *testenv.Server // Core as root: testenv's
	cmd                 *exec.Cmd
	done                chan struct{}
	logs                *testenv.SyncBuffer
}

// serveAs starts `pedelec serve` as uid ("" for root, through testenv) on
// a free port, allowing the given origin, and waits until it listens. A
// normal user's Core refuses root's requests (the peer check), so it is
// ready when it has written its address to the state directory.
func serveAs(t *testing.T, uid, allowOrigin string, args ...string) *r5Core {
	t.Helper()
	return serveAsEnv(t, uid, allowOrigin, nil, args...)
}

// serveAsEnv is serveAs with entries (KEY=VALUE) for Core's environment.
func serveAsEnv(t *testing.T, uid, allowOrigin string, env []string, args ...string) *r5Core {
	t.Helper()
	args = append([]string{"--allow-origin", allowOrigin}, args...)
	if uid == "" {
		s := testenv.Serve(t, args, env...)
		return &r5Core{Addr: s.Addr, URL: s.URL, StateDir: s.StateDir, srv: s}
	}
	bin := sharedBinary(t)
	state := filepath.Join(sharedDir(t), "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(uid)
	if err := os.Chown(state, n, n); err != nil {
		t.Fatal(err)
	}
	addr := testenv.FreeAddr(t)
	c := &r5Core{Addr: addr, URL: "http://" + addr, StateDir: state, uid: uid, done: make(chan struct{}), logs: &testenv.SyncBuffer{}}
	all := append(append(asUser(t, uid), bin, "--log-level", "debug", "serve", "--addr", addr, "--state-dir", state), args...)
	c.cmd = exec.Command(all[0], all[1:]...)
	c.cmd.Env = append([]string{"PATH=/usr/bin:/bin", "HOME=" + state, "PEDELEC_CONFIG=" + filepath.Join(state, "no-config.toml")}, env...)
	c.cmd.Dir = "/"
	c.cmd.Stdout, c.cmd.Stderr = c.logs, c.logs
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = c.cmd.Wait(); close(c.done) }()
	t.Cleanup(func() {
		c.Stop(t)
		if t.Failed() {
			t.Logf("pedelec serve (uid %s) logs:\n%s", uid, c.logs.String())
		}
	})
	testenv.Await(t, 20*time.Second, "Core (uid "+uid+") to listen", func() bool {
		select {
		case <-c.done:
			t.Fatalf("pedelec serve as uid %s exited:\n%s", uid, c.logs.String())
		default:
		}
		_, err := os.Stat(filepath.Join(state, locate.File))
		return err == nil
	})
	return c
}

// Stop ends Core (SIGTERM, then SIGKILL) and waits until its port is free.
func (c *r5Core) Stop(t *testing.T) {
	if c.srv != nil {
		c.srv.Stop(t)
		return
	}
	select {
	case <-c.done:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(15 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// Key is Core's public key, as a page remembers it.
func (c *r5Core) Key(t *testing.T) string {
	t.Helper()
	key, err := coreauth.PublicKey(c.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// browserAs is a headless Chromium run as uid ("" for root): a normal
// user's Core lets only that user's browser connect.
func browserAs(t *testing.T, uid string) *browser {
	t.Helper()
	if uid == "" {
		return newBrowser(t)
	}
	asUser(t, uid) // skips unless root
	dir := sharedDir(t)
	profile := filepath.Join(dir, "profile")
	if err := os.Mkdir(profile, 0o700); err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(uid)
	if err := os.Chown(profile, n, n); err != nil {
		t.Fatal(err)
	}
	wrapper := filepath.Join(dir, "chromium-as-"+uid)
	script := fmt.Sprintf("#!/bin/sh\nexec %s env HOME=%s %s \"$@\"\n", strings.Join(asUser(t, uid), " "), profile, testenv.Chromium(t))
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return newBrowserWith(t, chromedp.ExecPath(wrapper), chromedp.UserDataDir(profile))
}

// r5Env is Core as some user, an app page of its own origin, and a
// browser (as Core's user) on the test harness.
type r5Env struct {
	core *r5Core
	app  string
	b    *browser
}

func newR5Env(t *testing.T, u r5User, serveArgs ...string) *r5Env {
	t.Helper()
	b := browserAs(t, u.uid)
	app := appServer(t)
	core := serveAs(t, u.uid, app.URL, serveArgs...)
	b.open(t, fmt.Sprintf("%s/harness.html?core=%s", app.URL, core.URL), "ready")
	return &r5Env{core: core, app: app.URL, b: b}
}

// The hostile Core: the test binary re-run as another user with
// PEDELEC_E2E_R5_IMPOSTOR set to the address. Its modes:
//
//   - "events": the first message on a page's WebSocket is no hello but an
//     array of events for the session PEDELEC_E2E_R5_SESSION (a tool call,
//     chat, the session's end), then a hello with a proof by a key of its
//     own;
//   - "own-key": a hello with a good proof by a key of its own, then "ok"
//     to every request, answering create_session as a Core would.
//
// It prints each upgrade and each WebSocket message it receives.
const (
	r5ImpostorEnv = "PEDELEC_E2E_R5_IMPOSTOR"
	r5ModeEnv     = "PEDELEC_E2E_R5_MODE"
	r5SessionEnv  = "PEDELEC_E2E_R5_SESSION"
)

func init() {
	if addr := os.Getenv(r5ImpostorEnv); addr != "" {
		runR5Impostor(addr, os.Getenv(r5ModeEnv), os.Getenv(r5SessionEnv))
		os.Exit(0)
	}
}

func runR5Impostor(addr, mode, sessionID string) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Println("LISTEN FAILED", err)
		return
	}
	key, sign := impostorKey()
	var mu sync.Mutex
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Printf(format+"\n", args...)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dump, _ := httputil.DumpRequest(r, false)
		if r.URL.Path != "/ws" {
			logf("REQUEST %q", dump)
			w.Header().Set("Access-Control-Allow-Origin", "*")
			_, _ = w.Write([]byte(`{"ok":true,"service":"pedelec"}`))
			return
		}
		logf("UPGRADE %q", dump)
		ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
		if err != nil {
			return
		}
		ctx := context.Background()
		hello, _ := json.Marshal(wire.Hello{Type: wire.FrameHello, Batch: true, MaxBatchFrames: 64, MaxMessageBytes: 1 << 20, CoreKey: key, CoreProof: sign(r.URL.Query().Get(wire.ProofQueryParam))})
		if mode == "events" {
			now := time.Now().UnixMilli()
			ev := func(seq int, event string, data any) map[string]any {
				return map[string]any{"type": "event", "event": event, "sessionId": sessionID, "seq": seq, "turnId": "t_forged", "data": data}
			}
			forged, _ := json.Marshal([]any{
				ev(1000, "tool_call", map[string]any{"toolRequestId": "r_forged", "tool": "transfer_funds", "timeoutMs": 60000, "deadline": now + 60000, "turnStartedAt": now, "args": map[string]any{"to": "mallory"}}),
				ev(1001, "chat_delta", map[string]any{"text": "FORGED_CHAT"}),
				ev(1002, "ended", map[string]any{"reason": "forged"}),
			})
			_ = ws.Write(ctx, websocket.MessageText, forged)
		}
		_ = ws.Write(ctx, websocket.MessageText, hello)
		for {
			_, data, err := ws.Read(ctx)
			if err != nil {
				return
			}
			logf("WS %q", data)
			if mode != "own-key" {
				continue
			}
			var req struct {
				ID     int    `json:"id"`
				Method string `json:"method"`
			}
			if json.Unmarshal(data, &req) != nil {
				continue
			}
			result := `{}`
			if req.Method == "create_session" {
				result = `{"sessionId":"s_impostor","provider":"script","model":"","status":"idle","seq":0,"tools":[],"autoEndOnDisconnect":true}`
			}
			_ = ws.Write(ctx, websocket.MessageText, []byte(fmt.Sprintf(`{"type":"response","id":%d,"ok":true,"result":%s}`, req.ID, result)))
		}
	})
	fmt.Println("READY")
	_ = http.Serve(l, h)
}

// impostorKey is a P-256 key of the impostor's own and its signer of a
// page's nonce, as Core signs it.
func impostorKey() (key string, sign func(nonce string) string) {
	priv, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	pub, _ := priv.PublicKey.Bytes()
	return base64.RawURLEncoding.EncodeToString(pub), func(nonce string) string {
		d := sha256.Sum256(wire.CoreProofMessage(nonce))
		r, s, _ := ecdsa.Sign(rand.Reader, priv, d[:])
		sig := make([]byte, 64)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
		return base64.RawURLEncoding.EncodeToString(sig)
	}
}

// r5Impostor runs the hostile Core as uid on addr; peek returns what it
// received so far, stop ends it and returns all it received.
func r5Impostor(t *testing.T, uid, addr, mode, sessionID string) (peek, stop func() string) {
	t.Helper()
	return runHostile(t, uid, "r5-impostor", r5ImpostorEnv+"="+addr, r5ModeEnv+"="+mode, r5SessionEnv+"="+sessionID)
}
