package provider

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// replay feeds a recorded stream through handle and collects the events.
func replay(t *testing.T, file string, handle func([]byte, func(Event))) (chat string, threadIDs, warnings []string) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var b strings.Builder
	for sc.Scan() {
		handle(sc.Bytes(), func(ev Event) {
			b.WriteString(ev.ChatDelta)
			if ev.ProviderThreadID != "" {
				threadIDs = append(threadIDs, ev.ProviderThreadID)
			}
			if ev.Warning != "" {
				warnings = append(warnings, ev.Warning)
			}
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String(), threadIDs, warnings
}

func wantProviderError(t *testing.T, err error, contains string) {
	t.Helper()
	we, ok := err.(*wire.Error)
	if !ok {
		t.Fatalf("error = %v (%T), want a *wire.Error", err, err)
	}
	if we.Code != wire.CodeProviderError {
		t.Errorf("code = %s, want %s", we.Code, wire.CodeProviderError)
	}
	if !strings.Contains(we.Message, contains) {
		t.Errorf("message = %q, want it to contain %q", we.Message, contains)
	}
}

func TestCodexStreamTurnWithCommand(t *testing.T) {
	for _, file := range []string{"turn-with-command.jsonl", "resumed-turn.jsonl"} {
		t.Run(file, func(t *testing.T) {
			var s codexStream
			chat, ids, warnings := replay(t, "codex-0.171.0/"+file, s.handle)
			if want := []string{"01a22acc-35c3-7442-a37d-2eee36bfd55b"}; strings.Join(ids, ",") != want[0] {
				t.Errorf("thread ids = %v, want %v", ids, want)
			}
			if !strings.HasPrefix(chat, "done: Chunk ID:") || !strings.Contains(chat, "Process exited with code 0") {
				t.Errorf("chat = %q", chat)
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], "Model metadata for `mock-model` not found") {
				t.Errorf("warnings = %q, want the error item as a warning", warnings)
			}
			if err := s.outcome(cliRun{exitCode: 0}, ""); err != nil {
				t.Errorf("outcome = %v, want success", err)
			}
		})
	}
}

func TestCodexStreamTurnFailed(t *testing.T) {
	var s codexStream
	chat, ids, _ := replay(t, "codex-0.171.0/turn-failed.jsonl", s.handle)
	if chat != "" {
		t.Errorf("chat = %q, want none", chat)
	}
	if len(ids) != 1 {
		t.Errorf("thread ids = %v, want the one from thread.started", ids)
	}
	wantProviderError(t, s.outcome(cliRun{exitCode: 1}, ""), "codex: stream disconnected before completion: mock failure")
}

func TestCodexStreamSeparatesMessages(t *testing.T) {
	var s codexStream
	var chat strings.Builder
	for _, l := range []string{
		`{"type":"thread.started","thread_id":"t1","future_field":1}`,
		`{"type":"item.completed","item":{"id":"a","type":"agent_message","text":"first"}}`,
		`{"type":"item.completed","item":{"id":"b","type":"reasoning","text":"hmm"}}`,
		`{"type":"some.new.event","x":{}}`,
		`not json at all`,
		`{"type":"item.completed","item":{"id":"c","type":"agent_message","text":"second"}}`,
		`{"type":"turn.completed","usage":{}}`,
	} {
		s.handle([]byte(l), func(ev Event) { chat.WriteString(ev.ChatDelta) })
	}
	if got := chat.String(); got != "first\n\nsecond" {
		t.Errorf("chat = %q, want the two messages with a blank line between", got)
	}
	if err := s.outcome(cliRun{}, ""); err != nil {
		t.Errorf("outcome = %v", err)
	}
}

func TestCodexOutcomeWithoutEvents(t *testing.T) {
	var s codexStream
	// Unknown thread on resume: nothing on stdout, exit 1, the reason on stderr.
	err := s.outcome(cliRun{exitCode: 1, stderr: "Error: no rollout found for thread id 0000\n"}, "0000")
	wantProviderError(t, err, "codex could not resume thread 0000: no rollout found")

	err = s.outcome(cliRun{exitCode: 2, stderr: "noise\nerror: unexpected argument '--bogus'\n"}, "")
	wantProviderError(t, err, "exited with status 2: noise\nerror: unexpected argument '--bogus'")

	// Exit 0 but no turn.completed is not a success.
	wantProviderError(t, s.outcome(cliRun{exitCode: 0}, ""), "exited without completing the turn")
}

func TestCodexOutcomeErrorEventWithoutTurnFailed(t *testing.T) {
	var s codexStream
	s.handle([]byte(`{"type":"error","message":"unexpected status 401 Unauthorized"}`), func(Event) {})
	wantProviderError(t, s.outcome(cliRun{exitCode: 1}, ""), "codex: unexpected status 401 Unauthorized")
}

func TestCodexArgs(t *testing.T) {
	c := NewCodex(Settings{Args: []string{"-c", "foo=1"}}).(*cliAgent)
	first := strings.Join(c.args(&Turn{WorkDir: "/w", Model: "gpt-x"}), " ")
	want := `exec --json --skip-git-repo-check -C /w -c approval_policy="never" -c sandbox_mode="workspace-write" -c sandbox_workspace_write.network_access=true -c allow_login_shell=false -c model="gpt-x" -c foo=1 -`
	if first != want {
		t.Errorf("first turn args:\n got %s\nwant %s", first, want)
	}
	resumed := strings.Join(c.args(&Turn{WorkDir: "/w", ResumeID: "th1", Model: "m2"}), " ")
	if !strings.HasSuffix(resumed, `-c model="m2" -c foo=1 resume th1 -`) || strings.Count(resumed, "-C ") != 1 {
		t.Errorf("resumed turn args: %s", resumed)
	}
}

func TestCodexNativeResolvesTheNpmWrapper(t *testing.T) {
	triple, pkg := codexTarget()
	if triple == "" {
		t.Skip("no Codex target for this platform")
	}
	nm := filepath.Join(t.TempDir(), "node_modules")
	wrapper := filepath.Join(nm, "@openai", "codex", "bin", "codex.js")
	native := filepath.Join(nm, "@openai", pkg, "vendor", triple, "bin", "codex")
	for _, f := range []string{wrapper, native} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(wrapper, []byte("#!/usr/bin/env node\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(native, []byte("\x7fELF"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(nm, ".bin", "codex")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../@openai/codex/bin/codex.js", link); err != nil {
		t.Fatal(err)
	}
	got, err := codexNative(link)
	if err != nil {
		t.Fatal(err)
	}
	if got != native {
		t.Errorf("codexNative(%s) = %s, want %s", link, got, native)
	}
	if got, err := codexNative(native); err != nil || got != native {
		t.Errorf("codexNative(native) = %s, %v; want it unchanged", got, err)
	}
	if err := os.Remove(native); err != nil {
		t.Fatal(err)
	}
	if _, err := codexNative(link); err == nil || !strings.Contains(err.Error(), "native binary") {
		t.Errorf("codexNative without the native package: err = %v", err)
	}
}

func TestCodexCheckNotInstalled(t *testing.T) {
	t.Setenv("PEDELEC_CODEX_BIN", "")
	t.Setenv("PATH", t.TempDir())
	info := NewCodex(Settings{}).Check(t.Context())
	if info.Available || info.Name != "codex" || !strings.Contains(info.Reason, "codex not found on PATH") {
		t.Errorf("Check = %+v, want unavailable with a reason", info)
	}
	err := NewCodex(Settings{}).RunTurn(t.Context(), &Turn{WorkDir: t.TempDir()}, func(Event) {})
	if we := wire.AsError(err); we.Code != wire.CodeProviderUnavailable {
		t.Errorf("RunTurn = %v, want PROVIDER_UNAVAILABLE", err)
	}
	info = NewCodex(Settings{Executable: "/nonexistent/codex"}).Check(t.Context())
	if info.Available || !strings.Contains(info.Reason, "/nonexistent/codex") {
		t.Errorf("Check with a bad executable = %+v", info)
	}
}

func TestCLIEnvReplacesKeys(t *testing.T) {
	got := cliEnv([]string{"A=1", "PATH=/p", "B=2"}, map[string]string{"B": "3", "C": "4"})
	if strings.Join(got, " ") != "A=1 PATH=/p B=3 C=4" {
		t.Errorf("cliEnv = %v", got)
	}
}

func TestCodexMessageUnwrapsErrorBodies(t *testing.T) {
	for in, want := range map[string]string{
		`{"error":{"code":null,"message":"mock bad request","type":"server_error"}}` + "\n": "mock bad request",
		"unexpected status 401 Unauthorized: bad key":                                       "unexpected status 401 Unauthorized: bad key",
		`{"detail":"x"}`: `{"detail":"x"}`,
	} {
		if got := codexMessage(in); got != want {
			t.Errorf("codexMessage(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCodexStreamKeepsLinesWithChangedFieldTypes(t *testing.T) {
	var s codexStream
	s.handle([]byte(`{"type":"turn.failed","thread_id":42,"error":{"message":"quota exceeded"}}`), func(Event) {})
	wantProviderError(t, s.outcome(cliRun{exitCode: 1}, ""), "codex: quota exceeded")
}

// An error without a message is still reported, as one. Found by
// FuzzCodexStream.
func TestCodexStreamErrorWithoutMessage(t *testing.T) {
	var s codexStream
	var warnings []string
	for _, l := range []string{`{"type":"error"}`, `{"type":"item.completed","item":{"type":"error","message":" "}}`} {
		s.handle([]byte(l), func(ev Event) { warnings = append(warnings, ev.Warning) })
	}
	want := []string{"codex: an error without a message", "codex: an error without a message"}
	if !slices.Equal(warnings, want) {
		t.Errorf("warnings = %q, want %q", warnings, want)
	}
	wantProviderError(t, s.outcome(cliRun{exitCode: 1}, ""), "codex exited with status 1")
}
