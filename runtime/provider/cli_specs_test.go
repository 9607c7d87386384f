package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// specTurn is a turn in a session directory laid out as Core lays it out:
// sessions/<id>/work.
func specTurn(t *testing.T, model, resume string) *Turn {
	work := filepath.Join(t.TempDir(), "sessions", "s_1", "work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	return &Turn{SessionID: "s_1", WorkDir: work, Model: model, ResumeID: resume}
}

func TestGeminiArgsAndPolicy(t *testing.T) {
	s := Settings{Args: []string{"--debug"}, BaseURL: "http://127.0.0.1:9/", APIKey: "k"}
	a := newCLIAgent(geminiSpec, s)
	turn := specTurn(t, "gemini-2.5-pro", "")
	session := filepath.Dir(turn.WorkDir)
	policy := filepath.Join(session, "gemini", "policy.toml")
	want := "--output-format stream-json --skip-trust --approval-mode default --policy " + policy + " -m gemini-2.5-pro --debug"
	if got := strings.Join(a.args(turn), " "); got != want {
		t.Errorf("first turn:\n got %s\nwant %s", got, want)
	}
	turn.ResumeID = "uuid-1"
	if got := strings.Join(a.args(turn), " "); !strings.HasSuffix(got, "-m gemini-2.5-pro --resume uuid-1 --debug") {
		t.Errorf("resumed turn: %s", got)
	}
	env, err := geminiPrepare(a.cliArgs(turn))
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(session, "gemini", "home")
	if env["GEMINI_CLI_HOME"] != home || env["GEMINI_CLI_NO_RELAUNCH"] != "1" || env["GOOGLE_GEMINI_BASE_URL"] != "http://127.0.0.1:9" || env["GEMINI_API_KEY"] != "k" {
		t.Errorf("env = %v", env)
	}
	data, _ := os.ReadFile(policy)
	if !strings.Contains(string(data), `commandPrefix = ["pedelec tool-call", "pedelec tool-spec", "pedelec-cli"]`) || !strings.Contains(string(data), `decision = "allow"`) {
		t.Errorf("policy:\n%s", data)
	}
	var settings map[string]any
	data, _ = os.ReadFile(filepath.Join(home, ".gemini", "settings.json"))
	if err := json.Unmarshal(data, &settings); err != nil || !strings.Contains(string(data), `"gemini-api-key"`) || !strings.Contains(string(data), `"usageStatisticsEnabled": false`) {
		t.Errorf("settings.json (%v):\n%s", err, data)
	}
}

func TestOpencodeArgsAndConfig(t *testing.T) {
	s := Settings{BaseURL: "http://127.0.0.1:9/v1", APIKey: "k"}
	a := newCLIAgent(opencodeSpec, s)
	turn := specTurn(t, "qwen3:8b", "ses_1")
	if got := strings.Join(a.args(turn), " "); got != "run --format json --model pedelec/qwen3:8b --session ses_1" {
		t.Errorf("args = %s", got)
	}
	env, err := opencodePrepare(a.cliArgs(turn))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(filepath.Dir(turn.WorkDir), "opencode")
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "OPENCODE_CONFIG"} {
		if !strings.HasPrefix(env[k], dir) {
			t.Errorf("%s = %q, want it under %s", k, env[k], dir)
		}
	}
	if env["OPENCODE_DISABLE_MODELS_FETCH"] != "1" || !strings.HasPrefix(env["npm_config_registry"], "http://127.0.0.1:") {
		t.Errorf("env = %v", env)
	}
	data, _ := os.ReadFile(env["OPENCODE_CONFIG"])
	cfg := string(data)
	// The deny comes first: opencode's last matching rule wins.
	if i, j := strings.Index(cfg, `"*": "deny"`), strings.Index(cfg, `"pedelec tool-call *": "allow"`); i < 0 || j < i {
		t.Errorf("bash rules out of order:\n%s", cfg)
	}
	if !strings.Contains(cfg, `"baseURL": "http://127.0.0.1:9/v1"`) || !strings.Contains(cfg, `"model": "pedelec/qwen3:8b"`) || !strings.Contains(cfg, `"edit": "deny"`) {
		t.Errorf("config:\n%s", cfg)
	}
	// Without base_url the model is opencode's own provider/model.
	b := newCLIAgent(opencodeSpec, Settings{})
	if got := strings.Join(b.args(specTurn(t, "anthropic/claude-sonnet-4-5", "")), " "); got != "run --format json --model anthropic/claude-sonnet-4-5" {
		t.Errorf("args = %s", got)
	}
}

func TestCopilotArgsAndEnv(t *testing.T) {
	a := newCLIAgent(copilotSpec, Settings{BaseURL: "http://127.0.0.1:9/v1", APIKey: "k"})
	turn := specTurn(t, "m1", "")
	want := "--output-format json --disable-builtin-mcps --allow-tool shell(pedelec:*) --allow-tool shell(pedelec-cli:*)"
	if got := strings.Join(a.args(turn), " "); got != want {
		t.Errorf("args:\n got %s\nwant %s", got, want)
	}
	turn.ResumeID = "u1"
	if got := strings.Join(a.args(turn), " "); !strings.HasSuffix(got, "--resume u1") {
		t.Errorf("resumed args = %s", got)
	}
	env, err := copilotPrepare(a.cliArgs(turn))
	if err != nil {
		t.Fatal(err)
	}
	if env["COPILOT_HOME"] != filepath.Join(filepath.Dir(turn.WorkDir), "copilot") || env["COPILOT_OFFLINE"] != "true" ||
		env["COPILOT_PROVIDER_BASE_URL"] != "http://127.0.0.1:9/v1" || env["COPILOT_MODEL"] != "m1" || env["COPILOT_PROVIDER_API_KEY"] != "k" {
		t.Errorf("env = %v", env)
	}
	// Without an endpoint: the user's Copilot login, the model as a flag.
	b := newCLIAgent(copilotSpec, Settings{})
	if got := strings.Join(b.args(specTurn(t, "gpt-5", "")), " "); !strings.HasSuffix(got, "--model gpt-5") {
		t.Errorf("args = %s", got)
	}
}

func TestCopilotNativeResolvesTheNpmLoader(t *testing.T) {
	root := t.TempDir()
	gh := filepath.Join(root, "node_modules", "@github")
	loader := filepath.Join(gh, "copilot", "npm-loader.js")
	native := filepath.Join(gh, "copilot-linux-x64", "copilot")
	for _, f := range []string{loader, native} {
		os.MkdirAll(filepath.Dir(f), 0o755)
		os.WriteFile(f, []byte("#!/usr/bin/env node\n"), 0o755)
	}
	link := filepath.Join(root, "node_modules", ".bin", "copilot")
	os.MkdirAll(filepath.Dir(link), 0o755)
	os.Symlink("../@github/copilot/npm-loader.js", link)
	got, err := copilotNative(link)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" && got != native {
		t.Errorf("copilotNative = %s, want %s", got, native)
	}
	other := filepath.Join(root, "my-copilot")
	os.WriteFile(other, []byte("#!/bin/sh\n"), 0o755)
	if got, _ := copilotNative(other); got != other {
		t.Errorf("copilotNative(wrapper of the user's) = %s, want it as it is", got)
	}
}

// Qwen's session home holds the settings that take its per-prompt work off
// a turn (tools.eager, usage statistics, sleep inhibitor), and its launcher
// is told not to start the CLI a second time; a HOME or QWEN_HOME of the
// user's own is left alone.
func TestQwenPrepareWritesTheSessionSettings(t *testing.T) {
	turn := specTurn(t, "qwen3-coder", "")
	env, err := qwenPrepare(cliArgs{turn: turn, settings: Settings{BaseURL: "http://127.0.0.1:9/v1/", APIKey: "k"}})
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(filepath.Dir(turn.WorkDir), "qwen")
	if env["HOME"] != home || env["QWEN_CODE_NO_RELAUNCH"] != "true" || env["OPENAI_BASE_URL"] != "http://127.0.0.1:9/v1" || env["OPENAI_API_KEY"] != "k" || env["OPENAI_MODEL"] != "qwen3-coder" {
		t.Errorf("env = %v", env)
	}
	data, err := os.ReadFile(filepath.Join(home, ".qwen", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tools struct {
			Eager []string `json:"eager"`
		} `json:"tools"`
		Privacy struct {
			UsageStatisticsEnabled *bool `json:"usageStatisticsEnabled"`
		} `json:"privacy"`
		General struct {
			PreventSystemSleep *bool `json:"preventSystemSleep"`
		} `json:"general"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Tools.Eager == nil || len(got.Tools.Eager) != 0 || got.Privacy.UsageStatisticsEnabled == nil || *got.Privacy.UsageStatisticsEnabled ||
		got.General.PreventSystemSleep == nil || *got.General.PreventSystemSleep {
		t.Errorf("settings.json:\n%s", data)
	}

	for _, own := range []string{"HOME", "QWEN_HOME"} {
		turn := specTurn(t, "", "")
		if _, err := qwenPrepare(cliArgs{turn: turn, settings: Settings{Env: map[string]string{own: t.TempDir()}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(turn.WorkDir), "qwen", ".qwen", "settings.json")); !os.IsNotExist(err) {
			t.Errorf("with the user's own %s, a settings file was written (%v)", own, err)
		}
	}
}
