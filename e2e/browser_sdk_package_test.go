package e2e

// Issue 23, item 6: the SDK as an installable package. `npm pack` of sdk/
// (what the release ships), installed offline into an app directory with
// `npm install ./<tarball>`, served by a plain loopback static server.
// With no Core running the page still loads and shows its unavailable
// state (getApprovalStatus resolves installed: false, as the original's
// did); once Core starts, the same page works.

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

func TestBrowserSDKPackageWithoutCore(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		testenv.Need(t, "npm", "the SDK package is packed and installed with npm")
	}
	tmp := t.TempDir()
	run := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(npm, args...)
		cmd.Dir = dir
		// Its own cache: nothing is fetched (--offline), nothing shared is touched.
		cmd.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(tmp, "npm-cache"), "npm_config_update_notifier=false")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("npm %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
		}
		return string(out)
	}

	packs := filepath.Join(tmp, "packs")
	os.MkdirAll(packs, 0o755)
	run(filepath.Join(testenv.RepoRoot(), "sdk"), "pack", "--pack-destination", packs)
	tarballs, _ := filepath.Glob(filepath.Join(packs, "*.tgz"))
	if len(tarballs) != 1 {
		t.Fatalf("npm pack wrote %v, want one tarball", tarballs)
	}

	app := filepath.Join(tmp, "app")
	os.MkdirAll(app, 0o755)
	os.WriteFile(filepath.Join(app, "package.json"), []byte(`{"name": "an-app", "private": true}`), 0o644)
	run(app, "install", "--offline", "--no-audit", "--no-fund", tarballs[0])

	// The import map a bundler's resolution amounts to: the package's own
	// exports["."], types beside it.
	pkgDir := filepath.Join(app, "node_modules", "@kaoruisaac", "pedelec")
	var pkg struct {
		Exports map[string]json.RawMessage `json:"exports"`
	}
	var entry struct {
		Types  string `json:"types"`
		Import string `json:"import"`
	}
	raw, err := os.ReadFile(filepath.Join(pkgDir, "package.json"))
	if err != nil || json.Unmarshal(raw, &pkg) != nil || json.Unmarshal(pkg.Exports["."], &entry) != nil {
		t.Fatalf("installed package.json: %v %s", err, raw)
	}
	for _, f := range []string{entry.Import, entry.Types} {
		if _, err := os.Stat(filepath.Join(pkgDir, f)); f == "" || err != nil {
			t.Fatalf("exports names %q, which the package does not have: %v", f, err)
		}
	}
	importMap, _ := json.Marshal(map[string]any{"imports": map[string]string{"@kaoruisaac/pedelec": "./node_modules/@kaoruisaac/pedelec/" + strings.TrimPrefix(entry.Import, "./")}})
	page, _ := os.ReadFile(filepath.Join(testenv.RepoRoot(), "e2e", "testdata", "sdkpkg", "index.html"))
	script, _ := os.ReadFile(filepath.Join(testenv.RepoRoot(), "e2e", "testdata", "sdkpkg", "app.js"))
	os.WriteFile(filepath.Join(app, "index.html"), []byte(strings.Replace(string(page), "{{IMPORTMAP}}", string(importMap), 1)), 0o644)
	os.WriteFile(filepath.Join(app, "app.js"), script, 0o644)
	static := httptest.NewServer(http.FileServer(http.Dir(app)))
	t.Cleanup(static.Close)

	addr := testenv.FreeAddr(t) // nothing listens there yet
	b := newBrowser(t)
	b.open(t, static.URL+"/index.html?core=ws://"+addr+"/ws", "ready")
	var state struct {
		Text   string         `json:"text"`
		Status map[string]any `json:"status"`
	}
	b.js(t, &state, `const status = await window.check(); return { text: document.getElementById("state").textContent, status };`)
	if !strings.Contains(state.Text, "unavailable") || state.Status["installed"] != false || state.Status["appConnected"] != false || state.Status["origin"] != static.URL {
		t.Fatalf("without Core: %+v", state)
	}

	testenv.ServeIn(t, addr, t.TempDir(), []string{"--allow-origin", static.URL})
	b.js(t, &state, `const status = await window.check(); return { text: document.getElementById("state").textContent, status };`)
	if state.Text != "Pedelec is ready" || state.Status["installed"] != true || state.Status["approved"] != true {
		t.Fatalf("with Core: %+v", state)
	}
	var answer string
	b.js(t, &answer, `return await window.chat("say Hello from npm");`)
	if strings.TrimSpace(answer) != "Hello from npm" {
		t.Errorf("the script agent answered %q", answer)
	}
}
