package e2e

// An app written for the original Pedelec (v0.1.23), from its docs only:
// the Quick Start's steps and complete example and the API reference's
// examples, each code block as the docs show it (e2e/testdata/compat), in
// real Chromium against `pedelec serve` with the script provider. Even the
// import is the original's: an import map points "@kaoruisaac/pedelec" at
// the SDK Core serves, as a bundler alias would.

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// transpileTS strips the TypeScript types of the docs' code with the SDK's
// own esbuild (sdk/node_modules, installed by the test command), leaving
// the code itself as it is.
func transpileTS(t *testing.T, files ...string) map[string]string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.Need(t, "node", "the docs' TypeScript is compiled with the SDK's esbuild")
	}
	esbuild := filepath.Join(testenv.RepoRoot(), "sdk", "node_modules", "esbuild")
	if _, err := os.Stat(esbuild); err != nil {
		testenv.Need(t, "sdk/node_modules", "run `npm ci --prefix sdk` (the test command does)")
	}
	out := map[string]string{}
	for _, f := range files {
		src := filepath.Join(testenv.RepoRoot(), "e2e", "testdata", "compat", f)
		cmd := exec.Command(node, "-e", `
const { transformSync } = require(process.argv[1]);
const src = require("fs").readFileSync(process.argv[2], "utf8");
process.stdout.write(transformSync(src, { loader: "ts", format: "esm", target: "es2022" }).code);`, esbuild, src)
		js, err := cmd.Output()
		if err != nil {
			t.Fatalf("transpile %s: %v", f, err)
		}
		out[strings.TrimSuffix(f, ".ts")+".js"] = string(js)
	}
	return out
}

// compatEnv is Core (script provider first among the available ones, as
// on a machine without the agent CLIs), the app's origin, and a browser.
type compatEnv struct {
	core *testenv.Server
	app  *httptest.Server
	b    *browser
}

func newCompatEnv(t *testing.T) *compatEnv {
	t.Helper()
	scripts := transpileTS(t, "quick-start-steps.ts", "quick-start-complete.ts", "reference.ts")
	page, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "e2e", "testdata", "compat", "compat.html"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	coreURL := ""
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		if js, ok := scripts[name]; ok {
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, js)
			return
		}
		if base, ok := strings.CutSuffix(name, ".html"); ok && scripts[base+".js"] != "" {
			mu.Lock()
			html := strings.NewReplacer("{{CORE}}", coreURL, "{{SCRIPT}}", "/"+base+".js").Replace(string(page))
			mu.Unlock()
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, html)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(app.Close)
	// The agent CLIs are not there (whatever this machine has on PATH), so
	// the docs' "first available provider" is the script provider.
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte(`default_provider = "script"
[providers.codex]
executable = "/nonexistent/codex"
[providers.claude]
executable = "/nonexistent/claude"
[providers.openai]
base_url = "http://127.0.0.1:9/v1"
[providers.script]
default_model = "deterministic"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	core := testenv.Serve(t, []string{"--allow-origin", app.URL, "--config", cfg})
	mu.Lock()
	coreURL = core.URL
	mu.Unlock()
	return &compatEnv{core: core, app: app, b: newBrowser(t)}
}

// run opens one of the pages and waits for its done flag (or its error).
func (e *compatEnv) run(t *testing.T, page, doneVar string) {
	t.Helper()
	e.b.open(t, e.app.URL+"/"+page, "ready")
	e.b.waitJS(t, 60*time.Second, "window."+doneVar+" || window.pageError", page+" to finish")
	var pageErr string
	e.b.js(t, &pageErr, `return window.pageError ?? ""`)
	if pageErr != "" {
		t.Fatalf("%s threw: %s", page, pageErr)
	}
}

func TestBrowserOriginalDocsApp(t *testing.T) {
	e := newCompatEnv(t)

	t.Run("the Quick Start's six steps", func(t *testing.T) {
		e.run(t, "quick-start-steps.html", "quickStartDone")
		var got struct {
			Messages []string `json:"messages"`
			Statuses []string `json:"statuses"`
			Errors   []string `json:"errors"`
			Composer []bool   `json:"composer"`
		}
		e.b.js(t, &got, `return window.rendered`)
		last := ""
		if n := len(got.Messages); n > 0 {
			last = got.Messages[n-1]
		}
		// The script agent echoes the message: deltas are strings that add up to the reply.
		if !strings.Contains(last, "Explain what this application can do.") || strings.Contains(last, "[object Object]") {
			t.Errorf("the accumulated assistant text is %q", last)
		}
		if s := strings.Join(got.Statuses, ","); !strings.HasPrefix(s, "running,") || !strings.Contains(s, ",idle") || !strings.HasSuffix(s, "ended") {
			t.Errorf("rendered statuses %s: want running ... idle ... ended", s)
		}
		if len(got.Errors) != 0 {
			t.Errorf("errors rendered: %v", got.Errors)
		}
		// Disabled while the turn ran, enabled when it was over, disabled again once ended.
		if c := fmt.Sprint(got.Composer); !strings.HasPrefix(c, "[true") || !strings.Contains(c, "true false") || !strings.HasSuffix(c, "true]") {
			t.Errorf("setComposerDisabled calls %v", got.Composer)
		}
	})

	t.Run("the Quick Start's complete example", func(t *testing.T) {
		e.b.open(t, e.app.URL+"/quick-start-complete.html", "ready")
		e.b.waitJS(t, 20*time.Second, `typeof window.connectAndRun === "function" || window.pageError`, "the module")
		var got struct{ Answer, Status, AfterStatus, Err string }
		e.b.js(t, &got, `
await window.connectAndRun("say Hello from an app written for the original.");
const answer = document.querySelector("#answer").textContent;
const status = document.querySelector("#status").textContent;
await window.disconnect();
return { Answer: answer, Status: status, AfterStatus: document.querySelector("#status").textContent, Err: document.querySelector("#error").textContent };`)
		if strings.TrimSpace(got.Answer) != "Hello from an app written for the original." || got.Status != "idle" || got.AfterStatus != "ended" || got.Err != "" {
			t.Errorf("%+v", got)
		}
	})

	t.Run("the API reference's examples", func(t *testing.T) {
		e.run(t, "reference.html", "reference")
		var got struct {
			Results map[string]struct {
				OK    bool           `json:"ok"`
				Code  string         `json:"code"`
				Value map[string]any `json:"value"`
			} `json:"results"`
			Lines []struct {
				TurnID string `json:"turnId"`
				Delta  string `json:"delta"`
			} `json:"lines"`
			Statuses         []string `json:"statuses"`
			Counter          int      `json:"counter"`
			ComposerDisabled bool     `json:"composerDisabled"`
			FinalStatus      string   `json:"finalStatus"`
			SessionCreatedAt float64  `json:"sessionCreatedAt"`
		}
		e.b.js(t, &got, `return window.reference`)
		r := got.Results
		for _, name := range []string{"createSession codex", "request create_session codex"} {
			if r[name].OK || r[name].Code != "PROVIDER_UNAVAILABLE" {
				t.Errorf("%s without Codex: %+v, want PROVIDER_UNAVAILABLE", name, r[name])
			}
		}
		providers, _ := r["listProviders"].Value["providers"].([]any)
		codes := []string{}
		for _, p := range providers {
			m := p.(map[string]any)
			codes = append(codes, fmt.Sprint(m["code"]))
			if _, ok := m["name"].(string); !ok || (m["available"] == false && m["error"] == nil) {
				t.Errorf("provider %v: want {name, code, available, error} with the reason when unavailable", m)
			}
		}
		for _, want := range []string{"codex", "claude", "ollama", "opencode", "cursor", "antigravity", "script"} {
			if !strings.Contains(","+strings.Join(codes, ",")+",", ","+want+",") {
				t.Errorf("listProviders %v lacks %s", codes, want)
			}
		}
		if ready := fmt.Sprint(r["listProviders"].Value["ready"]); !strings.Contains(ready, "code:script") {
			t.Errorf("ready providers %s", ready)
		}
		if s := r["getSettings"].Value; s["defaultProvider"] != "script" || fmt.Sprint(s["defaultModels"]) != "map[script:deterministic]" {
			t.Errorf("getSettings %v", s)
		}
		if a := r["getApprovalStatus"].Value; a["installed"] != true || a["approved"] != true || a["appConnected"] != true || a["origin"] != e.app.URL {
			t.Errorf("getApprovalStatus %v (origin should be %s)", a, e.app.URL)
		}
		if a := r["checkAvailability"].Value; a["available"] != true {
			t.Errorf("checkAvailability %v", a)
		}
		if res := r["resumeSession"]; !res.OK || res.Value["sessionId"] == "" {
			t.Errorf("resumeSession %+v", res)
		}
		var text strings.Builder
		for _, l := range got.Lines {
			if l.TurnID == "" {
				t.Errorf("a chat delta without ctx.turnId: %+v", l)
			}
			text.WriteString(l.Delta)
		}
		for _, want := range []string{"Analyze the current page.", `{"ok":true,"result":{"value":2}}`, "TOOL_ARGS_INVALID"} {
			if !strings.Contains(text.String(), want) {
				t.Errorf("the transcript lacks %s: %q", want, text.String())
			}
		}
		if got.Counter != 2 {
			t.Errorf("the named onTool handler left the counter at %d, want 2", got.Counter)
		}
		if s := strings.Join(got.Statuses, ","); !strings.HasPrefix(s, "idle,running") || !strings.Contains(s, "waiting_tool_result") || !strings.HasSuffix(s, ",ended") {
			t.Errorf("renderStatus saw %s", s)
		}
		if !got.ComposerDisabled || got.FinalStatus != "ended" || got.SessionCreatedAt <= 0 {
			t.Errorf("onEnded ran: %v; final status %s; sessionCreatedAt %v", got.ComposerDisabled, got.FinalStatus, got.SessionCreatedAt)
		}
	})

	t.Run("an origin Core does not allow, and a Core that is not running, are answers, not errors", func(t *testing.T) {
		other := appServer(t) // serves the harness page from an origin this Core does not allow
		e.b.open(t, fmt.Sprintf("%s/harness.html?core=%s", other.URL, e.core.URL), "ready")
		var got struct {
			Refused, Down          map[string]any
			Avail                  map[string]any
			AvailErr, DownAvailErr string
		}
		e.b.js(t, &got, `
const { Pedelec } = window.sdk;
const refused = new Pedelec();
const down = new Pedelec({ url: "ws://127.0.0.1:9/ws" });
const avail = await refused.checkAvailability();
const downAvail = await down.checkAvailability();
return { Refused: await refused.getApprovalStatus(), Down: await down.getApprovalStatus(),
  Avail: avail, AvailErr: avail.error?.code ?? "", DownAvailErr: downAvail.error?.code ?? "" };`)
		if got.Refused["installed"] != true || got.Refused["approved"] != false || got.Refused["appConnected"] != true || got.Refused["origin"] != other.URL {
			t.Errorf("refused origin: %v", got.Refused)
		}
		if got.Down["installed"] != false || got.Down["approved"] != false || got.Down["appConnected"] != false {
			t.Errorf("Core not running: %v", got.Down)
		}
		if got.Avail["available"] != false || got.AvailErr != "CREATE_SESSION_NOT_APPROVED" || got.DownAvailErr != "CORE_UNREACHABLE" {
			t.Errorf("checkAvailability: refused %v (%s), down %s", got.Avail, got.AvailErr, got.DownAvailErr)
		}
	})
}
