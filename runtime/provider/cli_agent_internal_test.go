package provider

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// The adapter's contract, checked on every described CLI: args carry the
// allow list and the user's extra args, resume only when asked, and use the
// model exactly as Core gave it.
func TestEveryCLISpecBuildsItsArgs(t *testing.T) {
	for _, spec := range []cliSpec{codexSpec, claudeSpec} {
		t.Run(spec.name, func(t *testing.T) {
			if spec.name == "" || spec.command == "" || spec.envVar == "" || spec.description == "" || spec.args == nil || spec.newStream == nil || len(spec.allow) == 0 {
				t.Fatalf("incomplete spec: %+v", spec)
			}
			c := newCLIAgent(spec, Settings{Args: []string{"--extra-flag"}, DefaultModel: "not-used-by-args"})
			first := c.args(&Turn{WorkDir: "/w", Prompt: "hi"})
			if !containsRun(first, spec.allow) || !slices.Contains(first, "--extra-flag") {
				t.Errorf("first turn %q lacks the allow list or the extra args", first)
			}
			if strings.Contains(strings.Join(first, " "), "not-used-by-args") {
				t.Errorf("first turn %q filled in the default model itself (Core does)", first)
			}
			resumed := c.args(&Turn{WorkDir: "/w", Prompt: "hi", ResumeID: "thread-42", Model: "model-7"})
			joined := strings.Join(resumed, " ")
			if !slices.Contains(resumed, "thread-42") || !strings.Contains(joined, "model-7") || !containsRun(resumed, spec.allow) {
				t.Errorf("resumed turn %q lacks the thread, the model or the allow list", resumed)
			}
			if slices.Contains(first, "thread-42") {
				t.Errorf("first turn %q resumes", first)
			}
		})
	}
}

// containsRun reports whether want appears in args as one contiguous run.
func containsRun(args, want []string) bool {
	for i := 0; i+len(want) <= len(args); i++ {
		if slices.Equal(args[i:i+len(want)], want) {
			return true
		}
	}
	return false
}

// lineStream is a minimal cliStream: {"chat":...}, {"thread":...}, and
// {"done":true} for a completed turn.
type lineStream struct{ done bool }

func (s *lineStream) handle(line []byte, emit func(Event)) {
	var ev struct {
		Chat, Thread string
		Done         bool
	}
	if !decodeLenient(line, &ev) {
		return
	}
	switch {
	case ev.Thread != "":
		emit(Event{ProviderThreadID: ev.Thread})
	case ev.Chat != "":
		emit(Event{ChatDelta: ev.Chat})
	case ev.Done:
		s.done = true
	}
}

func (s *lineStream) outcome(run cliRun, resumeID string) error {
	if s.done && run.exitCode == 0 {
		return nil
	}
	return wire.Errorf(wire.CodeProviderError, "fake exited with status %d: %s", run.exitCode, stderrTail(run.stderr, 3)).WithDetails(exitDetails(run))
}

// fakeCLI is a described CLI whose program is a shell script.
func fakeCLI(t *testing.T, script string) (cliSpec, Settings) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fake-agent")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	spec := cliSpec{
		name: "fake", description: "a shell script", command: "fake-agent", envVar: "PEDELEC_FAKE_BIN",
		allow: []string{"--allow", "pedelec"},
		args: func(a cliArgs) []string {
			args := append([]string{"--model", a.turn.Model}, a.allow...)
			if a.turn.ResumeID != "" {
				args = append(args, "--resume", a.turn.ResumeID)
			}
			return append(args, a.extra...)
		},
		stopSignal: syscall.SIGTERM, grace: time.Second,
		newStream: func() cliStream { return &lineStream{} },
	}
	return spec, Settings{Executable: path, Env: map[string]string{"FAKE_SETTING": "from-settings"}}
}

func TestCLIAgentRunsATurn(t *testing.T) {
	spec, s := fakeCLI(t, `read prompt
echo '{"thread":"th-9"}'
echo "{\"chat\":\"args=$* prompt=$prompt env=$FAKE_SETTING\"}"
echo 'not json'
echo '{"done":true}'
`)
	c := newCLIAgent(spec, s)
	var chat []string
	var threads []string
	err := c.RunTurn(t.Context(), &Turn{WorkDir: t.TempDir(), Prompt: "hello\n", ResumeID: "th-8", Model: "m1", Env: os.Environ()}, func(ev Event) {
		if ev.ChatDelta != "" {
			chat = append(chat, ev.ChatDelta)
		}
		if ev.ProviderThreadID != "" {
			threads = append(threads, ev.ProviderThreadID)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "args=--model m1 --allow pedelec --resume th-8 prompt=hello env=from-settings"
	if len(chat) != 1 || chat[0] != want || !slices.Equal(threads, []string{"th-9"}) {
		t.Errorf("chat %q threads %q; want %q and th-9", chat, threads, want)
	}
}

func TestCLIAgentFailures(t *testing.T) {
	spec, s := fakeCLI(t, "echo 'bad key' >&2\nexit 3\n")
	err := newCLIAgent(spec, s).RunTurn(t.Context(), &Turn{WorkDir: t.TempDir()}, func(Event) {})
	if we := wire.AsError(err); we.Code != wire.CodeProviderError || !strings.Contains(we.Message, "status 3: bad key") {
		t.Errorf("failed turn = %v", err)
	}

	t.Setenv("PATH", t.TempDir())
	t.Setenv("PEDELEC_FAKE_BIN", "")
	missing := newCLIAgent(spec, Settings{})
	if info := missing.Check(t.Context()); info.Available || !strings.Contains(info.Reason, "fake-agent not found on PATH") {
		t.Errorf("Check without the program = %+v", info)
	}
	if we := wire.AsError(missing.RunTurn(t.Context(), &Turn{WorkDir: t.TempDir()}, func(Event) {})); we.Code != wire.CodeProviderUnavailable {
		t.Errorf("RunTurn without the program = %v", we)
	}
}

func TestCLIAgentStoppedTurn(t *testing.T) {
	spec, s := fakeCLI(t, "echo '{\"chat\":\"working\"}'\nexec sleep 60\n")
	ctx, cancel := context.WithCancelCause(t.Context())
	started := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- newCLIAgent(spec, s).RunTurn(ctx, &Turn{WorkDir: t.TempDir()}, func(ev Event) {
			if ev.ChatDelta != "" {
				close(started)
			}
		})
	}()
	<-started
	ended := errors.New("session ended")
	cancel(ended)
	select {
	case err := <-errc:
		if !errors.Is(err, ended) {
			t.Errorf("stopped turn = %v, want the cancel cause", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("RunTurn did not return after cancel")
	}
}
