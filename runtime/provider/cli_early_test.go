package provider

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The native adapters' early start (cli_early.go). None of these is timed:
// deadlines only guard against a hang.

// probeScript is an executable that appends its arguments and pid to log,
// then runs body.
func probeScript(t *testing.T, log, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agent")
	script := "#!/bin/sh\necho \"$$ $*\" >> " + strconv.Quote(log) + "\n" + body + "\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func earlyProbe(t *testing.T, p *cliAgent, turn *Turn) (started bool, failed chan error) {
	t.Helper()
	failed = make(chan error, 1)
	return p.StartEarly(turn, time.Now(), func(err error) { failed <- err }), failed
}

// awaitProbe waits for the session's probe to finish.
func awaitProbe(t *testing.T, p *cliAgent, sid string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		p.probes.mu.Lock()
		running := p.probes.running[sid] != nil
		p.probes.mu.Unlock()
		if !running {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the probe never ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// At createSession a native adapter writes the session's config files and
// runs the program once (--version), without the session's process tag;
// nothing is reported when both work.
func TestCLIEarlyProbeWritesConfigAndRunsTheProgram(t *testing.T) {
	log := filepath.Join(t.TempDir(), "runs")
	p := newCLIAgent(geminiSpec, Settings{Executable: probeScript(t, log, "env | grep -c "+wire.EnvThreadID+" >> "+strconv.Quote(log)+"; exit 0")})
	work := filepath.Join(t.TempDir(), "work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	turn := fakeTurn(t, work, "s1", "", "")
	started, failed := earlyProbe(t, p, turn)
	if !started {
		t.Fatal("StartEarly did not probe")
	}
	awaitProbe(t, p, "s1")
	select {
	case err := <-failed:
		t.Fatalf("the probe failed: %v", err)
	default:
	}
	runs, _ := os.ReadFile(log)
	lines := strings.Split(strings.TrimSpace(string(runs)), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], " --version") || lines[1] != "0" {
		t.Errorf("the program's runs %q, want one `--version` without the session tag", runs)
	}
	if _, err := os.Stat(filepath.Join(geminiDir(turn), "policy.toml")); err != nil {
		t.Errorf("the session's Gemini policy is not written at createSession: %v", err)
	}
}

// A program that does not run, or a loopback model server that does not
// answer, is reported before any turn.
func TestCLIEarlyProbeReportsFailures(t *testing.T) {
	log := filepath.Join(t.TempDir(), "runs")
	work := t.TempDir()
	broken := newCLIAgent(claudeSpec, Settings{Executable: probeScript(t, log, "echo 'cannot load' >&2; exit 7")})
	if started, failed := earlyProbe(t, broken, fakeTurn(t, work, "s1", "", "")); !started {
		t.Fatal("StartEarly did not probe")
	} else if err := awaitFailure(t, failed); wire.AsError(err).Code != wire.CodeProviderUnavailable || !strings.Contains(wireText(err), "cannot load") {
		t.Errorf("a program exiting 7: %s, want PROVIDER_UNAVAILABLE with its stderr", wireText(err))
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close()
	noModel := newCLIAgent(claudeSpec, Settings{Executable: probeScript(t, log, "exit 0"), Env: map[string]string{"ANTHROPIC_BASE_URL": down}})
	_, failed := earlyProbe(t, noModel, fakeTurn(t, work, "s2", "", ""))
	if err := awaitFailure(t, failed); !strings.Contains(wireText(err), "the model server at "+down+" does not answer") {
		t.Errorf("a model server that is down: %s", wireText(err))
	}

	missing := newCLIAgent(codexSpec, Settings{Executable: filepath.Join(t.TempDir(), "no-codex")})
	_, failed = earlyProbe(t, missing, fakeTurn(t, work, "s3", "", ""))
	if err := awaitFailure(t, failed); wire.AsError(err).Code != wire.CodeProviderUnavailable {
		t.Errorf("a missing program: %s", wireText(err))
	}
	off := false
	if started, _ := earlyProbe(t, newCLIAgent(claudeSpec, Settings{Executable: "/bin/true", EarlyStart: &off}), fakeTurn(t, work, "s4", "", "")); started {
		t.Error("early_start = false probed")
	}
}

func awaitFailure(t *testing.T, failed chan error) error {
	t.Helper()
	select {
	case err := <-failed:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("the failure was not reported")
		return nil
	}
}

// end() during the probe stops it: CloseSession returns once its process
// is gone, and nothing is reported.
func TestCLICloseDuringEarlyProbeLeavesNoProcess(t *testing.T) {
	log := filepath.Join(t.TempDir(), "runs")
	p := newCLIAgent(claudeSpec, Settings{Executable: probeScript(t, log, "exec sleep 60")})
	_, failed := earlyProbe(t, p, fakeTurn(t, t.TempDir(), "s1", "", ""))
	var pid int
	deadline := time.Now().Add(30 * time.Second)
	for pid == 0 {
		if data, _ := os.ReadFile(log); len(data) > 0 {
			pid, _ = strconv.Atoi(strings.Fields(string(data))[0])
		}
		if time.Now().After(deadline) {
			t.Fatal("the probe never ran the program")
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.CloseSession("s1")
	if pidAlive(pid) {
		t.Errorf("the probe's process %d still runs after CloseSession returned", pid)
	}
	select {
	case err := <-failed:
		t.Errorf("a probe stopped by CloseSession was reported: %v", err)
	default:
	}
}

// Codex's model server is found where Codex finds it: its CODEX_HOME's
// config.toml, and -c overrides in args over that.
func TestCodexEndpointForTheProbe(t *testing.T) {
	home := t.TempDir()
	cfg := "model_provider = \"mock\"\n[model_providers.mock]\nbase_url = \"http://127.0.0.1:7/v1\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"CODEX_HOME": home}
	if got := codexEndpoint(cliArgs{}, env); got != "http://127.0.0.1:7/v1" {
		t.Errorf("from config.toml: %q", got)
	}
	args := cliArgs{extra: []string{"-c", `model_provider="gw"`, "-c", `model_providers.gw.base_url="http://127.0.0.1:8/v1"`}}
	if got := codexEndpoint(args, env); got != "http://127.0.0.1:8/v1" {
		t.Errorf("from -c overrides: %q", got)
	}
}

// A turn that starts while the probe still runs stops the probe first (it
// would rewrite the config files the turn's CLI reads) and then runs.
func TestCLITurnStopsTheEarlyProbe(t *testing.T) {
	log := filepath.Join(t.TempDir(), "runs")
	// --version hangs; a turn's run prints nothing and exits 0.
	p := newCLIAgent(claudeSpec, Settings{Executable: probeScript(t, log, `case "$1" in --version) exec sleep 60;; esac; exit 0`)})
	turn := fakeTurn(t, t.TempDir(), "s1", "", "hello")
	_, failed := earlyProbe(t, p, turn)
	var pid int
	deadline := time.Now().Add(30 * time.Second)
	for pid == 0 {
		if data, _ := os.ReadFile(log); len(data) > 0 {
			pid, _ = strconv.Atoi(strings.Fields(string(data))[0])
		}
		if time.Now().After(deadline) {
			t.Fatal("the probe never ran the program")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = p.RunTurn(context.Background(), turn, func(Event) {}) // claude's parser fails a silent run; the order is what counts
	if pidAlive(pid) {
		t.Errorf("the probe's process %d still runs after the turn", pid)
	}
	data, _ := os.ReadFile(log)
	if runs := strings.Split(strings.TrimSpace(string(data)), "\n"); len(runs) != 2 || strings.HasSuffix(runs[1], "--version") {
		t.Errorf("runs %q, want the probe, then the turn", data)
	}
	select {
	case err := <-failed:
		t.Errorf("a probe stopped by the turn was reported: %v", err)
	default:
	}
}
