package provider

import (
	"context"
	"syscall"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// ClaudeAllowedTools are the only Bash commands Claude Code may run without
// asking: the agent commands, in both spellings the prompt and the seeds
// use. Claude splits compound commands (`a && b`, `a; b`, `$(...)`) and
// checks each part, so a granted prefix does not carry anything else along.
// Read-only commands (echo, ls, cat, ...) are allowed by Claude Code itself.
// As root the bypass flags are refused; these rules are narrower anyway.
var ClaudeAllowedTools = []string{
	"Bash(pedelec tool-call *)",
	"Bash(pedelec tool-spec *)",
	"Bash(pedelec-cli tool-call *)",
	"Bash(pedelec-cli tool-spec *)",
	"Bash(pedelec-cli --thread-id * tool-call *)",
	"Bash(pedelec-cli --thread-id * tool-spec *)",
}

// claudeGrace is how long Claude Code gets after SIGTERM to stop.
const claudeGrace = 3 * time.Second

type claude struct {
	settings Settings
	program  *cliProgram
}

// NewClaude is the Claude Code provider: `claude -p --output-format
// stream-json`, one process per turn, resumed by session id.
func NewClaude(s Settings) Provider {
	return &claude{settings: s, program: &cliProgram{
		name: "claude", command: "claude", envVar: "PEDELEC_CLAUDE_BIN", explicit: s.Executable, env: s.Env,
	}}
}

func (c *claude) Name() string { return "claude" }

func (c *claude) Check(ctx context.Context) wire.ProviderInfo {
	info := c.program.check(ctx, "Claude Code (claude -p)")
	info.DefaultModel = c.settings.DefaultModel
	return info
}

func (c *claude) RunTurn(ctx context.Context, turn *Turn, emit func(Event)) error {
	path, err := c.program.find()
	if err != nil {
		return wire.Errorf(wire.CodeProviderUnavailable, "claude: %v", err)
	}
	var stream claudeStream
	run := runCLI(ctx, ProcessSpec{
		Path:       path,
		Args:       c.args(turn),
		Dir:        turn.WorkDir,
		Env:        cliEnv(turn.Env, c.settings.Env),
		Stdin:      turn.Prompt,
		StopSignal: syscall.SIGTERM,
		Grace:      claudeGrace,
	}, func(line []byte) { stream.handle(line, emit) })
	if ctx.Err() != nil {
		return stoppedTurn(ctx, "claude")
	}
	if run.err != nil && run.exitCode == -1 {
		return wire.Errorf(wire.CodeProviderError, "claude: %v", run.err)
	}
	return stream.outcome(run, turn.ResumeID)
}

// args builds the command line. --allowedTools takes several values, so it
// comes last and the prompt goes on stdin.
func (c *claude) args(turn *Turn) []string {
	args := []string{"-p", "--output-format", "stream-json", "--verbose", "--include-partial-messages", "--tools", "Bash"}
	model := turn.Model
	if model == "" {
		model = c.settings.DefaultModel
	}
	if model != "" {
		args = append(args, "--model", model)
	}
	if turn.ResumeID != "" {
		args = append(args, "--resume", turn.ResumeID)
	}
	args = append(args, c.settings.Args...)
	args = append(args, "--allowedTools")
	return append(args, ClaudeAllowedTools...)
}
