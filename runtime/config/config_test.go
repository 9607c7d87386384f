package config

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/runtime/provider"
)

// example is the configuration docs/providers.md shows.
const example = `# ~/.config/pedelec/config.toml
default_provider = "codex"

[providers.codex]
executable = "/opt/codex/bin/codex"
args = ["-c", "model_provider=gateway", "-c", "model_providers.gateway.base_url=\"https://llm.internal.example/v1\""]
default_model = "gpt-5.5"
[providers.codex.env]
GATEWAY_TOKEN = "secret"

[providers.claude]
default_model = "claude-sonnet-4-5"
env = { ANTHROPIC_BASE_URL = "http://127.0.0.1:8082" }

[providers.openai]
base_url = "http://127.0.0.1:11434/v1"
default_model = "qwen3:8b"
args = ["--max-steps=24"]
`

func write(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadExample(t *testing.T) {
	path := write(t, example)
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		DefaultProvider: "codex",
		File:            path,
		Providers: map[string]provider.Settings{
			"codex": {
				Executable:   "/opt/codex/bin/codex",
				Args:         []string{"-c", "model_provider=gateway", "-c", `model_providers.gateway.base_url="https://llm.internal.example/v1"`},
				DefaultModel: "gpt-5.5",
				Env:          map[string]string{"GATEWAY_TOKEN": "secret"},
			},
			"claude": {DefaultModel: "claude-sonnet-4-5", Env: map[string]string{"ANTHROPIC_BASE_URL": "http://127.0.0.1:8082"}},
			"openai": {BaseURL: "http://127.0.0.1:11434/v1", DefaultModel: "qwen3:8b", Args: []string{"--max-steps=24"}},
		},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got  %+v\nwant %+v", c, want)
	}
}

func TestLoadMissingFileIsTheEmptyConfig(t *testing.T) {
	c, err := Load(filepath.Join(t.TempDir(), "nope.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, Config{}) {
		t.Errorf("got %+v", c)
	}
}

func TestLoadErrorsNameTheLineAndKey(t *testing.T) {
	cases := []struct {
		name, content string
		want          []string
		not           []string
	}{
		{"unknown key", "default_provider = \"codex\"\n\n[providers.codex]\nexecutabl = \"/x\"\n", []string{":4:", "providers.codex.executabl", "unknown key"}, nil},
		{"unknown top-level key", "default_provider = \"codex\"\ndefault_model = \"x\"\n", []string{":2:", "default_model", "unknown key"}, nil},
		{"mistyped provider key", "[providers.codex]\ndefault_modle = \"x\"\n", []string{":2:", "providers.codex.default_modle", "unknown key; did you mean default_model?"}, nil},
		{"mistyped top-level key", "default_providr = \"codex\"\n", []string{":1:", "default_providr", "did you mean default_provider?"}, nil},
		{"wrong type", "[providers.codex]\nargs = \"--fast\"\n", []string{":2:", "providers.codex.args", "string"}, []string{"provider.Settings", "struct field"}},
		{"wrong element type", "[providers.openai.env]\nA = 1\n", []string{":2:", "providers.openai.env.A"}, nil},
		{"syntax", "default_provider = \n", []string{":1:"}, nil},
		{"unknown provider", "[providers.codex]\n\n[providers.gpt]\ndefault_model = \"x\"\n", []string{":3:", "providers.gpt", `"gpt" is not a provider`, "codex, claude, gemini, opencode, copilot, openai, ollama, qwen, claude-acp, codex-acp, script"}, nil},
		{"unknown default", "\ndefault_provider = \"cursor\"\n", []string{":2:", "default_provider", `"cursor"`}, nil},
		{"bad base url", "[providers.openai]\ndefault_model = \"m\"\nbase_url = \"127.0.0.1:11434\"\n", []string{":3:", "providers.openai.base_url", "not an http(s) URL"}, nil},
		{"bad env name", "[providers.codex]\nenv = { \"A=B\" = \"x\" }\n", []string{":2:", "providers.codex.env"}, nil},
		// Found by FuzzParse: a quoted table name, and a key lineOf cannot
		// place, gave line 0.
		{"quoted unknown provider", "[providers.codex]\n[ providers . \"gpt\" ]\n", []string{":2:", "providers.gpt", `"gpt" is not a provider`}, []string{":0:"}},
		// A name with a newline is quoted, so each problem stays one line.
		{"provider name with a newline", "[providers.\"a\\nb\"]\n", []string{":1:", `providers."a\nb": "a\nb" is not a provider`}, []string{"\n"}},
		{"unknown key with a newline", "[providers.codex]\n\"a\\nb\" = 1\n", []string{":2:", `providers.codex."a\nb": unknown key`}, []string{"\n"}},
		{"inline unknown provider", "providers = { gpt = {} }\n", []string{": providers.gpt: ", `"gpt" is not a provider`}, []string{":0:"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, tc.content)
			_, err := Load(path)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, path+":") {
				t.Errorf("%q does not start with the file name", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q does not mention %q", msg, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(msg, n) {
					t.Errorf("%q mentions %q", msg, n)
				}
			}
		})
	}
}

func TestLoadEveryUnknownKey(t *testing.T) {
	_, err := Load(write(t, "[providers.codex]\nfoo = 1\nbar = 2\n"))
	if err == nil || !strings.Contains(err.Error(), "providers.codex.foo") || !strings.Contains(err.Error(), "providers.codex.bar") {
		t.Errorf("err = %v", err)
	}
}

func TestLoadUnreadable(t *testing.T) {
	if _, err := Load(t.TempDir()); err == nil {
		t.Error("a directory loaded as a config file")
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/xdg")
	if got := DefaultPath(); got != "/xdg/pedelec/config.toml" {
		t.Errorf("with XDG_CONFIG_HOME: %s", got)
	}
	t.Setenv("XDG_CONFIG_HOME", "relative/ignored")
	t.Setenv("HOME", "/home/u")
	if got := DefaultPath(); got != "/home/u/.config/pedelec/config.toml" {
		t.Errorf("without XDG_CONFIG_HOME: %s", got)
	}
}

func TestRegistry(t *testing.T) {
	c, err := Parse("test.toml", []byte("default_provider = \"openai\"\n[providers.openai]\nbase_url = \"http://127.0.0.1:9/v1\"\ndefault_model = \"m\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := c.Registry()
	if got := strings.Join(r.Names(), ","); got != "antigravity,claude,claude-acp,codex,codex-acp,copilot,cursor,gemini,mcp,ollama,openai,opencode,qwen,script" {
		t.Errorf("names = %s", got)
	}
	if got := r.Default(context.Background()); got != "openai" {
		t.Errorf("default = %s", got)
	}
	p, _ := r.Get("openai")
	if info := p.Check(context.Background()); info.Path != "http://127.0.0.1:9/v1" || info.DefaultModel != "m" {
		t.Errorf("openai settings not passed on: %+v", info)
	}
}

// Issue 20: the script provider (and any other) can be turned off; it is
// then listed as unavailable with where it was turned off.
func TestProviderTurnedOff(t *testing.T) {
	path := write(t, "[providers.script]\nenabled = false\n[providers.openai]\nenabled = true\nbase_url = \"http://127.0.0.1:9/v1\"\n")
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	r := c.Registry()
	p, ok := r.Get("script")
	if !ok {
		t.Fatal("script is no longer listed")
	}
	info := p.Check(context.Background())
	if info.Available || !strings.Contains(info.Reason, "[providers.script] enabled = false in "+path) {
		t.Errorf("script turned off: %+v", info)
	}
	if err := p.RunTurn(context.Background(), &provider.Turn{}, func(provider.Event) {}); err == nil || !strings.Contains(err.Error(), "turned off") {
		t.Errorf("a turn of a provider turned off: %v", err)
	}
	if p, _ := r.Get("openai"); strings.Contains(p.Check(context.Background()).Reason, "turned off") {
		t.Errorf("enabled = true turned openai off: %+v", p.Check(context.Background()))
	}

	_, err = Parse("c.toml", []byte("default_provider = \"script\"\n[providers.script]\nenabled = false\n"))
	if err == nil || !strings.Contains(err.Error(), "c.toml:1: default_provider: \"script\" is turned off") {
		t.Errorf("a default provider turned off: %v", err)
	}
}

// The settings file learns the providers from their registration: no
// provider is named in config.go, so adding one is its own file in
// runtime/provider (which its TestProviderNamedOnlyInItsFile checks there).
func TestNoProviderNamed(t *testing.T) {
	names := map[string]bool{}
	for _, s := range provider.Specs() {
		names[s.Name] = true
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "config.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if b, ok := n.(*ast.BasicLit); ok && b.Kind == token.STRING {
			if v, _ := strconv.Unquote(b.Value); names[v] {
				t.Errorf("%s names provider %q", fset.Position(b.Pos()), v)
			}
		}
		return true
	})
}
