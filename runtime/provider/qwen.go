package provider

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/nolink"
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
	// It ignores tools/list_changed, and tools.visible is written at
	// its start (qwenSessionSettings).
	toolsAtStart: true,
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

// qwenSettings are what the session's own Qwen home says (its
// ~/.qwen/settings.json; "$version" is the format Qwen Code 0.24 writes, so
// it does not rewrite the file):
//   - tools.eager [] defers the built-in tools behind tool_search and
//     tool_call, where the page's MCP tools already are: Qwen checks every
//     tool schema it declares with a new Ajv validator, which compiles the
//     JSON Schema meta-schema again, once per tool at a session's first
//     model request (about 0.7 s of its CPU for its 17 default tools, 5 are
//     left). Every tool stays reachable, and the permission policy is the
//     same.
//   - privacy.usageStatisticsEnabled false: no usage statistics (the model
//     and the endpoint's URL among them) posted to Qwen's collector at each
//     prompt: nothing leaves the machine but the model requests.
//   - general.preventSystemSleep false: no systemd-inhibit probe and
//     process around each model request.
//
// and tools.visible is added per session (qwenSessionSettings).
var qwenSettings = map[string]any{
	"$version": 4,
	"tools":    map[string]any{"eager": []string{}},
	"privacy":  map[string]any{"usageStatisticsEnabled": false},
	"general":  map[string]any{"preventSystemSleep": false},
}

// qwenSessionSettings are qwenSettings with tools.visible naming the
// page's tools as Qwen names an MCP server's tools (mcp__<server>__<tool>):
// Qwen defers every MCP tool behind tool_search and tool_call, and its
// model learns a page tool's name only from a tool_search, so a call would
// take three model steps (search, call, answer) where the other agents
// take two. Listed, they are declared to the model as they are (at the
// cost of one schema check each at the first model request); a name Qwen
// rewrites (one with a '.', or longer than its 63 characters with the
// prefix) stays behind the bridge, reachable as before. The list is
// written at each agent start: Qwen Code 0.24 does not act on the MCP
// server's tools/list_changed, so it learns of tools the page changes
// only when it starts again anyway.
func qwenSessionSettings(turn *Turn) map[string]any {
	out := make(map[string]any, len(qwenSettings))
	for k, v := range qwenSettings {
		out[k] = v
	}
	if turn.MCP != nil && len(turn.Tools) > 0 {
		visible := make([]string, 0, len(turn.Tools))
		for _, t := range turn.Tools {
			visible = append(visible, "mcp__"+turn.MCP.Name+"__"+t.Name)
		}
		out["tools"] = map[string]any{"eager": []string{}, "visible": visible}
	}
	return out
}

// qwenPrepare gives Qwen the session's own home (its settings and the
// sessions session/load reads) and the OpenAI-compatible endpoint; the
// settings file is written unless the user's settings name a HOME or
// QWEN_HOME of their own.
func qwenPrepare(a cliArgs) (map[string]string, error) {
	dotQwen, err := nolink.Dir(filepath.Dir(a.turn.WorkDir), "qwen", ".qwen")
	if err != nil {
		return nil, err
	}
	home := filepath.Dir(dotQwen)
	env := map[string]string{
		"HOME": home,
		// Qwen's launcher otherwise starts the CLI again in a third node
		// process with a larger heap: 1 s more start and 200 MB more for
		// an idle agent (the variable is the one it sets for that child).
		"QWEN_CODE_NO_RELAUNCH": "true",
	}
	_, ownHome := a.settings.Env["HOME"]
	_, ownQwenHome := a.settings.Env["QWEN_HOME"]
	if !ownHome && !ownQwenHome {
		data, _ := json.MarshalIndent(qwenSessionSettings(a.turn), "", "  ")
		if err := nolink.WriteFile(filepath.Join(dotQwen, "settings.json"), data); err != nil {
			return nil, err
		}
	}
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
