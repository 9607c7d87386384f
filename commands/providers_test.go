package commands

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// providersCLI runs `pedelec <args>` in-process.
func providersCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Main(append([]string{"pedelec"}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func writeConfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func providerByName(t *testing.T, list wire.ListProvidersResult, name string) wire.ProviderInfo {
	t.Helper()
	for _, p := range list.Providers {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no provider %q in %+v", name, list)
	return wire.ProviderInfo{}
}

func TestProvidersJSON(t *testing.T) {
	up := modelserver.NewChat(t)
	path := writeConfig(t, "default_provider = \"openai\"\n[providers.openai]\nbase_url = \""+up.URL+"\"\ndefault_model = \"qwen3:8b\"\n")
	code, stdout, stderr := providersCLI(t, "providers", "--format", "json", "--config", path)
	if code != wire.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var list wire.ListProvidersResult
	if err := json.Unmarshal([]byte(stdout), &list); err != nil {
		t.Fatalf("stdout is not the JSON list: %v\n%s", err, stdout)
	}
	if list.DefaultProvider != "openai" {
		t.Errorf("defaultProvider = %q", list.DefaultProvider)
	}
	var names []string
	for _, p := range list.Providers {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "codex,claude,gemini,opencode,copilot,openai,ollama,qwen,claude-acp,codex-acp,script,mcp,cursor,antigravity" {
		t.Errorf("providers = %s", got)
	}
	openai := providerByName(t, list, "openai")
	if !openai.Available || openai.Path != up.URL || openai.DefaultModel != "qwen3:8b" {
		t.Errorf("openai = %+v", openai)
	}
	if script := providerByName(t, list, "script"); !script.Available {
		t.Errorf("script = %+v", script)
	}
}

func TestProvidersReportsTheReason(t *testing.T) {
	down := modelserver.NewChat(t)
	down.Close()
	t.Setenv("PEDELEC_CONFIG", writeConfig(t, "[providers.openai]\nbase_url = \""+down.URL+"\"\n"))
	code, stdout, stderr := providersCLI(t, "providers")
	if code != wire.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "NAME") || !strings.Contains(stdout, "REASON") {
		t.Errorf("no table header:\n%s", stdout)
	}
	var row string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "openai ") {
			row = l
		}
	}
	if !strings.Contains(row, " no ") || !strings.Contains(row, "no model server at "+down.URL) {
		t.Errorf("openai row = %q\n%s", row, stdout)
	}
	if !strings.Contains(stdout, "Default provider: ") {
		t.Errorf("no default provider line:\n%s", stdout)
	}
}

func TestProvidersMissingConfigMeansDefaults(t *testing.T) {
	code, _, stderr := providersCLI(t, "providers", "--format", "json", "--config", filepath.Join(t.TempDir(), "none.toml"))
	if code != wire.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

func TestProvidersBadConfigIsAUsageError(t *testing.T) {
	path := writeConfig(t, "[providers.openai]\nbase_ur = \"http://x\"\n")
	code, stdout, stderr := providersCLI(t, "providers", "--config", path)
	if code != wire.ExitUsage {
		t.Errorf("exit %d, want %d", code, wire.ExitUsage)
	}
	if stdout != "" || !strings.Contains(stderr, path+":2: providers.openai.base_ur: unknown key") {
		t.Errorf("stdout %q stderr %q", stdout, stderr)
	}
}

func TestProvidersBadFormat(t *testing.T) {
	code, _, stderr := providersCLI(t, "providers", "--format", "yaml", "--config", filepath.Join(t.TempDir(), "none.toml"))
	if code != wire.ExitUsage || !strings.Contains(stderr, "--format") {
		t.Errorf("exit %d stderr %q", code, stderr)
	}
}
