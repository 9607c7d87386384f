package e2e

// The README's promises a newcomer tries first (issue 23): its
// counter.html works as written, and when its origin is not allowed it
// says so on the page instead of staying blank; its Documentation list
// names every document in docs/.

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

func readme(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// serveCounterPage serves the README's counter.html, pointed at core, from
// an origin of its own, as `python3 -m http.server` would.
func serveCounterPage(t *testing.T, coreURL string) *httptest.Server {
	t.Helper()
	md := readme(t)
	at := strings.Index(md, "### A page to copy and run")
	var page string
	for _, b := range codeBlocks(md[at:]) {
		if b.lang == "html" {
			page = b.text
			break
		}
	}
	if at < 0 || page == "" {
		t.Fatal("the README has no counter.html")
	}
	dir := t.TempDir()
	page = strings.ReplaceAll(page, "http://127.0.0.1:7077", coreURL)
	if err := os.WriteFile(filepath.Join(dir, "counter.html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	app := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(app.Close)
	return app
}

func TestDocsReadmeCounterPage(t *testing.T) {
	testenv.SkipShort(t, "chromium and the real binary")
	b := newBrowser(t)
	status := func() string {
		var s string
		b.js(t, &s, `return document.getElementById("status").textContent`)
		return s
	}

	t.Run("allowed, it counts", func(t *testing.T) {
		// Core's URL is known once it runs, and the page needs it: the
		// page's origin is allowed by a port picked before either starts.
		addr := testenv.FreeAddr(t)
		app := serveCounterPage(t, "http://"+addr)
		testenv.ServeIn(t, addr, t.TempDir(), []string{"--allow-origin", app.URL})
		if err := b.do(30*time.Second, chromedp.Navigate(app.URL+"/counter.html")); err != nil {
			t.Fatal(err)
		}
		b.waitJS(t, 15*time.Second, `document.getElementById("status").textContent.startsWith("Press Send")`, "the page ready")
		if err := b.do(10*time.Second, chromedp.Click("button", chromedp.NodeVisible)); err != nil {
			t.Fatal(err)
		}
		b.waitJS(t, 15*time.Second, `document.getElementById("value").textContent === "2"`, "the counter to show 2")
		b.waitJS(t, 15*time.Second, `document.getElementById("status").textContent.startsWith("Done")`, "the first turn to end")
		// The second Send uses the same session.
		if err := b.do(10*time.Second, chromedp.Click("button", chromedp.NodeVisible)); err != nil {
			t.Fatal(err)
		}
		b.waitJS(t, 15*time.Second, `document.getElementById("value").textContent === "4"`, "the counter to show 4")
		b.screenshot(t, "readme-counter")
	})

	t.Run("not allowed, the page says why", func(t *testing.T) {
		addr := testenv.FreeAddr(t)
		app := serveCounterPage(t, "http://"+addr)
		core := testenv.ServeIn(t, addr, t.TempDir(), []string{"--origin-approval-timeout", "3s"})
		if err := b.do(30*time.Second, chromedp.Navigate(app.URL+"/counter.html")); err != nil {
			t.Fatal(err)
		}
		// Loading asks nothing: real browsers block a window opened
		// without a click, so the session starts on the first Send.
		b.waitJS(t, 15*time.Second, `document.getElementById("status").textContent.startsWith("Press Send")`, "the page ready")
		out, err := pedelecCLI(t, core, nil, "approvals", "--format", "json")
		var st wire.ApprovalsState
		if err != nil || json.Unmarshal([]byte(out), &st) != nil || len(st.Pending) != 0 {
			t.Fatalf("before any click the page asked for approval: %v %s", err, out)
		}
		if err := b.do(10*time.Second, chromedp.Click("button", chromedp.NodeVisible)); err != nil {
			t.Fatal(err)
		}
		b.waitJS(t, 10*time.Second, `/[Aa]pprove this page/.test(document.getElementById("status").textContent)`, "the page to ask for approval")
		b.waitJS(t, 15*time.Second, `document.getElementById("status").textContent.startsWith("APPROVAL_TIMEOUT")`, "the SDK's error on the page")
		b.screenshot(t, "readme-counter-not-allowed")
		if s := status(); !strings.Contains(s, "APPROVAL_TIMEOUT: ") || len(s) < 40 {
			t.Errorf("the page shows %q", s)
		}
	})
}

// Every document in docs/ is in the README's Documentation list.
func TestDocsReadmeListsEveryDoc(t *testing.T) {
	md := readme(t)
	at := strings.Index(md, "\n## Documentation\n")
	if at < 0 {
		t.Fatal("the README has no Documentation section")
	}
	list := md[at:]
	if next := strings.Index(list[1:], "\n## "); next >= 0 {
		list = list[:next+1]
	}
	docs, err := filepath.Glob(filepath.Join(testenv.RepoRoot(), "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("docs/*.md: %v", err)
	}
	for _, d := range docs {
		name := "docs/" + filepath.Base(d)
		if !strings.Contains(list, "- ["+name+"]("+name+")") {
			t.Errorf("the README's Documentation list does not name %s", name)
		}
	}
}

// The README's first snippet compiles under strict TypeScript against the
// SDK's published types, as an app's editor and build would check it
// (`args` was `unknown`, `counter` and `render` undeclared).
func TestDocsReadmeSnippetTypechecks(t *testing.T) {
	testenv.SkipShort(t, "the SDK's TypeScript compiler")
	root := testenv.RepoRoot()
	tsc := filepath.Join(root, "sdk", "node_modules", ".bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		t.Fatalf("the SDK's TypeScript compiler is not installed (npm ci --prefix sdk): %v", err)
	}
	md := readme(t)
	at := strings.Index(md, "## Using it from your app")
	if at < 0 {
		t.Fatal("the README has no \"Using it from your app\"")
	}
	blocks := codeBlocks(md[at:])
	if len(blocks) == 0 || blocks[0].lang != "ts" {
		t.Fatalf("the README's first snippet is not TypeScript: %+v", blocks)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "snippet.ts"), []byte(blocks[0].text+"\nexport {};\n"), 0o644)
	config := `{"compilerOptions": {"target": "ES2022", "module": "ESNext", "moduleResolution": "Bundler",
  "lib": ["ES2022", "DOM", "DOM.Iterable"], "types": [], "strict": true, "noEmit": true, "skipLibCheck": false,
  "paths": {"http://127.0.0.1:7077/sdk/pedelec.js": [` + strconvQuote(filepath.Join(root, "sdk", "dist", "pedelec.d.ts")) + `]}},
  "files": ["snippet.ts"]}`
	os.WriteFile(filepath.Join(dir, "tsconfig.json"), []byte(config), 0o644)
	cmd := exec.Command(tsc, "--noEmit", "-p", filepath.Join(dir, "tsconfig.json"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the README's snippet does not compile under strict TypeScript: %v\n%s\n---\n%s", err, out, blocks[0].text)
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }
