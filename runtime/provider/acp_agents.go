package provider

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/kaoruisaac/pedelec/runtime/nolink"
)

// The ACP forms of the agents that also have a native adapter: gemini,
// opencode and copilot run over ACP by default; `acp = false` in their
// settings picks the native adapter (docs/providers.md and decisions.md
// say why ACP is the default). Each reuses its native adapter's session
// directory and endpoint settings (executable, default_model, base_url,
// api_key mean the same), and sets the agent's own switch that removes
// its built-in tools (FACTS-acp §9.6): the permission policy rejecting
// them is the second line.

// acpChosen reports whether s picks the ACP form: its acp setting, else
// the provider's default.
func acpChosen(s Settings, byDefault bool) bool {
	if s.ACP != nil {
		return *s.ACP
	}
	return byDefault
}

// geminiACP: `gemini --acp`; the session's Gemini home with the built-in
// tools that change or reach anything excluded.
var geminiACP = acpSpec{
	name:        geminiSpec.name,
	description: "Gemini CLI over ACP (gemini --acp)",
	command:     geminiSpec.command, envVar: geminiSpec.envVar, npmPackage: geminiSpec.npmPackage,
	args: func(a cliArgs) []string {
		args := []string{"--acp", "--skip-trust"}
		if a.turn.Model != "" {
			args = append(args, "-m", a.turn.Model)
		}
		return args
	},
	prepare:    geminiACPPrepare,
	beforeLoad: geminiBeforeLoad,
}

// GeminiACPExcludedTools are the built-in tools the ACP form removes
// (settings tools.exclude): the shell, writes, and the network.
var GeminiACPExcludedTools = []string{"run_shell_command", "write_file", "replace", "web_fetch", "google_web_search", "save_memory"}

func geminiACPPrepare(a cliArgs) (map[string]string, error) {
	env, err := geminiPrepare(a)
	if err != nil {
		return nil, err
	}
	if _, own := a.settings.Env["GEMINI_CLI_HOME"]; own {
		return env, nil
	}
	settings := map[string]any{}
	for k, v := range geminiSettings {
		settings[k] = v
	}
	settings["tools"] = map[string]any{"exclude": GeminiACPExcludedTools}
	data, _ := json.MarshalIndent(settings, "", "  ")
	return env, nolink.WriteFile(filepath.Join(env["GEMINI_CLI_HOME"], ".gemini", "settings.json"), data)
}

// opencodeACP: `opencode acp`; its permission rules deny every tool but
// the MCP server's (opencode asks nothing by default, FACTS-acp §3).
var opencodeACP = acpSpec{
	name:        opencodeSpec.name,
	description: "opencode over ACP (opencode acp)",
	command:     opencodeSpec.command, envVar: opencodeSpec.envVar, npmPackage: opencodeSpec.npmPackage,
	args:    func(cliArgs) []string { return []string{"acp"} },
	prepare: opencodeACPPrepare,
	warmUp:  opencodeWarmUp,
}

func opencodeACPPrepare(a cliArgs) (map[string]string, error) {
	env, err := opencodePrepare(a)
	if err != nil {
		return nil, err
	}
	// `opencode acp` serves its whole API (prompts, shell, files) on
	// 127.0.0.1:4096 for its own ACP side, without a password unless this
	// is set: any local user could drive the session's agent. A secret per
	// start closes it; the agent's ACP side sends it itself.
	secret := make([]byte, 16)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	env["OPENCODE_SERVER_PASSWORD"] = hex.EncodeToString(secret)
	cfg := opencodeConfig(a)
	server := mcpServerName(a.turn)
	cfg["permission"] = orderedRules{{"*", "deny"}, {server + "_*", "allow"}}
	if a.settings.BaseURL == "" && a.turn.Model != "" {
		cfg["model"] = a.turn.Model
	}
	// The warm-up model only beside a model named for the session: with
	// none, opencode could pick it as its default.
	if warm := opencodeWarmupProvider(); warm != nil && cfg["model"] != nil {
		providers, _ := cfg["provider"].(map[string]any)
		if providers == nil {
			providers = map[string]any{}
			cfg["provider"] = providers
		}
		providers[warmupProvider] = warm
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return nil, err
	}
	return env, nolink.WriteFile(env["OPENCODE_CONFIG"], data)
}

// copilotACP: `copilot --acp` offered only the page's tools
// (--available-tools <server>-<tool>...). Copilot drops stdio MCP servers
// silently: it gets the HTTP form, as every agent does.
var copilotACP = acpSpec{
	name:        copilotSpec.name,
	description: "GitHub Copilot CLI over ACP (copilot --acp)",
	command:     copilotSpec.command, envVar: copilotSpec.envVar, npmPackage: copilotSpec.npmPackage, native: copilotSpec.native,
	args: func(a cliArgs) []string {
		args := []string{"--acp", "--disable-builtin-mcps"}
		server := mcpServerName(a.turn)
		tools := make([]string, 0, len(a.turn.Tools))
		for _, t := range a.turn.Tools {
			tools = append(tools, server+"-"+t.Name)
		}
		if len(tools) == 0 {
			tools = append(tools, server+"-none") // an empty list would offer everything
		}
		args = append(args, "--available-tools", strings.Join(tools, ","))
		if a.turn.Model != "" && a.settings.BaseURL == "" {
			args = append(args, "--model", a.turn.Model)
		}
		return args
	},
	prepare: copilotPrepare,
}

// mcpServerName is the MCP server name the agent prefixes tool names with.
func mcpServerName(turn *Turn) string {
	if turn.MCP != nil && turn.MCP.Name != "" {
		return turn.MCP.Name
	}
	return "pedelec"
}

// NewCustomACP is a provider of the user's own: [providers.NAME] with
// acp = true and the executable (args, env) that starts an ACP agent.
// Nothing about it is known beyond ACP, so only the permission policy
// holds it to the page's tools.
func NewCustomACP(name string, s Settings) Provider {
	return newACPAgent(acpSpec{
		name:        name,
		description: "ACP agent " + name + " (" + s.Executable + ")",
		command:     s.Executable,
		args:        func(cliArgs) []string { return nil },
	}, s)
}
