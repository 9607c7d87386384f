package provider

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/ids"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// script is the deterministic built-in provider. Each turn starts a real
// child process, `pedelec script-agent`, found on the session's PATH like
// any agent's tool, in the session's work directory and environment. The
// script agent reads the user's message and, line by line, runs the real
// `pedelec tool-call` / `tool-spec` binaries; what they print comes back as
// chat text. So the whole path is exercised without a model.
type script struct{ settings Settings }

// NewScript returns the script provider.
func NewScript(s Settings) Provider { return &script{settings: s} }

func init() {
	Register(Spec{Name: "script", Title: "Script (deterministic, built in)", Rank: 80, New: NewScript})
}

func (p *script) Name() string { return "script" }

func (p *script) Check(context.Context) wire.ProviderInfo {
	return wire.ProviderInfo{
		Name: "script", Available: true, Version: "built-in", DefaultModel: p.settings.DefaultModel,
		Description: "Deterministic: each line of a message is `call <tool> <json>`, `spec <tool>`, `say <text>` or a file command (`write`, `mkdir`, `symlink`, `rm`, `ls`) confined to the session's work directory; other lines are echoed. Turn it off with [providers.script] enabled = false.",
	}
}

// ScriptEvent is one line the script agent writes on stdout.
type ScriptEvent struct {
	Chat string `json:"chat"`
}

func (p *script) RunTurn(ctx context.Context, turn *Turn, emit func(Event)) error {
	exe := p.settings.Executable
	if exe == "" {
		exe = lookPathIn(turn.Env, "pedelec")
	}
	// The agent's own thread: the script agent keeps each thread's messages
	// in the work directory, so a resumed turn sees the earlier ones (its
	// `history` line), as a real CLI's resumed thread does.
	thread := turn.ResumeID
	if thread == "" {
		thread = ids.New("st_")
	}
	emit(Event{ProviderThreadID: thread})
	run := runCLI(ctx, ProcessSpec{
		Path: exe, Args: append([]string{"script-agent", "--thread", thread}, p.settings.Args...),
		Dir: turn.WorkDir, Env: cliEnv(turn.Env, p.settings.Env), Stdin: turn.Message,
	}, func(line []byte) {
		var ev ScriptEvent
		if json.Unmarshal(line, &ev) == nil && ev.Chat != "" {
			emit(Event{ChatDelta: ev.Chat})
		}
	})
	if ctx.Err() != nil {
		return stoppedTurn(ctx, "script")
	}
	if run.err != nil || run.exitCode != 0 {
		detail := strings.TrimSpace(run.stderr)
		if run.err != nil {
			detail = run.err.Error() + " " + detail
		}
		return wire.Errorf(wire.CodeProviderError, "script agent exited with code %d: %s", run.exitCode, strings.TrimSpace(detail))
	}
	return nil
}

// lookPathIn finds name on the PATH of env (not of this process): the
// session's own bin directory comes first there.
func lookPathIn(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if path, ok := strings.CutPrefix(env[i], "PATH="); ok {
			for _, dir := range filepath.SplitList(path) {
				candidate := filepath.Join(dir, name)
				if _, err := exec.LookPath(candidate); err == nil {
					return candidate
				}
			}
			break
		}
	}
	return name
}
