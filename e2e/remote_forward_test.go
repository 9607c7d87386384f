package e2e

// Core on a dev box, the browser on a laptop, through real forwards: a
// real sshd and `ssh -L` in front of Core, and nginx as an HTTPS proxy
// with names of its own in front of Core and of the app, standing in for
// an editor's or Codespaces' forward (Chromium maps the names to loopback
// and trusts exactly the proxy's certificate). Through each: a page of
// another origin asks for approval with a link that works through the
// forward, is approved, creates a session and makes calls; through ssh the
// forward is cut and restored and the session resumes; through the proxy
// an idle connection outlives the proxy's read timeout thanks to Core's
// pings, and every other Host stays refused.

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// forwardedApp is what the page does through a forward: wrap WebSocket to
// count connections, then create a session at core's WebSocket URL with
// one tool, waiting for the approval its origin needs.
const forwardedApp = `
window.__opens = 0;
const Native = WebSocket;
window.WebSocket = class extends Native { constructor(...a) { super(...a); window.__opens++; } };
window.__pending = [];
window.__value = 0;
const { Pedelec, defineTool } = window.sdk;
const big = defineTool({
  name: "big_result", description: "Answer n KiB of text.",
  argsSchema: { type: "object", properties: { kib: { type: "integer" } }, required: ["kib"] },
  handler: (args) => ({ text: "x".repeat(args.kib * 1024) }),
});
const bump = defineTool({
  name: "update_counter", description: "Add delta to the counter.",
  argsSchema: { type: "object", properties: { delta: { type: "integer" } }, required: ["delta"] },
  handler: (args) => ({ value: (window.__value += args.delta) }),
});
window.__p = new Pedelec({ url: %q, onApprovalPending: (x) => window.__pending.push(x.url) });
window.__p.createSession({ provider: "script", autoEndOnDisconnect: false, skills: { guidance: "g", tools: [bump, big] } })
  .then((s) => { window.__s = s; window.__rec = window.h.record(s); }, (e) => { window.__err = e.code + ": " + e.message; });
return null;`

// approveThrough waits for the page's approval link, checks that it points
// through the forward at base, opens it there (it must load through the
// forward) and approves the origin from the dev box's terminal.
func approveThrough(t *testing.T, b *browser, core *testenv.Server, client *http.Client, base, origin string) {
	t.Helper()
	var link string
	testenv.Await(t, 20*time.Second, "the page's approval link", func() bool {
		var got []string
		b.js(t, &got, `return window.__pending`)
		if len(got) > 0 {
			link = got[0]
		}
		return link != ""
	})
	if !strings.HasPrefix(link, base+"/console/approve/") {
		t.Fatalf("the approval link is %q: it does not go through the forward at %s", link, base)
	}
	resp, err := client.Get(link)
	if err != nil {
		t.Fatalf("the approval window through the forward: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), origin) {
		t.Fatalf("the approval window through the forward: %s\n%.400s", resp.Status, body)
	}
	if out, err := pedelecCLI(t, core, nil, "approve", origin); err != nil {
		t.Fatalf("pedelec approve %s: %v\n%s", origin, err, out)
	}
	b.waitJS(t, 20*time.Second, `!!window.__s || !!window.__err`, "the session after approval")
	var failed string
	b.js(t, &failed, `return window.__err || ""`)
	if failed != "" {
		t.Fatalf("createSession through the forward: %s", failed)
	}
}

// callThrough has the agent (the script provider, on the dev box) call the
// page's tool and checks the page's answer came back.
func callThrough(t *testing.T, b *browser, delta, want int) {
	t.Helper()
	var text string
	b.js(t, &text, fmt.Sprintf(`return (await window.__s.sendTurn('call update_counter {"delta": %d}')).text`, delta))
	lines := agentLines(t, text)
	if len(lines) != 1 || !lines[0].OK || !strings.Contains(string(lines[0].Result), fmt.Sprintf(`"value":%d`, want)) {
		t.Fatalf("the agent's call through the forward: %s", text)
	}
}

func TestRemoteSSHForward(t *testing.T) {
	testenv.SkipShort(t, "sshd, chromium and the real binary")
	ssh := startSSHD(t)
	core := testenv.Serve(t, nil) // on the "dev box"
	_, corePortText, _ := strings.Cut(core.Addr, ":")
	var corePort int
	fmt.Sscan(corePortText, &corePort)
	local := freePort(t) // the "laptop's" end of the forward
	fwd := ssh.forward(t, local, corePort)
	base := fmt.Sprintf("http://127.0.0.1:%d", local)

	app := appServer(t) // the app, reached on the laptop at its own origin
	b := newBrowser(t)
	b.open(t, app.URL+"/harness.html?core="+base, "ready")
	b.js(t, nil, fmt.Sprintf(forwardedApp, "ws://127.0.0.1:"+fmt.Sprint(local)+"/ws"))
	approveThrough(t, b, core, http.DefaultClient, base, app.URL)
	callThrough(t, b, 2, 2)

	// The forward drops (the laptop sleeps, Wi-Fi changes) and comes back:
	// the SDK reconnects through it and resumes the same session.
	var before string
	b.js(t, &before, `return window.__s.sessionId`)
	fwd.cut()
	b.waitJS(t, 20*time.Second, `window.__rec.statuses.some((s) => s.status === "error")`, "the page to notice the forward is gone")
	ssh.forward(t, local, corePort)
	b.waitJS(t, 60*time.Second, `window.__s.getStatus() === "idle" && window.__opens >= 2`, "the session back through the restored forward")
	var after string
	b.js(t, &after, `return window.__s.sessionId`)
	if after != before {
		t.Fatalf("a new session %s after the forward came back; want %s resumed", after, before)
	}
	callThrough(t, b, 3, 5)
	b.screenshot(t, "remote-ssh-forward")
}

func TestRemoteHTTPSForwardWithPublicURL(t *testing.T) {
	testenv.SkipShort(t, "nginx, chromium and the real binary")
	proxyPort := freePort(t)
	public := fmt.Sprintf("https://devbox.test:%d", proxyPort)
	appOrigin := fmt.Sprintf("https://app.devbox.test:%d", proxyPort)
	coreAddr := testenv.FreeAddr(t)
	_, corePortText, _ := strings.Cut(coreAddr, ":")
	var corePort int
	fmt.Sscan(corePortText, &corePort)
	app := appServer(t)
	_, appPortText, _ := strings.Cut(strings.TrimPrefix(app.URL, "http://"), ":")
	var appPort int
	fmt.Sscan(appPortText, &appPort)

	// nginx closes a connection idle for 3 s; Core pings every second.
	proxy := startNginx(t, proxyPort, map[string]int{"devbox.test": corePort, "app.devbox.test": appPort, "other.devbox.test": corePort}, corePort, 3*time.Second)
	core := testenv.ServeIn(t, coreAddr, t.TempDir(), []string{"--public-url", public, "--ping-interval", "1s"})
	// The Go client reaches the names as Chromium does: mapped to
	// loopback, trusting the proxy's certificate only.
	dialTo := fmt.Sprintf("127.0.0.1:%d", proxyPort)
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: proxy.caPool},
		DialContext:     (&mapDialer{to: dialTo}).DialContext,
	}}

	b := newBrowserWith(t,
		chromedp.Flag("host-resolver-rules", "MAP devbox.test 127.0.0.1, MAP app.devbox.test 127.0.0.1, MAP other.devbox.test 127.0.0.1"),
		chromedp.Flag("ignore-certificate-errors-spki-list", proxy.spki),
	)

	// Core's own pages through the forward: the demo and the console load
	// and work, as Core's own origin.
	if err := b.do(30*time.Second, chromedp.Navigate(public+"/console/")); err != nil {
		t.Fatal(err)
	}
	b.waitJS(t, 20*time.Second, `document.getElementById("core-url")?.textContent !== ""`, "the console's feed through the forward")
	b.screenshot(t, "remote-https-console")

	// A page of the app, also through the forward, is another origin: it
	// asks, with a link through the forward, and is approved.
	b.open(t, appOrigin+"/harness.html?core="+public, "ready")
	b.js(t, nil, fmt.Sprintf(forwardedApp, "wss://devbox.test:"+fmt.Sprint(proxyPort)+"/ws"))
	approveThrough(t, b, core, client, public, appOrigin)
	callThrough(t, b, 2, 2)

	// Idle for longer than the proxy's read timeout: Core's pings keep the
	// WebSocket open, so the page never had to reconnect.
	time.Sleep(8 * time.Second)
	callThrough(t, b, 1, 3)
	var opens int
	b.js(t, &opens, `return window.__opens`)
	if opens != 1 {
		t.Errorf("the page opened %d WebSockets through the proxy; Core's pings should keep one alive past its 3 s read timeout", opens)
	}

	// A 1 MiB answer crosses the proxy as one WebSocket frame, unchanged:
	// the agent gets it (as a result file, being over the inline limit).
	var bigText string
	b.js(t, &bigText, `return (await window.__s.sendTurn('call big_result {"kib": 1024}')).text`)
	if lines := agentLines(t, bigText); len(lines) != 1 || !lines[0].OK {
		t.Fatalf("a 1 MiB result through the proxy: %.300s", bigText)
	}

	// A second forward to Core that Core was not told of: the page's SDK
	// says Core refuses that name and how to tell it.
	var refused struct{ Code, Message string }
	b.js(t, &refused, fmt.Sprintf(`
const p = new window.sdk.Pedelec({ url: "wss://other.devbox.test:%d/ws" });
const a = await p.checkAvailability();
return { code: a.error?.code ?? "", message: a.error?.message ?? "" };`, proxyPort))
	if refused.Code != "HOST_NOT_ALLOWED" || !strings.Contains(refused.Message, fmt.Sprintf("--public-url https://other.devbox.test:%d", proxyPort)) {
		t.Errorf("Core reached by a name it was not told of: %+v", refused)
	}

	// Every other name is refused, through the proxy (its default server
	// passes the Host on) and at Core directly.
	for _, host := range []string{"evil.test", "devbox.test.evil.io"} {
		req, _ := http.NewRequest("GET", "https://"+host+":"+fmt.Sprint(proxyPort)+"/healthz", nil)
		tlsClient := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DialContext: (&mapDialer{to: dialTo}).DialContext}}
		resp, err := tlsClient.Do(req)
		if err != nil {
			t.Fatalf("%s through the proxy: %v", host, err)
		}
		var res wire.AgentResult
		json.NewDecoder(resp.Body).Decode(&res)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || res.Error == nil || res.Error.Code != wire.CodeHostNotAllowed {
			t.Errorf("Host %s through the proxy: %s %+v; want 403 HOST_NOT_ALLOWED", host, resp.Status, res.Error)
		}
	}
}
