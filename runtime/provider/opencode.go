package provider

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/nolink"
)

// NewOpencode is the opencode provider (opencode-ai): `opencode run
// --format json` with the message on stdin, one process per turn, resumed
// with --session <id>. By default it runs over ACP instead
// (acp_agents.go); acp = false in its settings picks this native adapter.
func NewOpencode(s Settings) Provider {
	if acpChosen(s, true) {
		return newACPAgent(opencodeACP, s)
	}
	return newCLIAgent(opencodeSpec, s)
}

func init() {
	Register(Spec{Name: opencodeSpec.name, Title: "opencode", Rank: 40, New: NewOpencode})
}

var opencodeSpec = cliSpec{
	name:        "opencode",
	shellLimit:  opencodeShellLimit,
	description: "opencode (opencode run)",
	command:     "opencode",
	npmPackage:  "opencode-ai",
	envVar:      "PEDELEC_OPENCODE_BIN",
	args:        opencodeArgs,
	// opencode exits at once on SIGTERM (killed by it, no final event). Its
	// bash tool's commands lead their own process groups: the session-tag
	// sweep stops them.
	stopSignal: syscall.SIGTERM,
	grace:      3 * time.Second,
	newStream:  func() cliStream { return &opencodeStream{} },
	prepare:    opencodePrepare,
}

// OpencodeBashRules are opencode's permission rules for its bash tool. The
// last matching rule wins, so "*": "deny" comes first (put last, it would
// match everything and opencode drops the bash tool altogether). opencode
// parses a command and checks each part (&& and $(…) refused), but it does
// not look at redirects: `pedelec tool-spec > file` runs and writes the
// file (docs/providers.md).
var OpencodeBashRules = [][2]string{
	{"*", "deny"},
	{"pedelec tool-call *", "allow"},
	{"pedelec tool-spec", "allow"},
	{"pedelec tool-spec *", "allow"},
	{"pedelec-cli", "allow"},
	{"pedelec-cli *", "allow"},
}

// opencodeProvider is the name of the provider entry Pedelec writes when
// the settings give a base_url: an OpenAI-compatible endpoint.
const opencodeProvider = "pedelec"

// opencodeDir is the session's private directory for opencode: its config
// and its XDG directories (the session database for --session lives there).
func opencodeDir(turn *Turn) string { return filepath.Join(filepath.Dir(turn.WorkDir), "opencode") }

func opencodeArgs(a cliArgs) []string {
	args := []string{"run", "--format", "json"}
	if m := opencodeModel(a); m != "" {
		args = append(args, "--model", m)
	}
	if a.turn.ResumeID != "" {
		args = append(args, "--session", a.turn.ResumeID)
	}
	return append(args, a.extra...)
}

// opencodeModel is the provider/model opencode runs: the model at the
// configured endpoint, or the name as given ("anthropic/claude-…").
func opencodeModel(a cliArgs) string {
	if a.turn.Model == "" {
		return ""
	}
	if a.settings.BaseURL != "" && !strings.HasPrefix(a.turn.Model, opencodeProvider+"/") {
		return opencodeProvider + "/" + a.turn.Model
	}
	return a.turn.Model
}

// opencodeConfig is the OPENCODE_CONFIG Pedelec writes: the permission
// rules, no sharing or updates, and the endpoint from the settings.
func opencodeConfig(a cliArgs) map[string]any {
	bash := orderedRules(OpencodeBashRules)
	cfg := map[string]any{
		"$schema":    "https://opencode.ai/config.json",
		"autoupdate": false,
		"share":      "disabled",
		"permission": map[string]any{"edit": "deny", "webfetch": "deny", "bash": bash},
		// No model request for a session title before the first real one
		// (opencode's hidden "title" agent; a disabled agent is removed),
		// and no git snapshot of the work directory around every step.
		"agent":    map[string]any{"title": map[string]any{"disable": true}},
		"snapshot": false,
	}
	if a.settings.BaseURL != "" {
		model := strings.TrimPrefix(a.turn.Model, opencodeProvider+"/")
		models := map[string]any{}
		if model != "" {
			models[model] = map[string]any{"name": model, "tool_call": true}
			cfg["model"] = opencodeProvider + "/" + model
			cfg["small_model"] = opencodeProvider + "/" + model
		}
		options := map[string]any{"baseURL": strings.TrimSuffix(a.settings.BaseURL, "/")}
		if a.settings.APIKey != "" {
			options["apiKey"] = a.settings.APIKey
		}
		cfg["provider"] = map[string]any{opencodeProvider: map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Pedelec endpoint",
			"options": options, "models": models,
		}}
	}
	return cfg
}

// orderedRules is a JSON object that keeps its keys in the given order:
// opencode's rules are ordered, and Go maps are not.
type orderedRules [][2]string

func (r orderedRules) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, kv := range r {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv[0])
		v, _ := json.Marshal(kv[1])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// opencodePrepare writes the config and makes the XDG directories, so that
// opencode's database, logs, locks and caches stay in the session.
func opencodePrepare(a cliArgs) (map[string]string, error) {
	dir := opencodeDir(a.turn)
	env := map[string]string{
		"OPENCODE_CONFIG":               filepath.Join(dir, "opencode.json"),
		"OPENCODE_DISABLE_MODELS_FETCH": "1", // no fetch of models.opencode.ai
		"OPENCODE_DISABLE_AUTOUPDATE":   "1",
		// opencode npm-installs a plugin in the background, whatever the
		// settings say: a dead loopback registry keeps it off the network.
		"npm_config_registry": "http://127.0.0.1:9/",
	}
	for _, x := range []string{"config", "data", "state", "cache"} {
		d, err := nolink.Dir(filepath.Dir(a.turn.WorkDir), "opencode", x)
		if err != nil {
			return nil, err
		}
		env["XDG_"+strings.ToUpper(x)+"_HOME"] = d
	}
	data, err := json.MarshalIndent(opencodeConfig(a), "", "  ")
	if err != nil {
		return nil, err
	}
	if err := nolink.WriteFile(env["OPENCODE_CONFIG"], data); err != nil {
		return nil, err
	}
	return env, nil
}
