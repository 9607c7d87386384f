package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/nolink"
)

// NewCopilot is the GitHub Copilot CLI provider (@github/copilot): `copilot
// --output-format json` with the prompt on stdin, one process per turn,
// resumed with --resume <sessionId>. By default it runs over ACP instead
// (acp_agents.go); acp = false in its settings picks this native adapter.
func NewCopilot(s Settings) Provider {
	if acpChosen(s, true) {
		return newACPAgent(copilotACP, s)
	}
	return newCLIAgent(copilotSpec, s)
}

func init() {
	Register(Spec{Name: copilotSpec.name, Title: "GitHub Copilot CLI", Rank: 50, New: NewCopilot})
}

var copilotSpec = cliSpec{
	name:        "copilot",
	shellLimit:  copilotShellLimit,
	description: "GitHub Copilot CLI (copilot, headless json)",
	command:     "copilot",
	envVar:      "PEDELEC_COPILOT_BIN",
	npmPackage:  "@github/copilot",
	native:      copilotNative,
	allow:       CopilotAllowTools,
	args:        copilotArgs,
	stopSignal:  syscall.SIGTERM,
	grace:       3 * time.Second,
	newStream:   func() cliStream { return &copilotStream{} },
	prepare:     copilotPrepare,
}

// CopilotAllowTools are Copilot's --allow-tool rules: its shell tool may run
// pedelec commands and nothing else. Copilot matches a shell rule on the
// command's first word (`shell(pedelec tool-call:*)` does not allow
// `pedelec tool-call x`), so the rule is the whole of `pedelec`, which
// reaches what `pedelec-cli …` reaches anyway (the same binary). It checks
// every part of a compound command and denies redirects, $(…), && and ;
// headless, without a prompt.
var CopilotAllowTools = []string{"--allow-tool", "shell(pedelec:*)", "--allow-tool", "shell(pedelec-cli:*)"}

// copilotDir is the session's private directory for Copilot (COPILOT_HOME:
// its config and the sessions --resume reads).
func copilotDir(turn *Turn) string { return filepath.Join(filepath.Dir(turn.WorkDir), "copilot") }

func copilotArgs(a cliArgs) []string {
	args := []string{"--output-format", "json", "--disable-builtin-mcps"}
	args = append(args, a.allow...)
	if a.turn.Model != "" && a.settings.BaseURL == "" {
		args = append(args, "--model", a.turn.Model)
	}
	if a.turn.ResumeID != "" {
		args = append(args, "--resume", a.turn.ResumeID)
	}
	return append(args, a.extra...)
}

// copilotPrepare gives Copilot the session's home and, when the settings
// name an endpoint, points it there offline: no GitHub login, no update
// check, no telemetry.
func copilotPrepare(a cliArgs) (map[string]string, error) {
	home := copilotDir(a.turn)
	if _, err := nolink.Dir(filepath.Dir(home), filepath.Base(home)); err != nil {
		return nil, err
	}
	env := map[string]string{
		"COPILOT_HOME":        home,
		"COPILOT_AUTO_UPDATE": "false",
	}
	if a.settings.BaseURL != "" {
		env["COPILOT_OFFLINE"] = "true"
		env["COPILOT_PROVIDER_BASE_URL"] = strings.TrimSuffix(a.settings.BaseURL, "/")
		if a.settings.APIKey != "" {
			env["COPILOT_PROVIDER_API_KEY"] = a.settings.APIKey
		}
		if a.turn.Model != "" {
			env["COPILOT_MODEL"] = a.turn.Model
		}
	}
	return env, nil
}

// copilotNative resolves the npm package's Node loader (npm-loader.js, or
// the node_modules/.bin/copilot link to it) to the native binary it would
// spawn, so that a stop signal reaches Copilot itself. Any other program
// (the native binary, a wrapper script of the user's) runs as it is: the
// process group and the session-tag sweep stop it either way.
func copilotNative(path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	if filepath.Base(real) != "npm-loader.js" {
		return real, nil
	}
	pkg := fmt.Sprintf("copilot-%s-%s", runtime.GOOS, map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH])
	name := "copilot"
	if runtime.GOOS == "windows" {
		name = "copilot.exe"
	}
	root := filepath.Dir(real) // .../@github/copilot
	for _, c := range []string{
		filepath.Join(root, "node_modules", "@github", pkg, name),
		filepath.Join(filepath.Dir(root), pkg, name),
	} {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return c, nil
		}
	}
	return real, nil // the loader finds it, or says what is missing
}
