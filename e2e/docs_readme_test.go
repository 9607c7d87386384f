package e2e

// The README's promises a newcomer tries first (issue 23): its
// counter.html works as written, and when its origin is not allowed it
// says so on the page instead of staying blank; its Documentation list
// names every document in docs/.

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
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
		b.waitJS(t, 15*time.Second, `document.getElementById("status").textContent.startsWith("Connected")`, "the page's session")
		if err := b.do(10*time.Second, chromedp.Click("button", chromedp.NodeVisible)); err != nil {
			t.Fatal(err)
		}
		b.waitJS(t, 15*time.Second, `document.getElementById("value").textContent === "2"`, "the counter to show 2")
		b.screenshot(t, "readme-counter")
	})

	t.Run("not allowed, the page says why", func(t *testing.T) {
		addr := testenv.FreeAddr(t)
		app := serveCounterPage(t, "http://"+addr)
		testenv.ServeIn(t, addr, t.TempDir(), []string{"--origin-approval-timeout", "3s"})
		if err := b.do(30*time.Second, chromedp.Navigate(app.URL+"/counter.html")); err != nil {
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
