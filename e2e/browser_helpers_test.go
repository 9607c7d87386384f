package e2e

// Helpers for the tests that drive real headless Chromium (Debian's
// chromium, through chromedp) against a real `pedelec serve`.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// browser is one headless Chromium tab with what it logged.
type browser struct {
	ctx context.Context

	mu      sync.Mutex
	console []string
	wsSent  []string // WebSocket frames the page sent, in order
	wsRecv  []string // WebSocket messages the page received, in order
}

// newBrowser starts Chromium with a fresh profile. The flags keep it off
// the network this machine does not have (background updates, sync) and
// let it run as root in a container.
func newBrowser(t testing.TB) *browser {
	t.Helper()
	return newBrowserWith(t)
}

// newBrowserWith is newBrowser with more command-line options (such as
// Chromium's native WebMCP, enable-features=WebMCPTesting).
func newBrowserWith(t testing.TB, extra ...chromedp.ExecAllocatorOption) *browser {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(testenv.Chromium(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1360, 1000),
	}
	opts = append(opts, extra...)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	b := &browser{ctx: ctx}
	// The first Run starts the browser; it must not carry a timeout.
	if err := chromedp.Do(ctx); err != nil {
		cancelCtx()
		cancelAlloc()
		t.Fatalf("start chromium: %v", err)
	}
	err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventWebSocketFrameSent); ok && e.Response != nil {
			b.mu.Lock()
			b.wsSent = append(b.wsSent, string(e.Response.PayloadData))
			b.mu.Unlock()
		}
		if e, ok := ev.(*network.EventWebSocketFrameReceived); ok && e.Response != nil {
			b.mu.Lock()
			b.wsRecv = append(b.wsRecv, string(e.Response.PayloadData))
			b.mu.Unlock()
		}
	})
	if err == nil {
		_, err = chromedp.Call(ctx, network.Enable, network.EnableParams{})
	}
	if err != nil {
		t.Fatalf("listen to the page: %v", err)
	}
	go func() {
		for m, err := range chromedp.Console(ctx) {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.console = append(b.console, m.String())
			b.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("browser console:\n%s", strings.Join(b.consoleLines(), "\n"))
		}
		cancelCtx()
		cancelAlloc()
	})
	return b
}

func (b *browser) consoleLines() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.console...)
}

// sentFrames returns the WebSocket frames the page sent so far.
func (b *browser) sentFrames() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.wsSent...)
}

// receivedMessages returns the WebSocket messages the page received so far.
func (b *browser) receivedMessages() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.wsRecv...)
}

// do runs chromedp steps with a deadline.
func (b *browser) do(timeout time.Duration, steps ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(b.ctx, timeout)
	defer cancel()
	return chromedp.Do(ctx, steps...)
}

// eval evaluates an expression (awaiting a promise) and returns its JSON.
func (b *browser) eval(timeout time.Duration, expr string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(b.ctx, timeout)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr, chromedp.EvalAwaitPromise))
}

// open navigates and waits until the page's script set window[readyVar].
func (b *browser) open(t testing.TB, url, readyVar string) {
	t.Helper()
	if err := b.do(30*time.Second, chromedp.Navigate(url)); err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	b.waitJS(t, 15*time.Second, "window."+readyVar+" === true || !!window.loadError", readyVar)
	var loadErr string
	if raw, err := b.eval(5*time.Second, `window.loadError || ""`); err == nil {
		_ = json.Unmarshal(raw, &loadErr)
	}
	if loadErr != "" {
		t.Fatalf("page %s failed to load: %s", url, loadErr)
	}
}

// js runs an async snippet in the page (its body may await and return) and
// decodes the JSON of its return value into out (nil to ignore). A throw in
// the page fails the test with the page's message.
func (b *browser) js(t testing.TB, out any, body string) {
	t.Helper()
	if err := b.tryJS(out, body); err != nil {
		t.Fatalf("in the page: %v\n--- snippet:\n%s", err, body)
	}
}

func (b *browser) tryJS(out any, body string) error {
	expr := "(async () => {\n" + body + "\n})().then((v) => v === undefined ? null : v)"
	raw, err := b.eval(60*time.Second, expr)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(raw, out)
}

// waitJS polls a boolean expression until it is true.
func (b *browser) waitJS(t testing.TB, timeout time.Duration, expr, what string) {
	t.Helper()
	testenv.Await(t, timeout, what, func() bool {
		raw, err := b.eval(5*time.Second, "Boolean("+expr+")")
		return err == nil && string(raw) == "true"
	})
}

// screenshot saves a PNG of the viewport as a test artifact and returns its path.
func (b *browser) screenshot(t testing.TB, name string) string {
	t.Helper()
	// Clicks scroll the page; the picture should show it from the top.
	_, _ = b.eval(5*time.Second, "window.scrollTo(0, 0)")
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dir := artifactsDir(t)
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	return path
}

// artifactsDir is $PEDELEC_ARTIFACTS, else e2e/artifacts (git-ignored).
func artifactsDir(t testing.TB) string {
	dir := os.Getenv("PEDELEC_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(testenv.RepoRoot(), "e2e", "artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// appServer serves e2e/testdata/browser on its own 127.0.0.1 origin: an
// application page that is not Core's, as in real use.
func appServer(t testing.TB) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(testenv.RepoRoot(), "e2e", "testdata", "browser"))))
	t.Cleanup(srv.Close)
	return srv
}

// sdkEnv is Core plus the app page's origin it allows, and a browser.
type sdkEnv struct {
	core *testenv.Server
	app  *httptest.Server
	b    *browser
}

// newSDKEnv starts Core allowing the test app's origin, and a browser on the
// harness page, which imports the SDK from Core.
func newSDKEnv(t testing.TB, serveArgs ...string) *sdkEnv {
	t.Helper()
	return newSDKEnvWith(t, nil, serveArgs...)
}

// newSDKEnvWith is newSDKEnv with serve's environment entries (KEY=VALUE).
func newSDKEnvWith(t testing.TB, env []string, serveArgs ...string) *sdkEnv {
	t.Helper()
	b := newBrowser(t)
	app := appServer(t)
	core := testenv.Serve(t, append([]string{"--allow-origin", app.URL}, serveArgs...), env...)
	b.open(t, fmt.Sprintf("%s/harness.html?core=%s", app.URL, core.URL), "ready")
	return &sdkEnv{core: core, app: app, b: b}
}
