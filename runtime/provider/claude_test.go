package provider_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime/provider"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

func newClaude(t *testing.T, env map[string]string) provider.Provider {
	return provider.NewClaude(provider.Settings{Executable: testenv.ClaudeBinary(t), Env: env})
}

func TestClaudeCheckReportsVersion(t *testing.T) {
	t.Parallel()
	info := newClaude(t, nil).Check(context.Background())
	if !info.Available || info.Version != "2.1.332" || info.Path == "" {
		t.Errorf("Check = %+v, want available 2.1.332 with its path", info)
	}
}

func TestClaudeTurnRunsCommandAndResumes(t *testing.T) {
	t.Parallel()
	ms := modelserver.NewMessages(t,
		modelserver.Run(`pedelec tool-call update_counter '{"delta":2}'`),
		modelserver.Say("The counter moved."),
	)
	p := newClaude(t, ms.ClaudeEnv(t))
	turn := newTurn(t, "Add two to the counter.")
	turn.Model = "claude-pedelec-test"

	rec, err := run(t, p, context.Background(), turn)
	if err != nil {
		t.Fatal(err)
	}
	if rec.text() != "The counter moved." {
		t.Errorf("chat = %q", rec.text())
	}
	if rec.deltas < 3 {
		t.Errorf("chat came in %d deltas, want it to stream word by word", rec.deltas)
	}
	thread := rec.thread()
	if thread == "" {
		t.Fatal("no provider thread id")
	}
	reqs := ms.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model requests = %d, want 2", len(reqs))
	}
	if !strings.Contains(string(reqs[0].Body), `"model":"claude-pedelec-test"`) {
		t.Errorf("the turn's model did not reach the model server")
	}
	if !strings.Contains(string(reqs[0].Body), "Add two to the counter.") {
		t.Errorf("the prompt did not reach the model")
	}
	out, isErr, ok := reqs[1].ToolResult()
	if want := `FAKE-PEDELEC thread=` + turn.SessionID + ` args=tool-call update_counter {"delta":2}`; !ok || isErr || !strings.Contains(out, want) {
		t.Errorf("tool result in the next request = %q (error %v), want it to contain %q", out, isErr, want)
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

func TestClaudeAllowsOnlyTheAgentCommands(t *testing.T) {
	t.Parallel()
	allowed := []string{
		`pedelec tool-spec update_counter`,
		`pedelec-cli --thread-id abc tool-call update_counter '{"delta": 2}'`,
		`pedelec-cli tool-call update_counter '{}'`,
		// Shell metacharacters inside the quoted JSON are data, not commands.
		`pedelec-cli --thread-id abc tool-call note '{"text":"cost $5; a && b | c > d ` + "`x`" + ` $(y)"}'`,
		`pedelec-cli --thread-id abc tool-call note '{"text":"it'\''s"}'`,
	}
	refused := []string{
		`touch made-by-agent`,
		`curl -s http://127.0.0.1:1/`,
		`pedelec tool-call x '{}' && touch smuggled`,
		`pedelec serve`,
		`cat /etc/hostname`, // reading outside the working directory
	}
	var steps []modelserver.Step
	for _, c := range append(append([]string{}, allowed...), refused...) {
		steps = append(steps, modelserver.Run(c))
	}
	ms := modelserver.NewMessages(t, append(steps, modelserver.Say("done"))...)
	turn := newTurn(t, "probe")
	rec, err := run(t, newClaude(t, ms.ClaudeEnv(t)), context.Background(), turn)
	if err != nil {
		t.Fatal(err)
	}
	reqs := ms.Requests()
	if len(reqs) != len(steps)+1 {
		t.Fatalf("model requests = %d, want %d", len(reqs), len(steps)+1)
	}
	for i, c := range allowed {
		if out, isErr, _ := reqs[i+1].ToolResult(); isErr || !strings.Contains(out, "FAKE-PEDELEC") {
			t.Errorf("%s: result %q (error %v), want it to run", c, out, isErr)
		}
	}
	for i, c := range refused {
		if out, isErr, _ := reqs[len(allowed)+i+1].ToolResult(); !isErr || strings.Contains(out, "FAKE-PEDELEC") {
			t.Errorf("%s: result %q (error %v), want it refused", c, out, isErr)
		}
	}
	if len(rec.warnings) != len(refused) {
		t.Errorf("warnings = %q, want one per refused command", rec.warnings)
	}
}

func TestClaudeArgsAddAllowedTools(t *testing.T) {
	t.Parallel()
	ms := modelserver.NewMessages(t,
		modelserver.Run(`touch granted-by-config`),
		modelserver.Run(`pedelec tool-spec update_counter`),
		modelserver.Say("done"))
	p := provider.NewClaude(provider.Settings{Executable: testenv.ClaudeBinary(t), Env: ms.ClaudeEnv(t),
		Args: []string{"--allowedTools", "Bash(touch *)"}})
	turn := newTurn(t, "probe")
	if _, err := run(t, p, context.Background(), turn); err != nil {
		t.Fatal(err)
	}
	reqs := ms.Requests()
	if out, isErr, _ := reqs[1].ToolResult(); isErr {
		t.Errorf("a command granted in args was refused: %s", out)
	}
	if out, isErr, _ := reqs[2].ToolResult(); isErr || !strings.Contains(out, "FAKE-PEDELEC") {
		t.Errorf("the agent commands are no longer granted when args grant more: %s", out)
	}
}

func TestClaudeModelServerErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		step modelserver.Step
		want string
	}{
		{"http-400", modelserver.FailWith(400, "mock bad request"), "mock bad request"},
		{"http-500", modelserver.FailWith(500, "mock overloaded"), "mock overloaded"},
		{"stream-error", modelserver.Step{Fail: true, Message: "mock failure"}, "mock failure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.step.Repeat = true
			ms := modelserver.NewMessages(t, tc.step)
			turn := newTurn(t, "hello")
			rec, err := run(t, newClaude(t, ms.ClaudeEnv(t)), context.Background(), turn)
			wantCode(t, err, wire.CodeProviderError, tc.want)
			if rec.text() != "" {
				t.Errorf("chat = %q, want no chat for an API error", rec.text())
			}
			noProcessesLeft(t, turn)
		})
	}
}

func TestClaudeResumeUnknownSession(t *testing.T) {
	t.Parallel()
	ms := modelserver.NewMessages(t)
	turn := newTurn(t, "hello")
	turn.ResumeID = "11111111-2222-3333-4444-555555555555"
	_, err := run(t, newClaude(t, ms.ClaudeEnv(t)), context.Background(), turn)
	wantCode(t, err, wire.CodeProviderError, "could not resume session 11111111-2222-3333-4444-555555555555: No conversation found")
}

func TestClaudeModelServerDown(t *testing.T) {
	t.Parallel()
	// With no retries Claude Code gives up at once (with retries, it backs
	// off until Core's deadline, like Codex: see the e2e test).
	turn := newTurn(t, "hello")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := run(t, newClaude(t, modelserver.ClaudeEnv(t, modelserver.DownURL(t))), ctx, turn)
	wantCode(t, err, wire.CodeProviderError, "Connection refused")
	noProcessesLeft(t, turn)
}

func TestClaudeModelHangsHitsDeadline(t *testing.T) {
	t.Parallel()
	ms := modelserver.NewMessages(t, modelserver.Step{Hang: true})
	turn := newTurn(t, "hello")
	deadlineWhenDown(t, newClaude(t, ms.ClaudeEnv(t)), turn, 3*time.Second, 4*time.Second)
}

func TestClaudeCancelMidCommandLeavesNoProcess(t *testing.T) {
	t.Parallel()
	ms := modelserver.NewMessages(t, modelserver.Run(`pedelec tool-call slow '{}'`), modelserver.Say("never"))
	turn := newTurn(t, "hello")
	cancelWhenStarted(t, newClaude(t, ms.ClaudeEnv(t)), turn, 5*time.Second)
}
