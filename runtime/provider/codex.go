package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// codexSandboxArgs are the -c overrides every Codex turn gets. The agent's
// shell must reach Core on loopback TCP for `pedelec tool-call`, and the
// narrowest sandbox that allows it is workspace-write (writes only in the
// session's working directory and temp dirs) with network access on; the
// read-only and plain workspace-write sandboxes refuse every socket
// (docs/providers.md). approval_policy=never because nobody is there to
// approve; allow_login_shell=false because a login shell's profile resets
// PATH and loses the `pedelec` Core put first on it.
var codexSandboxArgs = []string{
	"-c", `approval_policy="never"`,
	"-c", `sandbox_mode="workspace-write"`,
	"-c", `sandbox_workspace_write.network_access=true`,
	"-c", `allow_login_shell=false`,
}

// NewCodex is the OpenAI Codex CLI provider: `codex exec --json`, one
// process per turn, resumed by thread id.
func NewCodex(s Settings) Provider { return newCLIAgent(codexSpec, s) }

func init() {
	Register(Spec{Name: codexSpec.name, Title: "Codex", Rank: 10, New: NewCodex})
}

var codexSpec = cliSpec{
	name:        "codex",
	shellLimit:  codexShellLimit,
	description: "OpenAI Codex CLI (codex exec)",
	command:     "codex",
	envVar:      "PEDELEC_CODEX_BIN",
	native:      codexNative,
	allow:       codexSandboxArgs,
	args:        codexArgs,
	stopSignal:  syscall.SIGINT,  // Codex kills its running command on SIGINT, not on SIGTERM
	grace:       3 * time.Second, // for Codex to stop its own children before the group is killed
	newStream:   func() cliStream { return &codexStream{} },
	endpoint:    codexEndpoint,
}

// codexArgs builds `codex exec` for a first or a resumed turn. -C comes
// once, before `resume`, which takes no sandbox flag: the sandbox is -c
// config.
func codexArgs(a cliArgs) []string {
	args := []string{"exec", "--json", "--skip-git-repo-check", "-C", a.turn.WorkDir}
	args = append(args, a.allow...)
	if a.turn.Model != "" {
		quoted, _ := json.Marshal(a.turn.Model) // a JSON string is a TOML basic string
		args = append(args, "-c", "model="+string(quoted))
	}
	args = append(args, a.extra...)
	if a.turn.ResumeID != "" {
		args = append(args, "resume", a.turn.ResumeID)
	}
	return append(args, "-") // the prompt is on stdin
}

// codexNative resolves the npm package's Node wrapper (bin/codex.js, or the
// node_modules/.bin/codex link to it) to the native binary the wrapper
// would run: signals sent to the wrapper do not reach Codex's children, so
// SIGINT on cancel must go to the native program itself.
func codexNative(path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	if !isScript(real) {
		return real, nil
	}
	if !isCodexNpmWrapper(real) {
		// Another script: a version manager's shim (asdf, mise), a
		// company wrapper. It runs as it is; on cancel its process group
		// and the session's tagged processes are stopped like any CLI's.
		return path, nil
	}
	triple, pkg := codexTarget()
	if triple == "" {
		return "", fmt.Errorf("%s is the npm wrapper and this platform (%s/%s) has no known native Codex binary", path, runtime.GOOS, runtime.GOARCH)
	}
	name := "codex"
	if runtime.GOOS == "windows" {
		name = "codex.exe"
	}
	pkgRoot := filepath.Dir(filepath.Dir(real)) // .../@openai/codex
	candidates := []string{
		filepath.Join(pkgRoot, "node_modules", "@openai", pkg, "vendor", triple, "bin", name),
		filepath.Join(filepath.Dir(filepath.Dir(pkgRoot)), "@openai", pkg, "vendor", triple, "bin", name),
		filepath.Join(pkgRoot, "vendor", triple, "bin", name),
	}
	for _, c := range candidates {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return c, nil
		}
	}
	return "", fmt.Errorf("%s is the npm wrapper and its native binary (@openai/%s) is missing; reinstall @openai/codex", path, pkg)
}

// codexTarget is the Rust target triple and npm package of the native binary.
func codexTarget() (triple, pkg string) {
	switch runtime.GOOS + "/" + runtime.GOARCH {
	case "linux/amd64":
		return "x86_64-unknown-linux-musl", "codex-linux-x64"
	case "linux/arm64":
		return "aarch64-unknown-linux-musl", "codex-linux-arm64"
	case "darwin/amd64":
		return "x86_64-apple-darwin", "codex-darwin-x64"
	case "darwin/arm64":
		return "aarch64-apple-darwin", "codex-darwin-arm64"
	case "windows/amd64":
		return "x86_64-pc-windows-msvc", "codex-win32-x64"
	case "windows/arm64":
		return "aarch64-pc-windows-msvc", "codex-win32-arm64"
	}
	return "", ""
}

// isScript reports whether path starts with "#!" (or is a .js file).
func isScript(path string) bool {
	if strings.HasSuffix(path, ".js") {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := f.Read(head)
	return n == 2 && string(head) == "#!"
}

// isCodexNpmWrapper reports whether the script at real is the @openai/codex
// npm package's own Node wrapper (bin/codex.js in @openai/codex, by its
// place under node_modules or its package.json), the one
// script that stands for a native binary Pedelec should run instead.
func isCodexNpmWrapper(real string) bool {
	if filepath.Base(real) != "codex.js" {
		return false
	}
	pkgRoot := filepath.Dir(filepath.Dir(real))
	if filepath.Base(pkgRoot) == "codex" && filepath.Base(filepath.Dir(pkgRoot)) == "@openai" {
		return true // node_modules/@openai/codex/bin/codex.js
	}
	data, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(real)), "package.json"))
	if err != nil {
		return false
	}
	var meta struct {
		Name string `json:"name"`
	}
	return json.Unmarshal(data, &meta) == nil && meta.Name == "@openai/codex"
}

// codexEndpoint is Codex's model server: the base_url of its
// model_provider, from the -c overrides in args, else CODEX_HOME's
// config.toml (default ~/.codex). Codex's built-in providers have none
// here (a remote endpoint, not dialled).
func codexEndpoint(a cliArgs, env map[string]string) string {
	var cfg struct {
		ModelProvider  string `toml:"model_provider"`
		ModelProviders map[string]struct {
			BaseURL string `toml:"base_url"`
		} `toml:"model_providers"`
	}
	home := env["CODEX_HOME"]
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = filepath.Join(h, ".codex")
		}
	}
	if data, err := os.ReadFile(filepath.Join(home, "config.toml")); home != "" && err == nil {
		_ = toml.Unmarshal(data, &cfg)
	}
	provider, baseURL := cfg.ModelProvider, ""
	overrides := map[string]string{}
	for i := 0; i+1 < len(a.extra); i++ {
		if a.extra[i] != "-c" {
			continue
		}
		k, v, ok := strings.Cut(a.extra[i+1], "=")
		if !ok {
			continue
		}
		var one struct {
			V string `toml:"v"`
		}
		if toml.Unmarshal([]byte("v = "+v), &one) == nil {
			overrides[strings.TrimSpace(k)] = one.V
		}
	}
	if p, ok := overrides["model_provider"]; ok {
		provider = p
	}
	if p, ok := cfg.ModelProviders[provider]; ok {
		baseURL = p.BaseURL
	}
	if u, ok := overrides["model_providers."+provider+".base_url"]; ok {
		baseURL = u
	}
	return baseURL
}
