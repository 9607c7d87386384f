package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kaoruisaac/pedelec/runtime/nolink"
)

// BareCLI is how a benchmark runs an agent CLI by itself, outside Pedelec:
// the environment and files its native adapter prepares for settings s
// (the same endpoint, model and private home) in dir, and the arguments of
// a one-shot turn, prompt on stdin, whose shell commands run without
// asking and without Pedelec's allowlist. It is the "bare CLI" that a
// Pedelec first turn is measured against (issue 25, item 5;
// e2e/provider_bare_bench_test.go), and nothing else uses it.
func BareCLI(name string, s Settings, dir, model string) (args []string, env map[string]string, err error) {
	turn := &Turn{SessionID: "bare", WorkDir: filepath.Join(dir, "work"), Model: model}
	if err := os.MkdirAll(turn.WorkDir, 0o700); err != nil {
		return nil, nil, err
	}
	a := cliArgs{turn: turn, settings: s}
	switch name {
	case geminiSpec.name:
		env, err = geminiPrepare(a)
		args = []string{"--output-format", "stream-json", "--skip-trust", "--yolo"}
		if model != "" {
			args = append(args, "-m", model)
		}
	case opencodeSpec.name:
		if env, err = opencodePrepare(a); err != nil {
			return nil, nil, err
		}
		cfg := opencodeConfig(a)
		cfg["permission"] = map[string]any{"bash": "allow"}
		data, _ := json.MarshalIndent(cfg, "", "  ")
		err = nolink.WriteFile(env["OPENCODE_CONFIG"], data)
		args = []string{"run", "--format", "json"}
		if m := opencodeModel(a); m != "" {
			args = append(args, "--model", m)
		}
	case copilotSpec.name:
		env, err = copilotPrepare(a)
		args = []string{"--output-format", "json", "--disable-builtin-mcps", "--allow-all-tools"}
	default:
		return nil, nil, fmt.Errorf("no bare form of %q", name)
	}
	return args, env, err
}
