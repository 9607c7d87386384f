package e2e

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// pedelecCLI runs one approvals command against core with env added.
func pedelecCLI(t *testing.T, core *testenv.Server, env []string, command string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(testenv.Binary(t), append([]string{command, "--core-url", core.URL, "--state-dir", core.StateDir}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// startWaitingCreate starts createSession on the page without a user
// gesture (so Chromium blocks the approval window) and records what the
// SDK reports.
const startWaitingCreate = `
window.__pending = []; window.__res = null;
const { Pedelec } = window.sdk;
window.__p = new Pedelec({ onApprovalPending: (x) => window.__pending.push({ url: x.url, origin: x.origin, code: x.error?.code ?? "", detailsUrl: x.error?.details?.url ?? "" }) });
window.__p.createSession({ provider: "script", autoEndOnDisconnect: true, skills: { guidance: "g", tools: [] } })
  .then((s) => { window.__s = s; window.__res = { ok: s.sessionId }; }, (e) => { window.__res = { code: e.code, message: e.message }; });
return null;`

type pendingSeen struct {
	URL, Origin, Code, DetailsURL string
}

// pageAwaitingApproval is where the approval tests start: Core, an app page
// of another origin, and that page's createSession waiting for the user.
func pageAwaitingApproval(t *testing.T) (*testenv.Server, *httptest.Server, *browser, pendingSeen) {
	t.Helper()
	core := testenv.Serve(t, nil)
	app := appServer(t)
	b := newBrowser(t)
	b.open(t, fmt.Sprintf("%s/harness.html?core=%s", app.URL, core.URL), "ready")
	b.js(t, nil, startWaitingCreate)
	return core, app, b, waitPending(t, b)
}

func waitPending(t *testing.T, b *browser) pendingSeen {
	t.Helper()
	b.waitJS(t, 20*time.Second, "window.__pending && window.__pending.length > 0", "the SDK reporting the approval it waits for")
	var got []pendingSeen
	b.js(t, &got, "return window.__pending")
	return got[0]
}

func pageResult(t *testing.T, b *browser) map[string]string {
	t.Helper()
	b.waitJS(t, 30*time.Second, "window.__res !== null", "createSession to settle")
	var res map[string]string
	b.js(t, &res, "return window.__res")
	return res
}

// Issue 22: an unapproved page's createSession waits; the browser blocks
// the window (no click here), the SDK says OPEN_POPUP_FAILED with the URL;
// the user opens that URL and approves; the waiting call continues. The
// grant is listed, survives a restart, and revoking it ends the session.
func TestBrowserOriginApprovalWindow(t *testing.T) {
	core, app, b, p := pageAwaitingApproval(t)
	if p.Code != string(wire.CodeOpenPopupFailed) || p.DetailsURL != p.URL || !strings.HasPrefix(p.URL, core.URL+"/console/approve/ap_") || p.Origin != app.URL {
		t.Fatalf("pending = %+v", p)
	}
	time.Sleep(300 * time.Millisecond)
	var res any
	b.js(t, &res, "return window.__res")
	if res != nil {
		t.Fatalf("createSession settled before the user decided: %v", res)
	}
	// The user opens the URL in their own browser window and approves.
	user := newBrowser(t)
	if err := user.do(30*time.Second, chromedp.Navigate(p.URL)); err != nil {
		t.Fatal(err)
	}
	var shown string
	user.js(t, &shown, `return document.getElementById("origin").textContent`)
	if shown != app.URL {
		t.Fatalf("the approval window shows %q", shown)
	}
	decideIn(t, user.ctx, "", "approve")
	if r := pageResult(t, b); r["ok"] == "" {
		t.Fatalf("createSession after approval: %v", r)
	}
	out, err := pedelecCLI(t, core, nil, "approvals", "--format", "json")
	var st wire.ApprovalsState
	if err != nil || json.Unmarshal([]byte(out), &st) != nil || len(st.Origins) != 1 || st.Origins[0].Origin != app.URL || st.Origins[0].By != "console" {
		t.Fatalf("approvals: %v %s", err, out)
	}
	// Revocation ends the origin's live session.
	if out, err := pedelecCLI(t, core, nil, "revoke", app.URL); err != nil {
		t.Fatalf("revoke: %v %s", err, out)
	}
	b.waitJS(t, 10*time.Second, `window.__s.getStatus() === "ended"`, "the revoked origin's session to end")
	// Now unapproved again: another createSession waits anew.
	b.js(t, nil, startWaitingCreate)
	if p2 := waitPending(t, b); p2.URL == p.URL {
		t.Fatal("the old request was reused")
	}
}

// Rejected from the terminal with a reason; timed out; approved from the
// terminal after a blocked window; and neither the page nor an agent can
// approve.
func TestBrowserOriginApprovalRejectTimeoutCLI(t *testing.T) {
	// No cooldown after the rejection, so the same page can go on to time
	// out (TestBrowserTrustRejectedSiteWaits checks the cooldown itself).
	core := testenv.Serve(t, []string{"--origin-approval-timeout", "8s", "--origin-reject-cooldown", "0s"})
	app := appServer(t)
	b := newBrowser(t)
	b.open(t, fmt.Sprintf("%s/harness.html?core=%s", app.URL, core.URL), "ready")

	// Rejected.
	b.js(t, nil, startWaitingCreate)
	p := waitPending(t, b)
	if out, err := pedelecCLI(t, core, nil, "deny", "--reason", "not today", app.URL); err != nil {
		t.Fatalf("deny: %v %s", err, out)
	}
	if r := pageResult(t, b); r["code"] != string(wire.CodeApprovalRejected) || !strings.Contains(r["message"], "not today") {
		t.Fatalf("rejected: %v", r)
	}

	// Timed out.
	b.js(t, nil, startWaitingCreate)
	waitPending(t, b)
	if r := pageResult(t, b); r["code"] != string(wire.CodeApprovalTimeout) {
		t.Fatalf("timed out: %v", r)
	}

	// The page tries to approve itself while it waits: fetch with and
	// without a token, a form post, and framing the approval window.
	b.js(t, nil, startWaitingCreate)
	p = waitPending(t, b)
	id := p.URL[strings.LastIndex(p.URL, "/")+1:]
	var attempts map[string]string
	b.js(t, &attempts, fmt.Sprintf(`
const core = %q, id = %q, url = %q;
const out = {};
for (const [name, headers] of [["fetch", {"Content-Type": "application/json"}], ["fetchToken", {"Content-Type": "application/json", "X-Pedelec-Approver": "pa_guess", "Authorization": "Bearer pa_guess"}]]) {
  try {
    const r = await fetch(core + "/console/api/decide", { method: "POST", headers, body: JSON.stringify({ id, decision: "approve" }) });
    out[name] = "read " + r.status;
  } catch (e) { out[name] = "blocked"; }
}
try {
  const r = await fetch(core + "/console/api/decide", { method: "POST", mode: "no-cors", body: JSON.stringify({ id, decision: "approve" }) });
  out.noCors = r.type;
} catch (e) { out.noCors = "blocked"; }
const f = document.createElement("form");
f.method = "POST"; f.action = core + "/console/api/decide"; f.target = "sink";
const inp = document.createElement("input"); inp.name = "id"; inp.value = id; f.appendChild(inp);
const sink = document.createElement("iframe"); sink.name = "sink"; document.body.appendChild(sink);
document.body.appendChild(f); f.submit();
const frame = document.createElement("iframe"); frame.src = url; document.body.appendChild(frame);
await new Promise((r) => setTimeout(r, 1500));
try { out.frame = frame.contentDocument ? "readable" : "opaque"; } catch (e) { out.frame = "opaque"; }
const w = window.open(url);
out.window = w ? "opened" : "blocked";
return out;`, core.URL, id, p.URL))
	if attempts["frame"] != "opaque" {
		t.Errorf("the page could read a framed approval window: %v", attempts)
	}
	var res any
	b.js(t, &res, "return window.__res")
	if res != nil {
		t.Fatalf("the page approved itself (%v): %v", attempts, res)
	}
	// An agent's process may not approve: refused by the CLI and by Core.
	if out, err := pedelecCLI(t, core, []string{"PEDELEC_AGENT_SECRET=x", "PEDELEC_THREAD_ID=s_1"}, "approve", app.URL); err == nil || !strings.Contains(out, "APPROVER_NOT_ALLOWED") {
		t.Fatalf("an agent approved: %v %s", err, out)
	}
	var still any
	b.js(t, &still, "return window.__res")
	if still != nil {
		t.Fatalf("settled after the refused attempts: %v", still)
	}
	// The user approves from the terminal: the waiting call continues.
	if out, err := pedelecCLI(t, core, nil, "approve", app.URL); err != nil {
		t.Fatalf("approve: %v %s", err, out)
	}
	if r := pageResult(t, b); r["ok"] == "" {
		t.Fatalf("after pedelec approve: %v (attempts %v)", r, attempts)
	}
	t.Logf("self-approval attempts: %v", attempts)
}
