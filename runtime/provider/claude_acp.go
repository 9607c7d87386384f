package provider

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/nolink"
)

// NewClaudeACP is Claude Code over ACP through Zed's adapter
// (@zed-industries/claude-agent-acp: `claude-agent-acp`), one warm process
// per session, its built-in tools removed (_meta.disableBuiltInTools).
// The adapter runs the Claude Code bundled with its SDK, not an installed
// `claude`; the native "claude" provider runs that one.
func NewClaudeACP(s Settings) Provider { return newACPAgent(claudeACP, s) }

func init() {
	Register(Spec{Name: claudeACP.name, Title: "Claude Code (ACP)", Rank: 74, New: NewClaudeACP})
}

var claudeACP = acpSpec{
	name:        "claude-acp",
	description: "Claude Code over ACP (claude-agent-acp)",
	command:     "claude-agent-acp",
	envVar:      "PEDELEC_CLAUDE_ACP_BIN",
	npmPackage:  "@zed-industries/claude-agent-acp",
	args:        func(cliArgs) []string { return nil },
	prepare:     claudeACPPrepare,
	meta:        map[string]any{"disableBuiltInTools": true},
	// After session/cancel the adapter (0.23.1) answers each later prompt
	// with the previous one's answer (FACTS-acp §5): restart and load.
	restartAfterCancel: true,
	// The adapter passes its MCP servers to claude on the command line;
	// claude expands ${VAR} in an MCP server's url and headers.
	mcpByEnv: true,
}

// claudeACPPrepare gives Claude its session config directory and home (it
// runs `npm root --global`, whose logs land in $HOME/.npm) and the endpoint.
func claudeACPPrepare(a cliArgs) (map[string]string, error) {
	dir := filepath.Join(filepath.Dir(a.turn.WorkDir), "claude-acp")
	if _, err := nolink.Dir(filepath.Dir(dir), "claude-acp", ".claude"); err != nil {
		return nil, err
	}
	env := map[string]string{
		"HOME":              dir,
		"CLAUDE_CONFIG_DIR": filepath.Join(dir, ".claude"),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		"DISABLE_AUTOUPDATER":                      "1",
		"DISABLE_TELEMETRY":                        "1",
		"DISABLE_ERROR_REPORTING":                  "1",
	}
	if os.Geteuid() == 0 {
		// As root the bundled CLI refuses its skip-permissions flag, which
		// the adapter passes, unless told it is sandboxed; the permission
		// policy, not that flag, decides here.
		env["IS_SANDBOX"] = "1"
	}
	if a.settings.BaseURL != "" {
		env["ANTHROPIC_BASE_URL"] = strings.TrimSuffix(a.settings.BaseURL, "/")
		env["CLAUDE_CODE_MAX_RETRIES"] = "0"
	}
	if a.settings.APIKey != "" {
		env["ANTHROPIC_API_KEY"] = a.settings.APIKey
	}
	if a.turn.Model != "" {
		env["ANTHROPIC_MODEL"] = a.turn.Model
	}
	return env, nil
}
