package provider

import (
	"syscall"
	"time"
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

// NewClaude is the Claude Code provider: `claude -p --output-format
// stream-json`, one process per turn, resumed by session id.
func NewClaude(s Settings) Provider { return newCLIAgent(claudeSpec, s) }

func init() {
	Register(Spec{Name: claudeSpec.name, Title: "Claude Code", Rank: 20, New: NewClaude})
}

var claudeSpec = cliSpec{
	name:        "claude",
	shellLimit:  claudeShellLimit,
	limitVar:    "BASH_DEFAULT_TIMEOUT_MS",
	description: "Claude Code (claude -p)",
	command:     "claude",
	envVar:      "PEDELEC_CLAUDE_BIN",
	allow:       append([]string{"--allowedTools"}, ClaudeAllowedTools...),
	args:        claudeArgs,
	stopSignal:  syscall.SIGTERM,
	grace:       3 * time.Second,
	newStream:   func() cliStream { return &claudeStream{} },
	endpoint:    claudeEndpoint,
}

// claudeArgs builds the command line. --allowedTools takes several values,
// so it comes last and the prompt goes on stdin.
func claudeArgs(a cliArgs) []string {
	args := []string{"-p", "--output-format", "stream-json", "--verbose", "--include-partial-messages", "--tools", "Bash"}
	if a.turn.Model != "" {
		args = append(args, "--model", a.turn.Model)
	}
	if a.turn.ResumeID != "" {
		args = append(args, "--resume", a.turn.ResumeID)
	}
	args = append(args, a.extra...)
	return append(args, a.allow...)
}

// claudeEndpoint is Claude Code's model server: ANTHROPIC_BASE_URL.
func claudeEndpoint(_ cliArgs, env map[string]string) string {
	return env["ANTHROPIC_BASE_URL"]
}
