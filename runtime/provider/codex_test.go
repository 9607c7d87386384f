package provider_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

func newCodex(t *testing.T, env map[string]string) provider.Provider {
	return provider.NewCodex(provider.Settings{Executable: testenv.CodexBinary(t), Env: env})
}

func TestCodexCheckReportsVersion(t *testing.T) {
	t.Parallel()
	info := newCodex(t, nil).Check(context.Background())
	if !info.Available || info.Version != "0.171.0" || info.Path == "" {
		t.Errorf("Check = %+v, want available 0.171.0 with its path", info)
	}
}

func TestCodexOnPathIsTheNativeBinary(t *testing.T) {
	// The npm install puts the Node wrapper on PATH; Pedelec runs the native
	// binary beside it, so that SIGINT reaches Codex itself.
	if os.Getenv("PEDELEC_CODEX_BIN") != "" {
		t.Skip("PEDELEC_CODEX_BIN points at another build")
	}
	native := testenv.CodexBinary(t)
	bin := filepath.Join(testenv.CacheDir(), "npm", "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(bin, "codex")); err != nil {
		t.Skipf("no npm wrapper at %s", bin)
	}
	t.Setenv("PEDELEC_CODEX_BIN", "")
	t.Setenv("PATH", bin)
	info := provider.NewCodex(provider.Settings{}).Check(context.Background())
	if !info.Available || info.Path != native {
		t.Errorf("Check = %+v, want the native binary %s", info, native)
	}
}

func TestCodexTurnRunsCommandAndResumes(t *testing.T) {
	t.Parallel()
	ms := modelserver.NewResponses(t,
		modelserver.Run(`pedelec tool-call update_counter '{"delta":2}'`),
		modelserver.Say("The counter moved."),
	)
	p := newCodex(t, ms.CodexEnv(t))
	turn := newTurn(t, "Add two to the counter.")
	turn.Model = "gpt-5.5-pedelec-test"

	rec, err := run(t, p, context.Background(), turn)
	if err != nil {
		t.Fatal(err)
	}
	if rec.text() != "The counter moved." {
		t.Errorf("chat = %q", rec.text())
	}
	thread := rec.thread()
	if thread == "" {
		t.Fatal("no provider thread id")
	}
	reqs := ms.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model requests = %d, want 2", len(reqs))
	}
	if !strings.Contains(string(reqs[0].Body), `"model":"gpt-5.5-pedelec-test"`) {
		t.Errorf("the turn's model did not reach the model server")
	}
	if !strings.Contains(string(reqs[0].Body), "Add two to the counter.") {
		t.Errorf("the prompt did not reach the model: %s", reqs[0].Body)
	}
	out, ok := reqs[1].FunctionOutput()
	// The fake pedelec was found first on PATH (no login shell reset it) and
	// saw the session's environment.
	if want := `FAKE-PEDELEC thread=` + turn.SessionID + ` args=tool-call update_counter {"delta":2}`; !ok || !strings.Contains(out, want) {
		t.Errorf("command output in the next request = %q, want it to contain %q", out, want)
	}

	ms.Push(modelserver.Say("Second answer."))
	turn2 := *turn
	turn2.TurnID, turn2.Prompt, turn2.ResumeID = "t2", "And again?", thread
	rec2, err := run(t, p, context.Background(), &turn2)
	if err != nil {
		t.Fatal(err)
	}
	if rec2.text() != "Second answer." {
		t.Errorf("second chat = %q", rec2.text())
	}
	if rec2.thread() != thread {
		t.Errorf("resumed thread = %q, want %q", rec2.thread(), thread)
	}
	reqs = ms.Requests()
	if len(reqs) != 3 || !strings.Contains(string(reqs[2].Body), "FAKE-PEDELEC") || !strings.Contains(string(reqs[2].Body), "And again?") {
		t.Errorf("the resumed request does not carry the earlier conversation and the new message")
	}
}

func TestCodexSandboxAllowsLoopbackOnly(t *testing.T) {
	t.Parallel()
	// What `pedelec tool-call` needs: a TCP dial-back to Core on 127.0.0.1.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			fmt.Fprint(c, "CORE-REACHED\n")
			c.Close()
		}
	}()
	port := l.Addr().(*net.TCPAddr).Port
	home, _ := os.UserHomeDir()
	outside := filepath.Join(home, fmt.Sprintf(".pedelec-sandbox-probe-%d", time.Now().UnixNano()))
	t.Cleanup(func() { os.Remove(outside) })
	probe := modelserver.Run(fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && cat <&3; echo inside > inside.txt && echo wrote-inside; echo x > %s || echo refused-outside`, port, outside))
	ms := modelserver.NewResponses(t, probe, modelserver.Say("ok"))
	p := newCodex(t, ms.CodexEnv(t))
	turn := newTurn(t, "probe")
	rec, err := run(t, p, context.Background(), turn)
	if err != nil {
		t.Fatal(err)
	}
	// The same sandbox holds on a resumed turn: `resume` takes it from -c.
	ms.Push(probe, modelserver.Say("ok"))
	resumed := *turn
	resumed.TurnID, resumed.ResumeID = "t2", rec.thread()
	if _, err := run(t, p, context.Background(), &resumed); err != nil {
		t.Fatal(err)
	}
	reqs := ms.Requests()
	for _, i := range []int{1, 3} {
		out, _ := reqs[i].FunctionOutput()
		for _, want := range []string{"CORE-REACHED", "wrote-inside", "refused-outside"} {
			if !strings.Contains(out, want) {
				t.Errorf("turn %d: command output lacks %q:\n%s", (i+1)/2, want, out)
			}
		}
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("the sandbox let the agent write outside its working directory")
	}
}

func TestCodexModelServerErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		step modelserver.Step
		want string
	}{
		{"http-400", modelserver.FailWith(400, "mock bad request"), "mock bad request"},
		{"http-401", modelserver.FailWith(401, "mock bad key"), "mock bad key"},
		{"http-429", modelserver.FailWith(429, "mock slow down"), "429 Too Many Requests"},
		// Codex does not show a 5xx body: it says "high demand".
		{"http-500", modelserver.FailWith(500, "mock overloaded"), "codex: "},
		{"response-failed", modelserver.Step{Fail: true, Message: "mock failure"}, "mock failure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := modelserver.NewResponses(t, tc.step)
			turn := newTurn(t, "hello")
			_, err := run(t, newCodex(t, ms.CodexEnv(t)), context.Background(), turn)
			wantCode(t, err, wire.CodeProviderError, tc.want)
			noProcessesLeft(t, turn)
		})
	}
}

func TestCodexResumeUnknownThread(t *testing.T) {
	t.Parallel()
	ms := modelserver.NewResponses(t)
	turn := newTurn(t, "hello")
	turn.ResumeID = "01a22acc-0000-7000-8000-000000000000"
	_, err := run(t, newCodex(t, ms.CodexEnv(t)), context.Background(), turn)
	wantCode(t, err, wire.CodeProviderError, "could not resume thread 01a22acc-0000-7000-8000-000000000000: no rollout found")
}

func TestCodexModelServerDownHitsDeadline(t *testing.T) {
	t.Parallel()
	// Codex retries an unreachable server forever: only the deadline ends it.
	turn := newTurn(t, "hello")
	deadlineWhenDown(t, newCodex(t, modelserver.CodexHome(t, modelserver.DownURL(t))), turn, 3*time.Second, 4*time.Second)
}

func TestCodexCancelMidCommandLeavesNoProcess(t *testing.T) {
	t.Parallel()
	ms := modelserver.NewResponses(t, modelserver.Run(`pedelec tool-call slow '{}'`), modelserver.Say("never"))
	turn := newTurn(t, "hello")
	cancelWhenStarted(t, newCodex(t, ms.CodexEnv(t)), turn, 5*time.Second)
}

// A codex behind a shell shim that does not exec (a company wrapper that
// runs codex as its child): Check finds it and its version, a turn runs
// through it, and cancelling stops the wrapper, codex and the command.
func TestCodexBehindShellShim(t *testing.T) {
	t.Parallel()
	native := testenv.CodexBinary(t)
	shim := filepath.Join(t.TempDir(), "codex")
	script := "#!/bin/sh\n# company wrapper: not npm's\n" + fmt.Sprintf("%q \"$@\"\n", native)
	if err := os.WriteFile(shim, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ms := modelserver.NewResponses(t, modelserver.Run(`pedelec tool-call slow '{}'`), modelserver.Say("never"))
	p := provider.NewCodex(provider.Settings{Executable: shim, Env: ms.CodexEnv(t)})
	info := p.Check(context.Background())
	if !info.Available || info.Path != shim || info.Version != "0.171.0" {
		t.Fatalf("Check = %+v, want the shim, available, 0.171.0", info)
	}
	cancelWhenStarted(t, p, newTurn(t, "hello"), 10*time.Second)
}
