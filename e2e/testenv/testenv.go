// Package testenv gives end-to-end tests the real parts: the pedelec binary
// built once per test process, a running `pedelec serve` on a free loopback
// port, and the external programs (Chromium, provider CLIs) that the test
// command installs. A missing program fails the test under CI and skips it,
// loudly, on a developer's machine that has not run the test command.
package testenv

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// RepoRoot is the module root, found from this file's location.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// SkipShort skips a test of the end-to-end tier under `go test -short`:
// one that builds and runs the real binary, Chromium or an agent CLI. The
// short tier is the in-process one (seconds); the README's test command
// runs both.
func SkipShort(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: %s belongs to the end-to-end tier", what)
	}
}

// Main is TestMain for a package that uses Binary: it runs the tests, then
// removes the temporary directory the binary was built into, and runs what
// AfterAll registered.
func Main(m *testing.M) {
	code := m.Run()
	if buildPath != "" {
		os.RemoveAll(filepath.Dir(buildPath))
	}
	for _, fn := range afterAll {
		fn()
	}
	os.Exit(code)
}

var afterAll []func()

// AfterAll runs fn once the package's tests are done (under Main): for
// what several tests share, such as an app built once.
func AfterAll(fn func()) { afterAll = append(afterAll, fn) }

// BinaryEnv names a pedelec binary already built, which Binary returns
// instead of building one.
const BinaryEnv = "PEDELEC_TEST_BINARY"

// Binary builds the real pedelec binary once per test process and returns
// its path, in a temporary directory that Main removes after the run.
func Binary(t testing.TB) string {
	t.Helper()
	SkipShort(t, "the pedelec binary")
	// A test that runs itself again as another user (e2e/review5_*) hands
	// the child the binary it built: the child cannot build one.
	if bin := os.Getenv(BinaryEnv); bin != "" {
		return bin
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pedelec-bin-")
		if err != nil {
			buildErr = err
			return
		}
		buildPath = filepath.Join(dir, "pedelec")
		// PEDELEC_TEST_RACE=1 builds the binary with the race detector, so
		// the end-to-end tests also hunt data races in Core.
		args := []string{"build", "-o", buildPath}
		// PEDELEC_TEST_TAGS adds build tags (pedelec_pprof: the CPU
		// profiles docs/performance.md describes).
		if tags := os.Getenv("PEDELEC_TEST_TAGS"); tags != "" {
			args = append(args, "-tags", tags)
		}
		cgo := "CGO_ENABLED=0"
		if os.Getenv("PEDELEC_TEST_RACE") == "1" {
			args, cgo = append(args, "-race"), "CGO_ENABLED=1"
		}
		cmd := exec.Command("go", append(args, ".")...)
		cmd.Dir = RepoRoot()
		cmd.Env = append(os.Environ(), cgo)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// Need reports a missing external program: a failure under CI (CI=true),
// a skip with the reason elsewhere.
func Need(t testing.TB, what, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is required in CI and is missing: %s (the test command installs it: see README)", what, why)
	}
	t.Skipf("SKIPPED: %s is missing: %s; run the README's test command to install it", what, why)
}

// CacheDir is where the test command installs npm packages for the tests.
func CacheDir() string {
	if d := os.Getenv("PEDELEC_TEST_CACHE"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "pedelec-test")
}

// Chromium returns the path of Debian's chromium.
func Chromium(t testing.TB) string {
	t.Helper()
	SkipShort(t, "chromium")
	for _, p := range []string{os.Getenv("PEDELEC_CHROMIUM"), "/usr/bin/chromium"} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	Need(t, "chromium", "/usr/bin/chromium not found (apt-get install -y chromium)")
	return ""
}

// CodexBinary is the native Codex binary installed by the test command.
func CodexBinary(t testing.TB) string {
	t.Helper()
	SkipShort(t, "the codex CLI")
	p := os.Getenv("PEDELEC_CODEX_BIN")
	if p == "" {
		p = filepath.Join(CacheDir(), "npm", "node_modules", "@openai", "codex-linux-x64", "vendor", "x86_64-unknown-linux-musl", "bin", "codex")
	}
	if _, err := os.Stat(p); err != nil {
		Need(t, "codex", p+" not found")
	}
	return p
}

// ClaudeBinary is the Claude Code binary installed by the test command.
func ClaudeBinary(t testing.TB) string {
	t.Helper()
	SkipShort(t, "the claude CLI")
	p := os.Getenv("PEDELEC_CLAUDE_BIN")
	if p == "" {
		p = filepath.Join(CacheDir(), "npm", "node_modules", ".bin", "claude")
	}
	if _, err := os.Stat(p); err != nil {
		Need(t, "claude", p+" not found")
	}
	return p
}

// FreeAddr returns a free 127.0.0.1 port as "127.0.0.1:PORT".
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// Server is a running `pedelec serve`.
type Server struct {
	Addr     string // 127.0.0.1:PORT
	URL      string // http://127.0.0.1:PORT
	WSURL    string // ws://127.0.0.1:PORT/ws
	StateDir string
	Cmd      *exec.Cmd
	logs     *SyncBuffer
	done     chan struct{}
	args     []string
	env      []string
}

// Logs is everything serve wrote to stderr so far.
func (s *Server) Logs() string { return s.logs.String() }

// Serve starts the real binary's `serve` on a free port with a fresh state
// dir and waits for /healthz. Extra args and env (KEY=VALUE) are appended.
// The server is stopped with SIGTERM (then SIGKILL) at cleanup.
func Serve(t testing.TB, args []string, env ...string) *Server {
	t.Helper()
	return ServeIn(t, FreeAddr(t), t.TempDir(), args, env...)
}

// ServeIn is Serve on a given address and state directory: for tests that
// start a client first and Core later (`pedelec mcp` waiting for Core).
func ServeIn(t testing.TB, addr, stateDir string, args []string, env ...string) *Server {
	t.Helper()
	s := &Server{Addr: addr, URL: "http://" + addr, WSURL: "ws://" + addr + "/ws", StateDir: stateDir, logs: &SyncBuffer{}, args: args, env: env}
	s.start(t, true)
	return s
}

// Restart starts `pedelec serve` again on the same address and state dir
// once the previous process has exited (after Stop or Kill), and waits for
// /healthz. Logs keep accumulating in the same buffer.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	<-s.done
	s.logs.Write([]byte("\n---- restart ----\n"))
	s.start(t, false)
}

// Kill stops the server with SIGKILL, as a crash would, and waits for it.
func (s *Server) Kill() {
	_ = s.Cmd.Process.Kill()
	<-s.done
}

func (s *Server) start(t testing.TB, first bool) {
	t.Helper()
	bin := Binary(t)
	addr, args, env := s.Addr, s.args, s.env
	s.done = make(chan struct{})
	// Debug logs by default, for a failing test's log; an env entry
	// PEDELEC_LOG_LEVEL=... (a benchmark's "info", what users run) wins.
	level := "debug"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PEDELEC_LOG_LEVEL="); ok {
			level = v
		}
	}
	all := append([]string{"--log-level", level, "serve", "--addr", addr, "--state-dir", s.StateDir}, args...)
	cmd := exec.Command(bin, all...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Env = append(cmd.Env, "PEDELEC_CONFIG="+filepath.Join(s.StateDir, "no-config.toml"))
	cmd.Stdout = s.logs
	cmd.Stderr = s.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.Cmd = cmd
	done := s.done
	go func() { _ = cmd.Wait(); close(done) }()
	if first {
		t.Cleanup(func() {
			s.Stop(t)
			if strings.Contains(s.Logs(), "WARNING: DATA RACE") {
				t.Errorf("the race detector reported a data race in pedelec serve")
			}
			if t.Failed() {
				t.Logf("pedelec serve logs:\n%s", s.Logs())
			}
		})
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(s.URL + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		select {
		case <-done:
			t.Fatalf("pedelec serve exited early:\n%s", s.Logs())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("pedelec serve did not become healthy:\n%s", s.Logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop sends SIGTERM and waits up to 10s, then SIGKILL. Safe to call twice.
func (s *Server) Stop(t testing.TB) {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		t.Errorf("pedelec serve did not stop within 10s of SIGTERM")
		_ = s.Cmd.Process.Kill()
		<-s.done
	}
}

// Exited reports whether the server process has exited.
func (s *Server) Exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// Await polls cond every 20ms until it is true or the timeout passes.
func Await(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// ProcessesWithEnv lists the pids of live processes whose environment holds
// the exact KEY=VALUE entry: how tests prove no provider process outlived
// its session (every provider process carries PEDELEC_THREAD_ID=<session>).
func ProcessesWithEnv(entry string) []int {
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		data, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join(d, "stat")); err == nil && isZombie(string(stat)) {
			continue
		}
		for _, kv := range strings.Split(string(data), "\x00") {
			if kv == entry {
				var pid int
				fmt.Sscanf(filepath.Base(d), "%d", &pid)
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

func isZombie(stat string) bool {
	i := strings.LastIndex(stat, ")")
	return i >= 0 && len(stat) > i+2 && stat[i+2] == 'Z'
}

// SyncBuffer is a bytes.Buffer a process's output goroutines and a test may
// use at once.
type SyncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Lines splits s into non-empty lines.
func Lines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// npmBin is an executable the test command installs into the cache's
// node_modules/.bin, or the path in the environment variable env.
func npmBin(t testing.TB, name, env string) string {
	t.Helper()
	SkipShort(t, name)
	p := os.Getenv(env)
	if p == "" {
		p = filepath.Join(CacheDir(), "npm", "node_modules", ".bin", name)
	}
	if _, err := os.Stat(p); err != nil {
		Need(t, name, p+" not found")
	}
	return p
}

// GeminiBinary is Gemini CLI (@google/gemini-cli, a Node script).
func GeminiBinary(t testing.TB) string { return npmBin(t, "gemini", "PEDELEC_GEMINI_BIN") }

// OpencodeBinary is opencode (opencode-ai, a native binary behind npm's link).
func OpencodeBinary(t testing.TB) string { return npmBin(t, "opencode", "PEDELEC_OPENCODE_BIN") }

// CopilotBinary is GitHub Copilot CLI (@github/copilot).
func CopilotBinary(t testing.TB) string { return npmBin(t, "copilot", "PEDELEC_COPILOT_BIN") }
