package provider

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/nolink"
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
// user's own Codex configuration and login. Either way Codex reads its
// trusted roots from one file (codex_acp_roots.go).
func codexACPPrepare(a cliArgs) (map[string]string, error) {
	home, err := nolink.Dir(filepath.Dir(a.turn.WorkDir), "codex-acp")
	if err != nil {
		return nil, err
	}
	env, err := codexACPRootsEnv(a, home)
	if err != nil {
		return nil, err
	}
	if a.settings.BaseURL == "" {
		return env, nil
	}
	var b strings.Builder
	if a.turn.Model != "" {
		fmt.Fprintf(&b, "model = %q\n", a.turn.Model)
	}
	b.WriteString("model_provider = \"pedelec\"\nallow_login_shell = false\n\n[model_providers.pedelec]\nname = \"Pedelec endpoint\"\n")
	fmt.Fprintf(&b, "base_url = %q\nwire_api = \"responses\"\nenv_key = %q\nrequest_max_retries = 0\nstream_max_retries = 0\n",
		strings.TrimSuffix(a.settings.BaseURL, "/"), codexACPKeyVar)
	if err := nolink.WriteFile(filepath.Join(home, "config.toml"), []byte(b.String())); err != nil {
		return nil, err
	}
	key := a.settings.APIKey
	if key == "" {
		key = "unused"
	}
	if env == nil {
		env = map[string]string{}
	}
	env["CODEX_HOME"], env[codexACPKeyVar] = home, key
	return env, nil
}

// codexACPRootsEnv is codexRootsEnv for the agent's environment, unless
// the provider's own env settings name the roots: those are the user's
// choice and are applied after this.
func codexACPRootsEnv(a cliArgs, home string) (map[string]string, error) {
	for _, k := range []string{"SSL_CERT_FILE", "SSL_CERT_DIR"} {
		if _, ok := a.settings.Env[k]; ok {
			return nil, nil
		}
	}
	lookup := func(k string) (string, bool) {
		for i := len(a.turn.Env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(a.turn.Env[i], k+"="); ok {
				return v, true
			}
		}
		return "", false
	}
	return codexRootsEnv(lookup, home, systemCertSources)
}
