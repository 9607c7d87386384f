package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// acpProvider is the scripted ACP agent's provider name in the settings
// the soak writes: an ACP agent of the user's own, as docs/providers.md
// describes ([providers.NAME] with acp = true).
const acpProvider = "soak-acp"

// builtDirs are the directories of what the soak built, removed when it ends.
var builtDirs []string

// setupProvider returns the sessions' provider and Core's settings file.
func setupProvider(state string) (prov, config string, err error) {
	switch *provName {
	case "script":
		// No settings: the script provider needs none (a file that does
		// not exist is no settings).
		return "script", filepath.Join(state, "none.toml"), nil
	case "acp":
		agent := *acpAgent
		if agent == "" {
			dir, err := os.MkdirTemp("", "pedelec-soak-acp-")
			if err != nil {
				return "", "", err
			}
			builtDirs = append(builtDirs, dir)
			agent = filepath.Join(dir, "soak-acp-agent")
			build := exec.Command("go", "build", "-o", agent, "./e2e/soak/acpagent")
			build.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := build.CombinedOutput(); err != nil {
				return "", "", fmt.Errorf("go build the ACP agent: %v\n%s", err, out)
			}
		}
		config = filepath.Join(state, "soak.toml")
		settings := fmt.Sprintf("[providers.%s]\nacp = true\nexecutable = %s\n", acpProvider, strconv.Quote(agent))
		return acpProvider, config, os.WriteFile(config, []byte(settings), 0o600)
	}
	if *settingsFile == "" {
		return "", "", fmt.Errorf("-provider %s needs -config, the settings file that defines it", *provName)
	}
	return *provName, *settingsFile, nil
}

// agentMatch is a word of the agent's command line: what a provider kill
// looks for.
func agentMatch() string {
	switch {
	case *agentName != "":
		return *agentName
	case *provName == "script":
		return "script-agent"
	case *provName == "acp":
		return "soak-acp-agent"
	}
	return *provName
}
