package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// NewCodexACP is Codex over ACP through Zed's adapter
// (@zed-industries/codex-acp: `codex-acp`), one warm process per session.
// Codex never asks before running its shell (FACTS-acp §6), so the shell
// tool is removed (-c features.shell_tool=false) and apply_patch, which
// does ask, is rejected by the permission policy.
func NewCodexACP(s Settings) Provider { return newACPAgent(codexACP, s) }

func init() {
	Register(Spec{Name: codexACP.name, Title: "Codex (ACP)", Rank: 76, New: NewCodexACP})
}

var codexACP = acpSpec{
	name:        "codex-acp",
	description: "Codex over ACP (codex-acp)",
	command:     "codex-acp",
	envVar:      "PEDELEC_CODEX_ACP_BIN",
	npmPackage:  "@zed-industries/codex-acp",
	args: func(a cliArgs) []string {
		args := []string{"-c", "features.shell_tool=false"}
		if a.turn.Model != "" {
			args = append(args, "-c", fmt.Sprintf("model=%q", a.turn.Model))
		}
		return args
	},
	prepare: codexACPPrepare,
}

// codexACPKeyVar carries the api_key to Codex's model provider entry.
const codexACPKeyVar = "PEDELEC_CODEX_ACP_KEY"

// codexACPPrepare: with a base_url, the session's own CODEX_HOME whose
// config.toml names that endpoint (Responses API); without one, the
// user's own Codex configuration and login.
func codexACPPrepare(a cliArgs) (map[string]string, error) {
	if a.settings.BaseURL == "" {
		return nil, nil
	}
	home := filepath.Join(filepath.Dir(a.turn.WorkDir), "codex-acp")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	var b strings.Builder
	if a.turn.Model != "" {
		fmt.Fprintf(&b, "model = %q\n", a.turn.Model)
	}
	b.WriteString("model_provider = \"pedelec\"\nallow_login_shell = false\n\n[model_providers.pedelec]\nname = \"Pedelec endpoint\"\n")
	fmt.Fprintf(&b, "base_url = %q\nwire_api = \"responses\"\nenv_key = %q\nrequest_max_retries = 0\nstream_max_retries = 0\n",
		strings.TrimSuffix(a.settings.BaseURL, "/"), codexACPKeyVar)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(b.String()), 0o600); err != nil {
		return nil, err
	}
	key := a.settings.APIKey
	if key == "" {
		key = "unused"
	}
	return map[string]string{"CODEX_HOME": home, codexACPKeyVar: key}, nil
}
