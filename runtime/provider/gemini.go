package provider

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/nolink"
)

// NewGemini is the Gemini CLI provider (@google/gemini-cli): `gemini
// --output-format stream-json` with the prompt on stdin, one process per
// turn, resumed with --resume <session_id>. By default it runs over ACP instead
// (acp_agents.go); acp = false in its settings picks this native adapter.
func NewGemini(s Settings) Provider {
	if acpChosen(s, true) {
		return newACPAgent(geminiACP, s)
	}
	return newCLIAgent(geminiSpec, s)
}

func init() {
	Register(Spec{Name: geminiSpec.name, Title: "Gemini CLI", Rank: 30, New: NewGemini})
}

var geminiSpec = cliSpec{
	name:        "gemini",
	shellLimit:  geminiShellLimit,
	description: "Gemini CLI (gemini, headless stream-json)",
	command:     "gemini",
	npmPackage:  "@google/gemini-cli",
	envVar:      "PEDELEC_GEMINI_BIN",
	args:        geminiArgs,
	// With GEMINI_CLI_NO_RELAUNCH=1 Gemini is one process that exits on
	// SIGTERM at once (exit 0, no result event). Its shell tool's commands
	// lead their own process groups: the session-tag sweep stops them.
	stopSignal: syscall.SIGTERM,
	grace:      3 * time.Second,
	newStream:  func() cliStream { return &geminiStream{} },
	prepare:    geminiPrepare,
}

// GeminiAllowedPrefixes are the only shell commands Gemini may run: its
// policy engine allows a run_shell_command whose every subcommand starts
// with one of these (followed by a space, a quote or the end), and its
// built-in headless rule denies the rest without asking. A redirect turns
// "allow" into "ask", and "ask" is "deny" when headless.
var GeminiAllowedPrefixes = []string{"pedelec tool-call", "pedelec tool-spec", "pedelec-cli"}

// geminiDir is the session's private directory for Gemini: its home
// (GEMINI_CLI_HOME: settings, chats for --resume), its policy and its temp
// files. It sits beside the working directory, in the session's own.
func geminiDir(turn *Turn) string { return filepath.Join(filepath.Dir(turn.WorkDir), "gemini") }

func geminiArgs(a cliArgs) []string {
	args := []string{"--output-format", "stream-json", "--skip-trust",
		"--approval-mode", "default", "--policy", filepath.Join(geminiDir(a.turn), "policy.toml")}
	if a.turn.Model != "" {
		args = append(args, "-m", a.turn.Model)
	}
	if a.turn.ResumeID != "" {
		args = append(args, "--resume", a.turn.ResumeID)
	}
	return append(args, a.extra...)
}

// geminiSettings are what Pedelec's session home for Gemini says: API-key
// auth (the only kind that works headless against a configured endpoint),
// and no usage statistics, telemetry or update checks: nothing leaves the
// machine but the model requests.
var geminiSettings = map[string]any{
	"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
	"privacy":   map[string]any{"usageStatisticsEnabled": false},
	"telemetry": map[string]any{"enabled": false},
	"general":   map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
}

// geminiPrepare writes the policy and, unless the user's settings name a
// GEMINI_CLI_HOME of their own, the session's Gemini home.
func geminiPrepare(a cliArgs) (map[string]string, error) {
	dir := geminiDir(a.turn)
	home := filepath.Join(dir, "home")
	tmp := filepath.Join(dir, "tmp")
	for _, d := range [][]string{{"gemini", "home", ".gemini"}, {"gemini", "tmp"}} {
		if _, err := nolink.Dir(filepath.Dir(a.turn.WorkDir), d...); err != nil {
			return nil, err
		}
	}
	if err := nolink.WriteFile(filepath.Join(dir, "policy.toml"), []byte(geminiPolicy())); err != nil {
		return nil, err
	}
	env := map[string]string{
		"GEMINI_CLI_HOME":        home,
		"GEMINI_CLI_NO_RELAUNCH": "1", // else a second node process ignores SIGTERM
		"TMPDIR":                 tmp, // its error reports
	}
	if _, own := a.settings.Env["GEMINI_CLI_HOME"]; !own {
		data, _ := json.MarshalIndent(geminiSettings, "", "  ")
		if err := nolink.WriteFile(filepath.Join(home, ".gemini", "settings.json"), data); err != nil {
			return nil, err
		}
	}
	if a.settings.BaseURL != "" {
		env["GOOGLE_GEMINI_BASE_URL"] = strings.TrimSuffix(a.settings.BaseURL, "/")
	}
	if a.settings.APIKey != "" {
		env["GEMINI_API_KEY"] = a.settings.APIKey
	}
	return env, nil
}

// geminiPolicy is the --policy file: one allow rule for the agent commands.
func geminiPolicy() string {
	quoted := make([]string, len(GeminiAllowedPrefixes))
	for i, p := range GeminiAllowedPrefixes {
		quoted[i] = fmt.Sprintf("%q", p)
	}
	return "# Written by Pedelec: the agent may run pedelec commands and nothing else.\n" +
		"# Every other shell command falls through to Gemini's headless rule: deny.\n" +
		"[[rule]]\n" +
		"toolName = \"run_shell_command\"\n" +
		"commandPrefix = [" + strings.Join(quoted, ", ") + "]\n" +
		"decision = \"allow\"\n" +
		"priority = 100\n"
}
