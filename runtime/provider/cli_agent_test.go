package provider_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// These tests run the real CLIs against scripted model servers
// (e2e/modelserver): the CLI is real, only the model is scripted. No Core
// is involved: a fake `pedelec` first on PATH stands in for the agent
// commands.

// fakePedelec writes `pedelec` and `pedelec-cli` scripts that print their
// arguments (and, for a tool named "slow", mark a file and sleep), and
// returns the directory to put first on PATH.
func fakePedelec(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	script := `#!/bin/sh
if [ "$3" = "slow" ] || [ "$2" = "slow" ]; then echo started > "$PEDELEC_TEST_MARK"; sleep 60; fi
echo "FAKE-PEDELEC thread=$PEDELEC_THREAD_ID args=$*"
`
	for _, name := range []string{"pedelec", "pedelec-cli"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// newTurn is a turn in a fresh working directory whose environment carries
// a unique PEDELEC_THREAD_ID (so leftover processes can be found) and the
// fake pedelec first on PATH.
func newTurn(t *testing.T, prompt string) *provider.Turn {
	t.Helper()
	thread := "th-" + strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()) + "-" + time.Now().Format("150405.000000")
	work := t.TempDir()
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"PATH="+fakePedelec(t)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"PEDELEC_THREAD_ID="+thread,
		"PEDELEC_TEST_MARK="+filepath.Join(work, "started"),
	)
	return &provider.Turn{SessionID: thread, TurnID: "t1", Prompt: prompt, WorkDir: work, Env: env}
}

// recorder collects a turn's events.
type recorder struct {
	mu       sync.Mutex
	chat     strings.Builder
	deltas   int
	threads  []string
	warnings []string
}

func (r *recorder) emit(ev provider.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.chat.WriteString(ev.ChatDelta)
	if ev.ChatDelta != "" {
		r.deltas++
	}
	if ev.ProviderThreadID != "" {
		r.threads = append(r.threads, ev.ProviderThreadID)
	}
	if ev.Warning != "" {
		r.warnings = append(r.warnings, ev.Warning)
	}
}

func (r *recorder) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.chat.String()
}

func (r *recorder) thread() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.threads) == 0 {
		return ""
	}
	return r.threads[len(r.threads)-1]
}

func run(t *testing.T, p provider.Provider, ctx context.Context, turn *provider.Turn) (*recorder, error) {
	t.Helper()
	rec := &recorder{}
	err := p.RunTurn(ctx, turn, rec.emit)
	t.Logf("turn %s: err=%v chat=%q threads=%v warnings=%q", turn.TurnID, err, rec.text(), rec.threads, rec.warnings)
	return rec, err
}

func wantCode(t *testing.T, err error, code wire.Code, contains string) {
	t.Helper()
	var we *wire.Error
	if !errors.As(err, &we) {
		t.Fatalf("error = %v, want a %s wire error", err, code)
	}
	if we.Code != code || !strings.Contains(we.Message, contains) {
		t.Errorf("error = %s: %s; want %s containing %q", we.Code, we.Message, code, contains)
	}
}

// noProcessesLeft fails unless every process of the turn is gone.
func noProcessesLeft(t *testing.T, turn *provider.Turn) {
	t.Helper()
	entry := "PEDELEC_THREAD_ID=" + turn.SessionID
	deadline := time.Now().Add(2 * time.Second)
	for {
		pids := testenv.ProcessesWithEnv(entry)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left behind with %s: %v", entry, pids)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// awaitFile waits for path to exist.
func awaitFile(t *testing.T, path string, timeout time.Duration) {
	t.Helper()
	testenv.Await(t, timeout, path, func() bool {
		_, err := os.Stat(path)
		return err == nil
	})
}

// cancelWhenStarted runs turn, cancels it once the slow command has
// started, and checks that RunTurn returned promptly and left nothing.
func cancelWhenStarted(t *testing.T, p provider.Provider, turn *provider.Turn, within time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- p.RunTurn(ctx, turn, func(provider.Event) {}) }()
	awaitFile(t, filepath.Join(turn.WorkDir, "started"), 60*time.Second)
	if len(testenv.ProcessesWithEnv("PEDELEC_THREAD_ID="+turn.SessionID)) < 2 {
		t.Errorf("expected the CLI and its command to be running")
	}
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		t.Logf("cancelled turn returned after %s: %v", time.Since(start), err)
		if err == nil {
			t.Errorf("a cancelled turn returned success")
		}
	case <-time.After(within):
		t.Fatalf("RunTurn did not return within %s of cancel", within)
	}
	noProcessesLeft(t, turn)
}

// deadlineWhenDown runs a turn against a model server that is down, with a
// short ctx deadline, and checks PROVIDER_TIMEOUT, promptness and cleanup.
func deadlineWhenDown(t *testing.T, p provider.Provider, turn *provider.Turn, deadline, within time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	_, err := run(t, p, ctx, turn)
	if took := time.Since(start); took > deadline+within {
		t.Errorf("RunTurn returned %s after start, want within %s of the %s deadline", took, within, deadline)
	}
	wantCode(t, err, wire.CodeProviderTimeout, "deadline")
	noProcessesLeft(t, turn)
}
