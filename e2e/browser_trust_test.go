package e2e

// Trust in the browser: what the user approves is what they meant, and
// nothing on Core's origin runs what an agent wrote. Each test plays the
// attack a hostile page, agent or tool result made in real Chromium, and
// checks that it no longer works (docs/security.md lists them).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	page2 "github.com/chromedp/cdproto/page" // "page" is the attack pass's hostile page
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// approvalsState is `pedelec approvals --format json`.
func approvalsState(t *testing.T, core *testenv.Server) wire.ApprovalsState {
	t.Helper()
	out, err := pedelecCLI(t, core, nil, "approvals", "--format", "json")
	var st wire.ApprovalsState
	if err != nil || json.Unmarshal([]byte(out), &st) != nil {
		t.Fatalf("approvals: %v %s", err, out)
	}
	return st
}

// popupOf waits for the page target that action opens and returns a
// context on it.
func popupOf(t *testing.T, b *browser, action chromedp.Action[chromedp.Void]) context.Context {
	t.Helper()
	wctx, cancelWait := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancelWait()
	newTarget := chromedp.WaitNewTarget(wctx, func(info *target.Info) bool { return info.Type == "page" })
	if err := b.do(10*time.Second, action); err != nil {
		t.Fatalf("the action that opens a window: %v", err)
	}
	var id target.ID
	select {
	case id = <-newTarget:
	case <-wctx.Done():
		t.Fatal("no window opened")
	}
	ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithTargetID(id))
	t.Cleanup(cancel)
	return ctx
}

// inTarget runs a snippet in the page of ctx, as browser.js does.
func inTarget(t *testing.T, ctx context.Context, out any, body string) {
	t.Helper()
	b := &browser{ctx: ctx}
	b.js(t, out, body)
}

// Finding 1: an unapproved page learned its approval URL without a click,
// then on the user's next click opened it with #approve as a 160x110
// popup: the fragment focused Approve, the window showed no origin, and
// the second click of a double-click (or Enter) approved the site.
func TestBrowserTrustApprovalWindowTinyPopup(t *testing.T) {
	core, _, b, p := pageAwaitingApproval(t)
	b.js(t, nil, `
const btn = document.createElement("button");
btn.id = "bait"; btn.textContent = "Double-click to play";
btn.addEventListener("click", () => { window.open(`+jsString(p.URL)+` + "#approve", "tiny", "popup,width=160,height=110,left=400,top=300"); });
document.body.prepend(btn);`)
	pctx := popupOf(t, b, chromedp.Click("#bait", chromedp.NodeVisible))
	// Headless Chromium gives a popup its default size whatever the page
	// asked; a desktop browser gives it the 160x110 asked for.
	if err := chromedp.Do(pctx, chromedp.EmulateViewport(160, 110), chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
	// What a double-click's second click and an Enter would hit: the
	// focused element and the Approve button wherever it is.
	var at struct {
		Active string  `json:"active"`
		X      float64 `json:"x"`
		Y      float64 `json:"y"`
		W, H   float64
	}
	inTarget(t, pctx, &at, `
const a = document.querySelector('[data-decision="approve"]') || document.getElementById("approve");
const r = a.getBoundingClientRect();
return { active: document.activeElement?.tagName + "#" + (document.activeElement?.id ?? ""), x: r.x + r.width / 2, y: r.y + r.height / 2, W: innerWidth, H: innerHeight };`)
	t.Logf("the tiny window: %+v", at)
	// A decision closes the window, so these may fail once one was taken.
	_ = chromedp.Do(pctx, chromedp.KeyEvent("\r"), chromedp.KeyEvent(" "), chromedp.MouseClickXY(at.X, at.Y))
	// The user goes on clicking there later too: the window stays too small.
	time.Sleep(1500 * time.Millisecond)
	_ = chromedp.Do(pctx, chromedp.MouseClickXY(at.X, at.Y), chromedp.KeyEvent("\r"))
	time.Sleep(300 * time.Millisecond)
	if st := approvalsState(t, core); len(st.Origins) != 0 {
		t.Fatalf("the tiny popup approved %v", st.Origins)
	}
	if strings.HasPrefix(at.Active, "BUTTON") {
		t.Errorf("the fragment focused %s", at.Active)
	}
	var small bool
	inTarget(t, pctx, &small, `return !document.getElementById("too-small").hidden`)
	if !small {
		t.Error("the tiny window does not say it is too small to decide in")
	}
	(&browser{ctx: pctx}).screenshot(t, "trust-approve-tiny-160")
}

// Finding 1, the delay: a window of the right size takes no decision
// until it has been visible and focused for a moment, however fast the
// input comes, and its buttons name what they decide.
func TestBrowserTrustApprovalWindowWaitsForFocus(t *testing.T) {
	_, app, b, p := pageAwaitingApproval(t)

	user := newBrowser(t)
	if err := user.do(10*time.Second, chromedp.EmulateViewport(520, 560)); err != nil {
		t.Fatal(err)
	}
	userFocus(t, user.ctx)
	if err := user.do(30*time.Second, chromedp.Navigate(p.URL), chromedp.WaitReady(`[data-decision="approve"]`)); err != nil {
		t.Fatal(err)
	}
	var r struct{ X, Y float64 }
	user.js(t, &r, `const e = document.querySelector('[data-decision="approve"]').getBoundingClientRect(); return { X: e.x + e.width / 2, Y: e.y + e.height / 2 };`)
	if err := user.do(10*time.Second, chromedp.MouseClickXY(r.X, r.Y)); err != nil {
		t.Fatal(err)
	}
	user.waitJS(t, 10*time.Second, `document.body.dataset.armed === "true"`, "the window to take input")
	var log struct {
		Wait    float64 `json:"waitMs"`
		Ignored int     `json:"ignored"`
		Label   string  `json:"label"`
		Decided string  `json:"decided"`
	}
	user.js(t, &log, `return { waitMs: Number(document.body.dataset.armedAfterMs), ignored: Number(document.body.dataset.ignored ?? 0),
  label: document.querySelector('[data-decision="approve"]').textContent, decided: document.body.dataset.decided ?? "" };`)
	t.Logf("before the delay: %+v", log)
	if log.Decided != "" || log.Ignored < 1 {
		t.Fatalf("an input before the window took input was not ignored: %+v", log)
	}
	if log.Wait < 1000 {
		t.Errorf("the window took input after %.0f ms, want at least 1000", log.Wait)
	}
	if !strings.Contains(log.Label, app.URL) {
		t.Errorf("the Approve button says %q, not which origin it approves", log.Label)
	}
	user.screenshot(t, "trust-approve-origin-520")
	if err := user.do(10*time.Second, chromedp.MouseClickXY(r.X, r.Y)); err != nil {
		t.Fatal(err)
	}
	if res := pageResult(t, b); res["ok"] == "" {
		t.Fatalf("createSession after a deliberate Approve: %v", res)
	}
}

// agentFiles is what a hostile agent writes into the shared assets/: an
// SVG and an HTML page whose script reports the origin it ran on.
const agentFiles = "write assets/evil.svg <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"40\" height=\"40\"><rect width=\"40\" height=\"40\" fill=\"red\"/><script>document.title = \"ran:\" + self.origin</script></svg>\n" +
	"write assets/evil.html <script>document.title = \"ran:\" + self.origin</script><p>hi</p>\n" +
	"say wrote them"

// Finding 2: the demo showed an agent's SVG through a blob: URL of Core's
// origin; opened in a tab of its own, its script ran as Core.
func TestBrowserTrustAgentFilesNeverRunOnCoreOrigin(t *testing.T) {
	d := openDemo(t, "?provider=script")
	d.typeAndSend(agentFiles)
	d.reply(1)
	d.click("#asset-refresh")
	d.b.waitJS(t, 15*time.Second, `!!document.querySelector("#asset-list li[data-path='/evil.svg']") && !!document.querySelector("#asset-list li[data-path='/evil.html']")`, "the agent's files")
	var urls []string
	for _, name := range []string{"/evil.svg", "/evil.html"} {
		d.b.js(t, nil, `document.querySelector("#asset-list li[data-path='`+name+`'] button").click()`) // the list may re-render under a held node
		d.b.waitJS(t, 15*time.Second, `document.querySelector("#asset-view .asset-title")?.textContent.startsWith(`+jsString(strings.TrimPrefix(name, "/"))+`)`, "the file on show")
		var u string
		d.b.js(t, &u, `const e = document.querySelector("#asset-view img, #asset-view a, #asset-view iframe, #asset-view object"); return e ? (e.src || e.href || e.data) : "";`)
		t.Logf("%s is shown from %q", name, u)
		if u == "" {
			var text bool
			d.b.js(t, &text, `return !!document.getElementById("asset-text")`)
			if !text {
				t.Errorf("%s is shown neither as text nor from a URL", name)
			}
			continue // shown as text: nothing of it runs
		}
		if strings.HasPrefix(u, "blob:") || strings.HasPrefix(u, "data:") {
			t.Errorf("%s is shown from %q: a URL of Core's origin that runs the file's script", name, u)
		}
		urls = append(urls, u)
	}
	// The user opens each in a tab of its own.
	for _, u := range urls {
		if u == "" {
			continue
		}
		tab := newTab(t, d.b)
		_ = tab.do(15*time.Second, chromedp.Navigate(u))
		time.Sleep(500 * time.Millisecond)
		var got struct{ Title, Href string }
		_ = tab.tryJS(&got, `return { Title: document.title, Href: location.href };`)
		t.Logf("opened %s: %+v", u, got)
		if strings.Contains(got.Title, "ran:"+d.core.URL) {
			t.Errorf("the agent's file ran on Core's origin: %+v", got)
		}
	}
}

// Finding 2 and 3: every page Core serves keeps out of frames and runs
// only Core's own files; the demo sent neither.
func TestBrowserTrustPagesHeaders(t *testing.T) {
	core := testenv.Serve(t, nil)
	for _, path := range []string{"/", "/index.html", "/app.js", "/console/", "/console/approve/ap_none"} {
		resp, err := http.Get(core.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		h := resp.Header
		csp := h.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "frame-ancestors 'none'", "base-uri 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %s", path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
			t.Errorf("%s: CSP %q allows inline script", path, csp)
		}
		for k, v := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
			"Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Resource-Policy": "same-origin", "Referrer-Policy": "no-referrer"} {
			if h.Get(k) != v {
				t.Errorf("%s: %s is %q, want %q", path, k, h.Get(k), v)
			}
		}
	}
}

// Finding 3: any site framed the demo, which started a session on load as
// Core's own origin; 34 frames filled Core's sessions. Framed it now
// shows nothing and starts nothing; at the top level it starts a session
// only when the user asks, with ?provider= only preselecting.
func TestBrowserTrustDemoFramedAndOnLoad(t *testing.T) {
	core := testenv.Serve(t, nil)
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!doctype html><title>hostile</title>")
		for i := 0; i < 4; i++ {
			fmt.Fprintf(w, `<iframe src="%s/?provider=script" width="300" height="200"></iframe>`, core.URL)
		}
	}))
	t.Cleanup(hostile.Close)
	b := newBrowser(t)
	if err := b.do(30*time.Second, chromedp.Navigate(hostile.URL)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // long enough for a framed demo to have started its session
	if n := sessionCount(t, core); n != 0 {
		t.Errorf("4 frames of the demo on a hostile site made %d sessions", n)
	}
	res, err := chromedp.Call(b.ctx, page2.GetFrameTree, cdp.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.FrameTree.ChildFrames {
		t.Logf("frame: url %s unreachable %q", c.Frame.URL, c.Frame.UnreachableURL)
		if c.Frame.UnreachableURL == "" && strings.HasPrefix(c.Frame.URL, core.URL) {
			t.Errorf("the demo loaded in a frame of a hostile site: %s", c.Frame.URL)
		}
	}

	// At the top level: nothing starts on load; the picker holds the
	// provider asked for; the user's click starts the session.
	top := newBrowser(t)
	if err := top.do(30*time.Second, chromedp.Navigate(core.URL+"/?provider=script")); err != nil {
		t.Fatal(err)
	}
	top.waitJS(t, 15*time.Second, `document.getElementById("provider").value === "script"`, "the picker")
	time.Sleep(1500 * time.Millisecond)
	if n := sessionCount(t, core); n != 0 {
		t.Errorf("opening the demo made %d sessions before the user asked", n)
	}
	if err := top.do(10*time.Second, chromedp.Click("#restart", chromedp.NodeVisible)); err != nil {
		t.Fatal(err)
	}
	top.waitJS(t, 15*time.Second, `window.pedelecDemo?.session?.provider === "script"`, "the session the user started")
}

// sessionCount is /healthz's count of Core's live sessions.
func sessionCount(t *testing.T, core *testenv.Server) int {
	t.Helper()
	resp, err := http.Get(core.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h struct{ Sessions int }
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	return h.Sessions
}

// userFocus makes the page of ctx focused as the window a user looks at
// and clicks in is (headless Chromium has no window focus of its own).
func userFocus(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
		t.Fatal(err)
	}
}

// decideIn clicks a decision button in the page of ctx (the approval
// window, or one entry of the console's pending list: scope) with a real
// mouse click, once it takes input (web/console/deliberate.js).
func decideIn(t *testing.T, ctx context.Context, scope, decision string) {
	t.Helper()
	userFocus(t, ctx)
	b := &browser{ctx: ctx}
	root := "document"
	if scope != "" {
		root = "document.querySelector(" + jsString(scope) + ")"
	}
	// A user scrolls what they decide into view first.
	b.js(t, nil, `const r = `+root+`; (r === document ? document.querySelector("[data-decision]") : r)?.scrollIntoView({ block: "center" });`)
	b.waitJS(t, 20*time.Second, `(() => { const r = `+root+`; const btn = r && r.querySelector('[data-decision="`+decision+`"]'); return !!btn && btn.getAttribute("aria-disabled") === "false"; })()`,
		"the "+decision+" button to take input")
	sel := `[data-decision="` + decision + `"]`
	if scope != "" {
		sel = scope + " " + sel
	}
	if err := b.do(10*time.Second, chromedp.Click(sel, chromedp.NodeVisible)); err != nil {
		t.Fatalf("click %s: %v", sel, err)
	}
}

// hostileSite serves, on any host name, a top page framing n subdomains
// of evil.localhost and the framed page, which imports the SDK from core
// and asks to be approved, posting what it heard to its parent.
func hostileSite(t *testing.T, core *testenv.Server, n int) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		port := srv.Listener.Addr().(*net.TCPAddr).Port
		if r.URL.Path == "/frame" {
			fmt.Fprintf(w, `<!doctype html><script type="module">
const { Pedelec } = await import(%q);
window.__pending = []; window.__res = null;
const p = new Pedelec({ onApprovalPending: (x) => window.__pending.push({ url: x.url, origin: x.origin, code: x.error?.code ?? "" }) });
p.createSession({ provider: "script", skills: { guidance: "g", tools: [] } }).then(
  (s) => { window.__res = { ok: s.sessionId }; parent.postMessage({ ok: s.sessionId }, "*"); },
  (e) => { window.__res = { code: e.code, message: e.message, details: JSON.stringify(e.details ?? {}) }; parent.postMessage(window.__res, "*"); });
</script>`, core.URL+"/sdk/pedelec.js")
			return
		}
		fmt.Fprint(w, `<!doctype html><title>hostile</title><script>window.heard = []; addEventListener("message", (e) => window.heard.push(e.data));</script>`)
		for i := 0; i < n; i++ {
			fmt.Fprintf(w, `<iframe src="http://s%d.evil.localhost:%d/frame" width="40" height="40"></iframe>`, i, port)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// frameOrigin is a hostile frame's origin, the one number a refusal names.
var frameOrigin = regexp.MustCompile(`http://s\d+\.evil\.localhost:\d+`)

// Finding 6: 34 subdomain iframes of one site took all 32 pending places;
// a new site then heard "32 other sites are already waiting".
func TestBrowserTrustPendingBoundPerSite(t *testing.T) {
	core := testenv.Serve(t, nil)
	evil := hostileSite(t, core, 12)
	port := evil.Listener.Addr().(*net.TCPAddr).Port
	b := newBrowser(t)
	if err := b.do(30*time.Second, chromedp.Navigate(fmt.Sprintf("http://evil.localhost:%d/", port))); err != nil {
		t.Fatal(err)
	}
	testenv.Await(t, 30*time.Second, "every frame to be pending or refused", func() bool {
		var heard int
		_ = b.tryJS(&heard, `return window.heard.length`)
		return heard+len(approvalsState(t, core).Pending) >= 12
	})
	var heard []map[string]string
	b.js(t, &heard, `return window.heard`)
	pending := approvalsState(t, core).Pending
	t.Logf("%d of the site's frames wait, %d were refused: %v", len(pending), len(heard), heard)
	if len(pending) > 4 {
		t.Errorf("one site holds %d pending places", len(pending))
	}
	for _, h := range heard {
		if h["code"] != string(wire.CodeCreateSessionNotApproved) || strings.ContainsAny(frameOrigin.ReplaceAllString(h["message"]+h["details"], ""), "0123456789") {
			t.Errorf("a refused frame heard %v", h)
		}
	}
	// Another site still gets to ask.
	good := newBrowser(t)
	if err := good.do(30*time.Second, chromedp.Navigate(fmt.Sprintf("http://good.localhost:%d/frame", port))); err != nil {
		t.Fatal(err)
	}
	if p := waitPending(t, good); !strings.Contains(p.URL, "/console/approve/ap_") {
		t.Errorf("a new site's request: %+v", p)
	}
}

// Finding 8 (and the rest of 1): a rejected site could ask again at once
// and so put its approval window up on every click; one click opens one
// window at most.
func TestBrowserTrustRejectedSiteWaits(t *testing.T) {
	core := testenv.Serve(t, nil)
	app := appServer(t)
	b := newBrowser(t)
	b.open(t, fmt.Sprintf("%s/harness.html?core=%s", app.URL, core.URL), "ready")
	b.js(t, nil, startWaitingCreate)
	waitPending(t, b)
	if out, err := pedelecCLI(t, core, nil, "deny", app.URL, "--reason", "not this site"); err != nil {
		t.Fatalf("deny: %v %s", err, out)
	}
	if r := pageResult(t, b); r["code"] != string(wire.CodeApprovalRejected) {
		t.Fatalf("after the rejection: %v", r)
	}
	// The page asks again from a click, twice in one gesture, and opens a
	// window of its own too.
	b.js(t, nil, `
window.__res = null; window.__pending = []; window.__opened = [];
const p = new window.sdk.Pedelec({ onApprovalPending: (x) => window.__pending.push({ url: x.url, origin: x.origin, code: x.error?.code ?? "" }) });
const btn = document.createElement("button");
btn.id = "again"; btn.textContent = "Try again";
btn.addEventListener("click", () => {
  p.createSession({ provider: "script", skills: { guidance: "g", tools: [] } }).then((s) => { window.__res = { ok: s.sessionId }; }, (e) => { window.__res = { code: e.code, message: e.message, details: JSON.stringify(e.details ?? {}) }; });
  p.createSession({ provider: "script", skills: { guidance: "g", tools: [] } }).catch(() => {});
  window.__opened.push(String(!!window.open("about:blank", "one")), String(!!window.open("about:blank", "two")));
});
document.body.prepend(btn);`)
	if err := b.do(10*time.Second, chromedp.Click("#again", chromedp.NodeVisible)); err != nil {
		t.Fatal(err)
	}
	r := pageResult(t, b)
	t.Logf("asking again: %v", r)
	if r["code"] != string(wire.CodeApprovalRejected) || !strings.Contains(r["details"], "retryAfterMs") {
		t.Errorf("a site rejected a moment ago asked again: %v", r)
	}
	if st := approvalsState(t, core); len(st.Pending) != 0 {
		t.Errorf("the rejected site waits again: %v", st.Pending)
	}
	var opened []string
	b.js(t, &opened, `return window.__opened`)
	var pend []pendingSeen
	b.js(t, &pend, `return window.__pending`)
	if len(pend) != 0 || len(opened) != 2 || opened[1] != "false" {
		t.Errorf("one click opened windows %v and approval windows %v; want one at most", opened, pend)
	}
}

// whatRunsPage defines a consequential tool and a session.
const whatRunsPage = `
const { Pedelec, defineTool } = window.sdk;
window.got = [];
const pay = defineTool({
  name: "pay", description: "Pays someone.", timeoutMs: 60000,
  annotations: { consequentialHint: true },
  argsSchema: { type: "object", properties: { to: { type: "string" }, memo: { type: "string" }, amount: { type: "number" }, ref: { type: "string" } } },
  handler: async (args) => { window.got.push(args); return { paid: true, note: window.payNote ?? "ok" }; },
});
window.session = await new Pedelec().createSession({ provider: "script", skills: { guidance: "Pays.", tools: [pay] } });`

// attackArgs: a look-alike payee (Cyrillic а), a memo whose tail 3,000
// spaces push out of view, a number past 2^53, a right-to-left override.
const attackArgs = "`call pay {\"to\": \"\\u0430lice\", \"memo\": \"rent" + "` + \" \".repeat(3000) + `" + "; and also mallory@evil.test\", \"amount\": 12345678901234567993, \"ref\": \"\\u202E10000\"}`"

// argsShown is what a rendered arguments view shows.
type argsShown struct {
	Overflow bool     `json:"overflow"`
	Text     string   `json:"text"`
	Esc      []string `json:"esc"`
	Mixed    []string `json:"mixed"`
	Num      string   `json:"num"`
	Want     string   `json:"want"`
	Notes    string   `json:"notes"`
}

const readArgsView = `
const pre = document.querySelector(SCOPE + " .args-view");
if (!pre) return null;
return { overflow: pre.scrollWidth > pre.clientWidth + 1, text: pre.textContent,
  esc: [...pre.querySelectorAll(".esc")].map((e) => e.textContent), mixed: [...pre.querySelectorAll("mark.mixed-script")].map((e) => e.textContent),
  num: pre.querySelector(".num")?.textContent ?? "", want: String(12345678901234567993),
  notes: document.querySelector(SCOPE + " .args-notes")?.textContent ?? "" };`

func checkArgsShown(t *testing.T, where string, got argsShown) {
	t.Helper()
	t.Logf("%s shows %d chars, esc %v, mixed %v, num %s, notes %q", where, len(got.Text), got.Esc, got.Mixed, got.Num, got.Notes)
	if got.Overflow {
		t.Errorf("%s: the arguments run out of their box to the side", where)
	}
	if !strings.Contains(got.Text, "mallory@evil.test") || strings.Contains(got.Text, strings.Repeat(" ", 100)) {
		t.Errorf("%s: the memo's tail is not shown plainly (or the spaces are): %.200q", where, got.Text)
	}
	if !slicesContain(got.Esc, `\u202E`) {
		t.Errorf("%s: the right-to-left override is not shown as an escape: %v", where, got.Esc)
	}
	if !slicesContain(got.Mixed, "\u0430lice") {
		t.Errorf("%s: the look-alike payee is not flagged: %v", where, got.Mixed)
	}
	if got.Num != got.Want {
		t.Errorf("%s: the amount shows %s, the handler gets %s", where, got.Num, got.Want)
	}
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Finding 4: the approval window showed the agent's raw JSON: spaces hid
// the memo's tail, an override reversed digits, a duplicate key showed the
// first value while the handler got the last, a large number other digits
// than the handler got, a look-alike letter went unflagged; the console
// showed yet another rendering.
func TestBrowserTrustApprovalShowsWhatRuns(t *testing.T) {
	env := newSDKEnv(t)
	app := env.b
	app.js(t, nil, whatRunsPage)

	// A duplicated key is refused before anyone is asked.
	var text string
	app.js(t, &text, `return await Promise.race([window.session.sendTurn('call pay {"memo": "shown", "memo": "run"}').then((r) => r.text),
  new Promise((r) => setTimeout(() => r("(no answer: the call waits for consent)"), 8000))]);`)
	if !strings.Contains(text, "TOOL_ARGS_INVALID") {
		t.Errorf("a duplicated key reached consent: the agent saw %q", text)
	}
	if st := approvalsState(t, env.core); len(st.Pending) != 0 {
		t.Fatalf("a duplicated key is waiting for consent: %v", st.Pending)
	}

	app.js(t, nil, `window.turn = window.session.sendTurn(`+attackArgs+`); return null;`)
	var id string
	testenv.Await(t, 20*time.Second, "the call's consent request", func() bool {
		if p := approvalsState(t, env.core).Pending; len(p) == 1 {
			id = p[0].ID
		}
		return id != ""
	})
	user := newBrowser(t)
	userFocus(t, user.ctx)
	for _, w := range []int{1280, 1024, 390} {
		if err := user.do(10*time.Second, chromedp.EmulateViewport(int64(w), 900)); err != nil {
			t.Fatal(err)
		}
		if err := user.do(30*time.Second, chromedp.Navigate(env.core.URL+"/console/approve/"+id), chromedp.WaitReady("body")); err != nil {
			t.Fatal(err)
		}
		var got argsShown
		user.js(t, &got, strings.ReplaceAll(readArgsView, "SCOPE", `"#args"`))
		checkArgsShown(t, fmt.Sprintf("the approval window at %d px", w), got)
		user.screenshot(t, fmt.Sprintf("trust-approve-call-%d", w))
	}
	con := newBrowser(t)
	userFocus(t, con.ctx)
	for _, w := range []int{1280, 1024, 390} {
		if err := con.do(10*time.Second, chromedp.EmulateViewport(int64(w), 900)); err != nil {
			t.Fatal(err)
		}
		if err := con.do(30*time.Second, chromedp.Navigate(env.core.URL+"/console/")); err != nil {
			t.Fatal(err)
		}
		con.waitJS(t, 10*time.Second, `!!document.querySelector("#approvals-body [data-approval-id]")`, "the pending call in the console")
		var got argsShown
		con.js(t, &got, strings.ReplaceAll(readArgsView, "SCOPE", `"#approvals-body [data-approval-id]"`))
		checkArgsShown(t, fmt.Sprintf("the console at %d px", w), got)
		con.screenshot(t, fmt.Sprintf("trust-console-call-%d", w))
	}
	// What the window showed is what the handler got.
	decideIn(t, user.ctx, "", "approve")
	app.js(t, &text, `return (await window.turn).text;`)
	var handed []map[string]any
	app.js(t, &handed, `return window.got.map((a) => ({ ...a, amount: String(a.amount) }));`)
	if len(handed) != 1 || handed[0]["amount"] != "12345678901234567000" {
		t.Errorf("the handler got %v", handed)
	}
}

// consoleTwoCalls: two sessions, each with one consequential tool; the
// harmless one's consent expires after a few seconds (the page chose its
// timeout), the other waits.
const consoleTwoCalls = `
const { Pedelec, defineTool } = window.sdk;
window.ran = [];
const mk = (name, timeoutMs) => defineTool({ name, description: name, timeoutMs, annotations: { consequentialHint: true },
  argsSchema: { type: "object", properties: {} }, handler: async () => { window.ran.push(name); return { ok: true }; } });
const p = new Pedelec();
const a = await p.createSession({ provider: "script", skills: { guidance: "g", tools: [mk("check_weather", 6000)] } });
const b = await p.createSession({ provider: "script", skills: { guidance: "g", tools: [mk("transfer_funds", 120000)] } });
window.turnA = a.sendTurn("call check_weather {}");
await window.h.waitFor(async () => true, "", 10);
await new Promise((r) => setTimeout(r, 300));
window.turnB = b.sendTurn("call transfer_funds {}");
return null;`

// Finding 5: the console rebuilt its pending list on every change, so when
// the harmless call expired, the next entry's Approve moved to exactly
// where the user was about to click: a click aimed at check_weather
// approved transfer_funds.
func TestBrowserTrustConsoleListStaysPut(t *testing.T) {
	env := newSDKEnv(t)
	env.b.js(t, nil, consoleTwoCalls)
	con := newTab(t, env.b)
	userFocus(t, con.ctx)
	if err := con.do(10*time.Second, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	if err := con.do(30*time.Second, chromedp.Navigate(env.core.URL+"/console/")); err != nil {
		t.Fatal(err)
	}
	con.waitJS(t, 20*time.Second, `document.querySelectorAll("#approvals-body [data-approval-id]").length === 2`, "both calls in the console")
	var at struct{ X, Y float64 }
	con.js(t, &at, `
const first = document.querySelector("#approvals-body [data-approval-id]");
if (!first.textContent.includes("check_weather")) throw new Error("check_weather is not first: " + first.textContent);
const btn = first.querySelector('[data-decision="approve"]') ?? first.querySelector("button.primary");
const r = btn.getBoundingClientRect();
return { X: r.x + r.width / 2, Y: r.y + r.height / 2 };`)
	// The user's pointer rests on check_weather's Approve...
	if err := con.do(5*time.Second, chromedp.MouseEvent(chromedp.MouseMoved, at.X, at.Y)); err != nil {
		t.Fatal(err)
	}
	// ...while check_weather's consent expires.
	testenv.Await(t, 30*time.Second, "check_weather's consent to expire", func() bool {
		p := approvalsState(t, env.core).Pending
		return len(p) == 1 && p[0].Tool == "transfer_funds"
	})
	con.waitJS(t, 10*time.Second, `!document.querySelector("#approvals-body").textContent.includes("check_weather") || !!document.querySelector("#approvals-body [data-gone]")`, "the console to hear of it")
	var under string
	con.js(t, &under, fmt.Sprintf(`const e = document.elementFromPoint(%f, %f); return e?.closest("[data-approval-id]")?.textContent ?? "(none)";`, at.X, at.Y))
	t.Logf("under the pointer now: %.120q", under)
	con.screenshot(t, "trust-console-frozen-1280")
	// The user clicks where they aimed.
	if err := con.do(5*time.Second, chromedp.MouseClickXY(at.X, at.Y)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	p := approvalsState(t, env.core).Pending
	if len(p) != 1 || p[0].Tool != "transfer_funds" {
		t.Fatalf("a click aimed at check_weather decided transfer_funds: pending %v", p)
	}
	var ran []string
	env.b.js(t, &ran, `return window.ran`)
	if len(ran) != 0 {
		t.Fatalf("handlers ran: %v", ran)
	}
	// Once the pointer leaves, the list catches up.
	if err := con.do(5*time.Second, chromedp.MouseEvent(chromedp.MouseMoved, 5, 5)); err != nil {
		t.Fatal(err)
	}
	con.waitJS(t, 10*time.Second, `document.querySelectorAll("#approvals-body [data-approval-id]").length === 1`, "the list to catch up")
}

// Finding 7: an unapproved socket could send 4 MiB frames though all it
// may do is ask about approval; 48 of them took Core to a 430 MB peak.
func TestBrowserTrustUnapprovedFrameLimit(t *testing.T) {
	core := testenv.Serve(t, nil)
	app := appServer(t)
	b := newBrowser(t)
	b.open(t, fmt.Sprintf("%s/harness.html?core=%s", app.URL, core.URL), "ready")
	send := func(padBytes int) map[string]any {
		var got map[string]any
		b.js(t, &got, fmt.Sprintf(`
const ws = new WebSocket(%q);
await new Promise((r, j) => { ws.onopen = r; ws.onerror = () => j(new Error("no socket")); });
const out = { answered: false, closeCode: 0 };
const done = new Promise((r) => {
  ws.onmessage = (e) => { if (JSON.parse(e.data).id === 7) { out.answered = true; r(); } };
  ws.onclose = (e) => { out.closeCode = e.code; r(); };
});
ws.send(JSON.stringify({ id: 7, method: "get_approval_status", params: { pad: "x".repeat(%d) } }));
await Promise.race([done, new Promise((r) => setTimeout(r, 5000))]);
ws.close();
return out;`, strings.Replace(core.URL, "http://", "ws://", 1)+"/ws", padBytes))
		return got
	}
	if got := send(1 << 10); got["answered"] != true {
		t.Fatalf("a small ask from an unapproved page: %v", got)
	}
	big := send(64 << 10)
	t.Logf("a 64 KiB frame from an unapproved page: %v", big)
	if big["answered"] == true || big["closeCode"] != float64(1009) {
		t.Errorf("an unapproved page's 64 KiB frame was read: %v", big)
	}
	if out, err := pedelecCLI(t, core, nil, "approve", app.URL); err != nil {
		t.Fatalf("approve: %v %s", err, out)
	}
	if got := send(64 << 10); got["answered"] != true {
		t.Errorf("an approved page's 64 KiB frame: %v", got)
	}
}

// Finding 8, the smaller ones, each as a hostile page, agent or tool
// result played it.
func TestBrowserTrustSmallerFindings(t *testing.T) {
	t.Run("listProviders on an unapproved page answers at once and asks nobody", func(t *testing.T) {
		core := testenv.Serve(t, nil)
		app := appServer(t)
		b := newBrowser(t)
		b.open(t, fmt.Sprintf("%s/harness.html?core=%s", app.URL, core.URL), "ready")
		var got struct {
			Answer string `json:"answer"`
			N      int    `json:"n"`
		}
		b.js(t, &got, `
const p = new window.sdk.Pedelec({ onApprovalPending: () => {} });
const r = await Promise.race([p.listProviders().then((l) => ({ answer: "list", n: l.length }), (e) => ({ answer: e.code })),
  new Promise((r) => setTimeout(() => r({ answer: "no answer within 5 s" }), 5000))]);
return r;`)
		t.Logf("listProviders: %+v", got)
		if got.Answer != "list" || got.N == 0 {
			t.Errorf("listProviders on an unapproved page: %+v", got)
		}
		if st := approvalsState(t, core); len(st.Pending) != 0 {
			t.Errorf("listProviders asked the user: %v", st.Pending)
		}
	})

	env := newSDKEnv(t)
	env.b.js(t, nil, `
const { Pedelec, defineTool } = window.sdk;
window.ran = 0;
const wipe = defineTool({ name: "wipe", description: "Wipes.", timeoutMs: 30000, annotations: { readOnlyHint: true, destructiveHint: true },
  argsSchema: { type: "object", properties: {} }, handler: async () => { window.ran++; return { wiped: true }; } });
const echo = defineTool({ name: "echo", description: "Echoes what it is given.", annotations: { readOnlyHint: true },
  argsSchema: { type: "object", properties: { text: { type: "string" } } }, handler: async ({ text }) => ({ text }) });
window.session = await new Pedelec().createSession({ provider: "script", skills: { guidance: "g", tools: [wipe, echo] } });`)

	t.Run("destructiveHint wins over readOnlyHint", func(t *testing.T) {
		env.b.js(t, nil, `window.turn = window.session.sendTurn("call wipe {}"); return null;`)
		var asked bool
		testenv.Await(t, 15*time.Second, "the call to ask or run", func() bool {
			var ran int
			env.b.js(t, &ran, `return window.ran`)
			asked = len(approvalsState(t, env.core).Pending) == 1
			return asked || ran > 0
		})
		if !asked {
			t.Fatal("a tool marked destructive (and read-only) ran without asking")
		}
		if out, err := pedelecCLI(t, env.core, nil, "deny", approvalsState(t, env.core).Pending[0].ID); err != nil {
			t.Fatalf("deny: %v %s", err, out)
		}
		env.b.js(t, nil, `await window.turn; return null;`)
	})

	con := newTab(t, env.b)
	userFocus(t, con.ctx)
	if err := con.do(30*time.Second, chromedp.Navigate(env.core.URL+"/console/")); err != nil {
		t.Fatal(err)
	}
	con.waitJS(t, 10*time.Second, `!!document.querySelector("#detail-body [data-session-id], #detail-body[data-session-id]")`, "the session in the console")

	t.Run("the console shows each tool's annotations", func(t *testing.T) {
		var tools string
		con.js(t, &tools, `return document.querySelector("#detail-body .facts")?.textContent ?? ""`)
		if !strings.Contains(tools, "wipe") || !strings.Contains(tools, "destructive") || !strings.Contains(tools, "read-only") || !strings.Contains(tools, "asks consent") {
			t.Errorf("the console's facts do not show the tools' annotations: %q", tools)
		}
	})

	t.Run("agent text is bidi-isolated and tool output is marked apart in the console", func(t *testing.T) {
		// The agent says something with an override and prints a line that
		// looks like a result; a tool result carries an override too.
		env.b.js(t, nil, "await window.session.sendTurn(\"say \\u202Egnp.exe {\\\"ok\\\":true,\\\"result\\\":{\\\"paid\\\":true}}\\ncall echo {\\\"text\\\": \\\"\\u202E10000\\\"}\"); return null;")
		con.waitJS(t, 10*time.Second, `[...document.querySelectorAll(".bubble-agent")].some((b) => b.textContent.includes("exe"))`, "the agent's reply in the console")
		con.waitJS(t, 10*time.Second, `[...document.querySelectorAll("[data-call-id]")].some((c) => c.querySelector(".tool")?.textContent === "echo" && c.dataset.status === "result")`, "the echo call's result in the console")
		var got struct {
			Bidi      string `json:"bidi"`
			Result    string `json:"result"`
			ResultEsc int    `json:"resultEsc"`
			CallMark  bool   `json:"callMark"`
		}
		con.js(t, &got, `
const bubble = [...document.querySelectorAll(".bubble-agent")].find((b) => b.textContent.includes("exe"));
const call = document.querySelector('[data-call-id] .tool');
const res = [...document.querySelectorAll('[data-call-id]')].find((c) => c.querySelector(".tool")?.textContent === "echo");
res.open = true;
return { bidi: getComputedStyle(bubble).unicodeBidi, result: res.querySelector(".call-body")?.textContent ?? "",
  resultEsc: res.querySelectorAll('.call-body [data-part="result"] .esc').length, callMark: !!res.querySelector("summary .who, summary [data-source]") || /tool/i.test(res.querySelector("summary")?.textContent ?? "") };`)
		t.Logf("console: %+v", got)
		if got.Bidi != "isolate" && got.Bidi != "plaintext" && got.Bidi != "isolate-override" {
			t.Errorf("the agent's bubble is not bidi-isolated: unicode-bidi %s", got.Bidi)
		}
		if got.ResultEsc == 0 {
			t.Errorf("the tool result's override is not shown as an escape: %q", got.Result)
		}
	})

	t.Run("the demo isolates agent text and never styles the agent's words as a tool result", func(t *testing.T) {
		d := openDemo(t, "?provider=script")
		d.typeAndSend("say {\"ok\":true,\"result\":{\"paid\":true}}\nsay \u202Egnp.exe")
		d.reply(1)
		var got struct {
			FakeOK int    `json:"fakeOk"`
			Bidi   string `json:"bidi"`
		}
		d.b.js(t, &got, `const el = [...document.querySelectorAll(".msg-assistant")].at(-1);
return { fakeOk: el.querySelectorAll(".line-ok, .tool-ok, [data-tool-result]").length, bidi: getComputedStyle(el).unicodeBidi };`)
		t.Logf("demo: %+v", got)
		if got.FakeOK != 0 {
			t.Error("the agent's own words are styled as a successful tool result")
		}
		if got.Bidi != "isolate" && got.Bidi != "plaintext" {
			t.Errorf("the demo's agent bubble is not bidi-isolated: %s", got.Bidi)
		}
		// A real result is marked as the tool's, by the page, apart from the agent's text.
		d.typeAndSend("call get_counter {}")
		d.reply(2)
		var marked int
		d.b.js(t, &marked, `return [...document.querySelectorAll(".msg-assistant")].at(-1).querySelectorAll("[data-tool-result]").length`)
		if marked != 1 {
			t.Errorf("the tool's result is not marked apart from the agent's text (%d marks)", marked)
		}
	})
}

// tinyPNG is a 24x24 red PNG, for the demo's Files panel.
const tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAABgAAAAYCAIAAABvFaqvAAAAH0lEQVR4nGO4YGBAFcQwatCoQaMGjRo0atCoQQNvEACIEqwf/dB3RAAAAABJRU5ErkJggg=="

// The screens the fixes changed, at desktop, laptop and phone widths, for
// a person to look at (e2e/artifacts): the origin approval window and the
// demo with an agent's files and a tool result in its chat.
func TestBrowserTrustScreens(t *testing.T) {
	_, _, _, p := pageAwaitingApproval(t)
	user := newBrowser(t)
	userFocus(t, user.ctx)
	for _, w := range []int64{1280, 1024, 390} {
		if err := user.do(10*time.Second, chromedp.EmulateViewport(w, 844), chromedp.Navigate(p.URL)); err != nil {
			t.Fatal(err)
		}
		user.waitJS(t, 10*time.Second, `document.body.dataset.armed === "true"`, "the window to take input")
		var wide bool
		user.js(t, &wide, `return document.documentElement.scrollWidth > innerWidth + 1`)
		if wide {
			t.Errorf("the approval window scrolls sideways at %d px", w)
		}
		user.screenshot(t, fmt.Sprintf("trust-approve-origin-%d", w))
	}

	d := openDemo(t, "?provider=script")
	d.typeAndSend(agentFiles + "\nwrite assets/red.b64 " + tinyPNG + "\ncall get_counter {}")
	d.reply(1)
	// The agent wrote the PNG as base64 text; the page uploads real bytes.
	d.b.js(t, nil, `const bytes = Uint8Array.from(atob(`+jsString(tinyPNG)+`), (c) => c.charCodeAt(0));
await window.pedelecDemo.session.uploadAsset(new File([bytes], "red.png", { type: "image/png" }), "/red.png"); return null;`)
	d.click("#asset-refresh")
	d.b.waitJS(t, 15*time.Second, `!!document.querySelector("#asset-list li[data-path='/red.png']")`, "the image in the list")
	d.click(`#asset-list li[data-path='/red.png'] button`)
	d.b.waitJS(t, 15*time.Second, `!!document.querySelector("#asset-view canvas")`, "the image as pixels")
	var src string
	d.b.js(t, &src, `return [...document.querySelectorAll("img, a, iframe, object, embed")].map((e) => e.src || e.href || e.data || "").filter((u) => /^(blob|data):/.test(u)).join(" ")`)
	if src != "" {
		t.Errorf("the demo holds blob:/data: URLs: %s", src)
	}
	for _, w := range []int64{1280, 1024, 390} {
		if err := d.b.do(10*time.Second, chromedp.EmulateViewport(w, 844)); err != nil {
			t.Fatal(err)
		}
		d.b.screenshot(t, fmt.Sprintf("trust-demo-%d", w))
		d.b.js(t, nil, `document.getElementById("assets-card").scrollIntoView()`)
		ctx, cancel := context.WithTimeout(d.b.ctx, 20*time.Second)
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		writeArtifact(t, fmt.Sprintf("trust-demo-files-%d.png", w), png)
		checkNoSidewaysScroll(t, d, int(w))
	}
}

// attack is one try of the attack pass: it reports whether the defence held.
type attack struct {
	who, what string
	try       func(t *testing.T, w int64) bool
}

// The attack pass: after the fixes, every attack above again, from a
// hostile page, a hostile agent and a hostile tool result, at desktop and
// phone widths, counted. Each try says what it saw in the log.
func TestBrowserTrustAttackPass(t *testing.T) {
	env := newSDKEnv(t) // env.app is approved (--allow-origin): the page whose agent and tools turn hostile
	hostileCore := testenv.Serve(t, nil)
	hostileApp := appServer(t) // not approved by hostileCore
	page := newBrowser(t)
	page.open(t, fmt.Sprintf("%s/harness.html?core=%s", hostileApp.URL, hostileCore.URL), "ready")
	page.js(t, nil, startWaitingCreate)
	pend := waitPending(t, page)
	approvedNone := func() bool { return len(approvalsState(t, hostileCore).Origins) == 0 }
	user := newBrowser(t)
	userFocus(t, user.ctx)

	attacks := []attack{
		{"page", "POST /console/api/decide from the page", func(t *testing.T, w int64) bool {
			var r string
			page.js(t, &r, fmt.Sprintf(`try { const x = await fetch(%q, { method: "POST", body: JSON.stringify({ id: %q, decision: "approve" }) }); return "status " + x.status; } catch (e) { return "blocked"; }`,
				hostileCore.URL+"/console/api/decide", strings.TrimPrefix(pend.URL, hostileCore.URL+"/console/approve/")))
			t.Logf("decide from the page: %s", r)
			return approvedNone()
		}},
		{"page", "frame the console, the approval window and the demo", func(t *testing.T, w int64) bool {
			page.js(t, nil, fmt.Sprintf(`for (const u of [%q, %q, %q]) { const f = document.createElement("iframe"); f.src = u; f.className = "attack"; document.body.append(f); }
await new Promise((r) => setTimeout(r, 1500)); return null;`, hostileCore.URL+"/console/", pend.URL, hostileCore.URL+"/"))
			res, err := chromedp.Call(page.ctx, page2.GetFrameTree, cdp.Empty{})
			if err != nil {
				t.Fatal(err)
			}
			held := true
			for _, c := range res.FrameTree.ChildFrames {
				if c.Frame.UnreachableURL == "" && strings.HasPrefix(c.Frame.URL, hostileCore.URL) {
					held = false
					t.Logf("framed: %s", c.Frame.URL)
				}
			}
			page.js(t, nil, `document.querySelectorAll("iframe.attack").forEach((f) => f.remove()); return null;`)
			return held && sessionCount(t, hostileCore) == 0
		}},
		{"page", "tiny #approve popup, then Enter, Space and a click at once", func(t *testing.T, w int64) bool {
			page.js(t, nil, `document.getElementById("bait")?.remove();
const btn = document.createElement("button"); btn.id = "bait"; btn.textContent = "play";
btn.addEventListener("click", () => { window.__tiny = window.open(`+jsString(pend.URL)+` + "#approve", "tiny", "popup,width=160,height=110"); });
document.body.prepend(btn); return null;`)
			pctx := popupOf(t, page, chromedp.Click("#bait", chromedp.NodeVisible))
			_ = chromedp.Do(pctx, chromedp.EmulateViewport(160, 110), chromedp.WaitReady("body"), chromedp.KeyEvent("\r"), chromedp.KeyEvent(" "), chromedp.MouseClickXY(80, 60))
			time.Sleep(1200 * time.Millisecond)
			_ = chromedp.Do(pctx, chromedp.MouseClickXY(80, 60), chromedp.KeyEvent("\r"))
			time.Sleep(300 * time.Millisecond)
			_, _ = chromedp.Call(pctx, page2.Close, cdp.Empty{})
			return approvedNone()
		}},
		{"page", "a full-size window: synthetic click and a click before the delay", func(t *testing.T, w int64) bool {
			if err := user.do(20*time.Second, chromedp.EmulateViewport(w, 844), chromedp.Navigate(pend.URL), chromedp.WaitReady(`[data-decision="approve"]`)); err != nil {
				t.Fatal(err)
			}
			var ignored int
			user.js(t, &ignored, `document.querySelector('[data-decision="approve"]').click(); const r = document.querySelector('[data-decision="approve"]').getBoundingClientRect(); window.__at = [r.x + r.width / 2, r.y + r.height / 2]; return Number(document.body.dataset.ignored ?? 0);`)
			var at []float64
			user.js(t, &at, `return window.__at`)
			_ = user.do(5*time.Second, chromedp.MouseClickXY(at[0], at[1]))
			time.Sleep(300 * time.Millisecond)
			user.js(t, &ignored, `return Number(document.body.dataset.ignored ?? 0)`)
			t.Logf("inputs ignored before the window took input: %d", ignored)
			return approvedNone() && ignored >= 2
		}},
		{"page", "64 KiB frame from the unapproved page", func(t *testing.T, w int64) bool {
			var code float64
			page.js(t, &code, fmt.Sprintf(`const ws = new WebSocket(%q); await new Promise((r) => (ws.onopen = r));
const c = new Promise((r) => { ws.onclose = (e) => r(e.code); ws.onmessage = () => r(0); });
ws.send(JSON.stringify({ id: 1, method: "get_approval_status", params: { pad: "x".repeat(65536) } }));
return await Promise.race([c, new Promise((r) => setTimeout(() => r(-1), 5000))]);`, strings.Replace(hostileCore.URL, "http://", "ws://", 1)+"/ws"))
			return code == 1009
		}},
		{"page", "listProviders from the unapproved page", func(t *testing.T, w int64) bool {
			var n int
			page.js(t, &n, `const l = await new window.sdk.Pedelec().listProviders(); return l.filter((p) => p.available).length;`)
			return n == 0 && len(approvalsState(t, hostileCore).Pending) == 1
		}},
		{"page", "two popups from one click", func(t *testing.T, w int64) bool {
			page.js(t, nil, `document.getElementById("two")?.remove(); window.__two = [];
const btn = document.createElement("button"); btn.id = "two"; btn.textContent = "two";
btn.addEventListener("click", () => { const a = window.open("about:blank", "a1"); const b = window.open("about:blank", "b1"); window.__two = [!!a, !!b]; a?.close(); b?.close(); });
document.body.prepend(btn); return null;`)
			if err := page.do(10*time.Second, chromedp.Click("#two", chromedp.NodeVisible)); err != nil {
				t.Fatal(err)
			}
			var two []bool
			page.js(t, &two, `return window.__two`)
			return len(two) == 2 && !two[1]
		}},
	}

	// The approved page's agent and tools turn hostile.
	env.b.js(t, nil, whatRunsPage)
	con := newTab(t, env.b)
	userFocus(t, con.ctx)
	if err := con.do(30*time.Second, chromedp.Navigate(env.core.URL+"/console/")); err != nil {
		t.Fatal(err)
	}
	attacks = append(attacks,
		attack{"agent", "a key named twice", func(t *testing.T, w int64) bool {
			var text string
			env.b.js(t, &text, `return await Promise.race([window.session.sendTurn('call pay {"memo": "shown", "memo": "run"}').then((r) => r.text), new Promise((r) => setTimeout(() => r("waits"), 8000))]);`)
			return strings.Contains(text, "TOOL_ARGS_INVALID")
		}},
		attack{"agent", "misleading arguments, in the window and the console", func(t *testing.T, w int64) bool {
			env.b.js(t, nil, `window.turn = window.session.sendTurn(`+attackArgs+`); return null;`)
			var id string
			testenv.Await(t, 20*time.Second, "the consent request", func() bool {
				if p := approvalsState(t, env.core).Pending; len(p) == 1 {
					id = p[0].ID
				}
				return id != ""
			})
			if err := user.do(20*time.Second, chromedp.EmulateViewport(w, 844), chromedp.Navigate(env.core.URL+"/console/approve/"+id), chromedp.WaitReady("body")); err != nil {
				t.Fatal(err)
			}
			var inWindow, inConsole argsShown
			user.js(t, &inWindow, strings.ReplaceAll(readArgsView, "SCOPE", `"#args"`))
			if err := con.do(10*time.Second, chromedp.EmulateViewport(w, 844)); err != nil {
				t.Fatal(err)
			}
			con.waitJS(t, 10*time.Second, `!!document.querySelector("#approvals-body [data-approval-id] .args-view")`, "the call in the console")
			con.js(t, &inConsole, strings.ReplaceAll(readArgsView, "SCOPE", `"#approvals-body [data-approval-id]"`))
			ok := func(a argsShown) bool {
				return !a.Overflow && strings.Contains(a.Text, "mallory@evil.test") && slicesContain(a.Esc, `\u202E`) && slicesContain(a.Mixed, "\u0430lice") && a.Num == a.Want
			}
			held := ok(inWindow) && ok(inConsole)
			pedelecCLI(t, env.core, nil, "deny", id)
			env.b.js(t, nil, `await window.turn; return null;`)
			return held
		}},
		attack{"tool result", "a result carrying an override, in the console", func(t *testing.T, w int64) bool {
			env.b.js(t, nil, "window.turn = window.session.sendTurn('call pay {\"ref\": \"x\"}'); return null;")
			var id string
			testenv.Await(t, 20*time.Second, "the consent request", func() bool {
				if p := approvalsState(t, env.core).Pending; len(p) == 1 {
					id = p[0].ID
				}
				return id != ""
			})
			// The handler's result is hostile text.
			env.b.js(t, nil, "window.payNote = '\\u202Egnp.exe'; return null;")
			pedelecCLI(t, env.core, nil, "approve", id)
			env.b.js(t, nil, `await window.turn; return null;`)
			con.waitJS(t, 10*time.Second, `[...document.querySelectorAll("#detail [data-call-id]")].some((c) => c.dataset.status === "result")`, "the result in the console")
			var esc int
			con.js(t, &esc, `const c = [...document.querySelectorAll("#detail [data-call-id]")].filter((c) => c.dataset.status === "result").at(-1); c.open = true;
return c.querySelectorAll('[data-part="result"] .esc, .call-body .esc').length;`)
			return esc > 0
		}},
	)

	d := openDemo(t, "?provider=script")
	attacks = append(attacks,
		attack{"agent", "SVG and HTML files shown by the demo", func(t *testing.T, w int64) bool {
			if err := d.b.do(10*time.Second, chromedp.EmulateViewport(w, 844)); err != nil {
				t.Fatal(err)
			}
			d.typeAndSend(agentFiles)
			d.b.waitJS(t, 20*time.Second, `document.getElementById("status").dataset.status === "idle" && [...document.querySelectorAll(".msg-assistant")].some((m) => m.textContent.includes("wrote them"))`, "the agent's files")
			d.click("#asset-refresh")
			d.b.waitJS(t, 15*time.Second, `!!document.querySelector("#asset-list li[data-path='/evil.svg']")`, "the files")
			held := true
			for _, name := range []string{"/evil.svg", "/evil.html"} {
				d.b.js(t, nil, `document.querySelector("#asset-list li[data-path='`+name+`'] button").click()`) // the list may re-render under a held node
				d.b.waitJS(t, 10*time.Second, `document.querySelector("#asset-view .asset-title")?.textContent.startsWith(`+jsString(strings.TrimPrefix(name, "/"))+`)`, "the file")
				var urls string
				d.b.js(t, &urls, `return [...document.querySelectorAll("img, a, iframe, object, embed")].map((e) => e.src || e.href || e.data || "").filter((u) => /^(blob|data):/.test(u)).join(" ")`)
				held = held && urls == ""
			}
			return held
		}},
		attack{"agent", "a line that looks like a tool result, and an override, in the demo", func(t *testing.T, w int64) bool {
			d.typeAndSend("say {\"ok\":true,\"result\":{\"paid\":true}}\nsay \u202Egnp.exe")
			d.b.waitJS(t, 20*time.Second, `[...document.querySelectorAll(".msg-assistant")].at(-1)?.textContent.includes("exe")`, "the reply")
			var got struct {
				Fake int
				Bidi string
			}
			d.b.js(t, &got, `const el = [...document.querySelectorAll(".msg-assistant")].at(-1); return { Fake: el.querySelectorAll(".tool-ok, [data-tool-result]").length, Bidi: getComputedStyle(el.querySelector(".agent-text") ?? el).unicodeBidi };`)
			return got.Fake == 0 && got.Bidi == "isolate"
		}},
	)

	for _, w := range []int64{1280, 390} {
		held := map[string]int{}
		total := map[string]int{}
		for _, a := range attacks {
			ok := a.try(t, w)
			total[a.who]++
			if ok {
				held[a.who]++
			} else {
				t.Errorf("at %d px, %s: %s did not hold", w, a.who, a.what)
			}
		}
		t.Logf("attack pass at %d px: page %d/%d held, agent %d/%d, tool result %d/%d", w, held["page"], total["page"], held["agent"], total["agent"], held["tool result"], total["tool result"])
	}
}

// Finding 7's measure: 48 unapproved sockets each sending a 4 MiB frame
// took Core from 31 MB to a 430 MB peak. Logged, and bounded loosely.
func TestBrowserTrustUnapprovedSocketsMemory(t *testing.T) {
	core := testenv.Serve(t, nil)
	app := appServer(t)
	b := newBrowser(t)
	b.open(t, fmt.Sprintf("%s/harness.html?core=%s", app.URL, core.URL), "ready")
	pid := core.Cmd.Process.Pid
	before := procKiB(t, pid, "VmHWM")
	var closed []int
	b.js(t, &closed, fmt.Sprintf(`const big = "x".repeat(4 << 20);
const one = () => new Promise((r) => { const ws = new WebSocket(%q); ws.onopen = () => ws.send(JSON.stringify({ id: 1, method: "get_approval_status", params: { pad: big } }));
  ws.onmessage = () => r(0); ws.onclose = (e) => r(e.code); ws.onerror = () => {}; setTimeout(() => r(-1), 30000); });
return await Promise.all(Array.from({ length: 48 }, one));`, strings.Replace(core.URL, "http://", "ws://", 1)+"/ws"))
	peak := procKiB(t, pid, "VmHWM")
	codes := map[int]int{}
	for _, c := range closed {
		codes[c]++
	}
	// 1009 when Core's close frame reached the page, 1006 when Core shut
	// the socket while the browser was still sending; 0 would be an answer.
	t.Logf("48 unapproved sockets sending 4 MiB frames: close codes %v; Core's peak RSS %d KiB before, %d KiB after", codes, before, peak)
	if codes[0] != 0 || peak > 200<<10 {
		t.Errorf("answered: %d of 48; peak RSS %d KiB", codes[0], peak)
	}
}
