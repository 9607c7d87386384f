package provider

import (
	"os"
	"path/filepath"
	"strings"
)

// NewQwen is Qwen Code over ACP (@qwen-code/qwen-code: `qwen --acp`), one
// warm process per session. Its shell allowlist could not hold it to
// pedelec commands (`pedelec-cli $(rm -f somefile)` ran), so it has no
// native adapter; over ACP nothing runs in a shell: the page's tools are
// MCP tools, the session is switched to mode "default" (in its ACP default
// "auto" it writes files without asking) and every other permission
// request is rejected.
func NewQwen(s Settings) Provider { return newACPAgent(qwenACP, s) }

func init() {
	Register(Spec{Name: qwenACP.name, Title: "Qwen Code", Rank: 72, New: NewQwen})
}

var qwenACP = acpSpec{
	name:        "qwen",
	description: "Qwen Code over ACP (qwen --acp)",
	command:     "qwen",
	envVar:      "PEDELEC_QWEN_BIN",
	npmPackage:  "@qwen-code/qwen-code",
	args: func(a cliArgs) []string {
		args := []string{"--acp"}
		if a.settings.BaseURL != "" || a.settings.APIKey != "" {
			args = append(args, "--auth-type", openaiName) // the OpenAI-compatible API
		}
		if a.turn.Model != "" {
			args = append(args, "-m", a.turn.Model)
		}
		return args
	},
	prepare: qwenPrepare,
	mode:    "default",
}

// qwenPrepare gives Qwen the session's own home (its settings and the
// sessions session/load reads) and the OpenAI-compatible endpoint.
func qwenPrepare(a cliArgs) (map[string]string, error) {
	home := filepath.Join(filepath.Dir(a.turn.WorkDir), "qwen")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	env := map[string]string{"HOME": home}
	if a.settings.BaseURL != "" {
		env["OPENAI_BASE_URL"] = strings.TrimSuffix(a.settings.BaseURL, "/")
	}
	if a.settings.APIKey != "" {
		env["OPENAI_API_KEY"] = a.settings.APIKey
	}
	if a.turn.Model != "" {
		env["OPENAI_MODEL"] = a.turn.Model
	}
	return env, nil
}
