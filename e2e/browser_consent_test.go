package e2e

// Call consent (issue 22, item 2) in real Chromium: a page declares a
// consequential tool and one that needs approval; its agent (the script
// provider, through the real `pedelec tool-call`) calls them. Each call
// waits in waiting_approval, which the page's onStatus shows, and runs
// only when the user approves it: by clicking in the console, or with
// `pedelec approve|deny`. A denial reaches the agent as TOOL_CALL_DENIED
// with the user's reason, a call nobody answers as TOOL_CONSENT_TIMEOUT,
// and in neither case does the handler run. "Allow for this session"
// lets the next call of the tool run without asking. And the page itself,
// approved as it is, cannot approve the call it waits on (issue 22,
// item 4; docs/security.md lists the attempts).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// consentPage defines the tools and a session, and records every status
// the page sees and every handler run.
const consentPage = `
const { Pedelec, defineTool } = window.sdk;
window.runs = { pay: 0, wipe: 0 };
window.statuses = [];
const pay = defineTool({
  name: "pay", description: "Pays an amount.", timeoutMs: 30000,
  annotations: { consequentialHint: true, title: "Pay" },
  argsSchema: { type: "object", properties: { amount: { type: "integer" } }, required: ["amount"] },
  handler: async ({ amount }) => { window.runs.pay++; return { paid: amount }; },
});
const wipe = defineTool({
  name: "wipe", description: "Wipes everything.", timeoutMs: 2000, needsApproval: true,
  argsSchema: { type: "object", properties: {}, required: [] },
  handler: async () => { window.runs.wipe++; return { wiped: true }; },
});
const session = await new Pedelec().createSession({ provider: "script", skills: { guidance: "Pays.", tools: [pay, wipe] } });
session.onStatus((status, ctx) => window.statuses.push({ status: ctx.detailedStatus, five: status, waitingOn: ctx.waitingOn }));
window.session = session;`

type consentStatus struct {
	Status    string
	Five      string
	WaitingOn []struct{ ToolRequestID, Tool, ApprovalID string }
}

// awaitWaitingApproval waits until the page's onStatus reports
// waiting_approval for tool and returns the call's approval id.
func awaitWaitingApproval(t *testing.T, b *browser, tool string) string {
	t.Helper()
	b.waitJS(t, 20*time.Second, `window.statuses.some((s) => s.status === "waiting_approval" && s.waitingOn.some((w) => w.tool === "`+tool+`"))`,
		"the page to see waiting_approval for "+tool)
	var st consentStatus
	b.js(t, &st, `return window.statuses.findLast((s) => s.status === "waiting_approval");`)
	// The original's five statuses: a call waiting for consent is a call the agent waits on.
	if st.Five != "waiting_tool_result" {
		t.Fatalf("getStatus()'s value while waiting for consent = %q, want waiting_tool_result", st.Five)
	}
	if len(st.WaitingOn) != 1 || st.WaitingOn[0].Tool != tool || !strings.HasPrefix(st.WaitingOn[0].ApprovalID, "ap_") {
		t.Fatalf("waiting_approval: %+v", st)
	}
	return st.WaitingOn[0].ApprovalID
}

func TestBrowserConsent(t *testing.T) {
	env := newSDKEnv(t)
	app := env.b
	app.js(t, nil, consentPage)
	con := newTab(t, app)
	if err := con.do(30*time.Second, chromedp.Navigate(env.core.URL+"/console/")); err != nil {
		t.Fatal(err)
	}
	con.waitJS(t, 10*time.Second, `document.getElementById("live").textContent === "live"`, "the console's first snapshot")

	runs := func() map[string]int {
		var r map[string]int
		app.js(t, &r, `return window.runs;`)
		return r
	}
	turn := func(text string) string {
		var out string
		app.js(t, &out, `window.statuses = []; return (await window.session.sendTurn(`+jsString(text)+`)).text;`)
		return out
	}

	t.Run("approved in the console", func(t *testing.T) {
		app.js(t, nil, `window.statuses = []; window.turn = window.session.sendTurn("call pay {\"amount\":5}");`)
		id := awaitWaitingApproval(t, app, "pay")
		if r := runs(); r["pay"] != 0 {
			t.Fatalf("the handler ran before the user approved: %v", r)
		}
		// The console lists it with its buttons; the session shows the status.
		sel := `[data-approval-id="` + id + `"]`
		con.waitJS(t, 5*time.Second, `!!document.querySelector('`+sel+`')`, "the pending call in the console")
		con.waitJS(t, 5*time.Second, `!!document.querySelector('#detail [data-waiting-approval="`+id+`"]')`, "the session's detail to say the call waits")
		var shown struct{ Text, Buttons, Status string }
		con.js(t, &shown, `const a = document.querySelector('`+sel+`');
return { Text: a.textContent, Buttons: [...a.querySelectorAll("button")].map((b) => b.textContent).join("|"),
  Status: document.querySelector("[data-session-id]").dataset.status };`)
		if !strings.Contains(shown.Text, "pay") || !strings.Contains(shown.Text, `"amount": 5`) || shown.Buttons != "Approve pay|Deny pay|Allow pay for this session" || shown.Status != "waiting_approval" {
			t.Errorf("the console shows %+v", shown)
		}
		con.screenshot(t, "console-consent-1280")
		decideIn(t, con.ctx, sel, "approve")
		var text string
		app.js(t, &text, `return (await window.turn).text;`)
		if !strings.Contains(text, `"paid":5`) || runs()["pay"] != 1 {
			t.Fatalf("after approval the agent saw %q, runs %v", text, runs())
		}
		con.waitJS(t, 5*time.Second, `[...document.querySelectorAll("#detail [data-call-id] .meta")].some((m) => m.textContent.includes("approved by console"))`,
			"the console to say who approved the call")
	})

	t.Run("denied with pedelec deny --reason", func(t *testing.T) {
		app.js(t, nil, `window.statuses = []; window.turn = window.session.sendTurn("call pay {\"amount\":700}");`)
		id := awaitWaitingApproval(t, app, "pay")
		if out, err := pedelecCLI(t, env.core, nil, "deny", id, "--reason", "too much money"); err != nil {
			t.Fatalf("deny: %v %s", err, out)
		}
		var text string
		app.js(t, &text, `return (await window.turn).text;`)
		if !strings.Contains(text, "TOOL_CALL_DENIED") || !strings.Contains(text, "too much money") {
			t.Errorf("the agent saw %q", text)
		}
		if r := runs(); r["pay"] != 1 {
			t.Errorf("a denied call's handler ran: %v", r)
		}
	})

	t.Run("the approved page cannot approve its own call", func(t *testing.T) {
		app.js(t, nil, `window.statuses = []; window.turn = window.session.sendTurn("call pay {\"amount\":900}");`)
		id := awaitWaitingApproval(t, app, "pay")
		var tried map[string]string
		app.js(t, &tried, selfApprovalAttempts(env.core.URL, id))
		t.Logf("self-approval attempts: %v", tried)
		for _, k := range []string{"fetch", "fetchToken", "fetchWindow"} {
			if tried[k] != "blocked" {
				t.Errorf("%s: the page read Core's answer (%q); want blocked (no CORS)", k, tried[k])
			}
		}
		if tried["noCors"] != "opaque" && tried["noCors"] != "blocked" {
			t.Errorf("no-cors fetch gave %q; want an opaque response", tried["noCors"])
		}
		for _, k := range []string{"formSink", "frameConsole", "frameWindow"} {
			if tried[k] != "opaque" {
				t.Errorf("%s: the page could read the frame (%q)", k, tried[k])
			}
		}

		// window.open needs a user gesture in Chromium: a real click on the
		// page's button opens the approval window of the page's own call.
		wctx, cancelWait := context.WithTimeout(app.ctx, 30*time.Second)
		defer cancelWait()
		newTarget := chromedp.WaitNewTarget(wctx, func(info *target.Info) bool { return info.Type == "page" })
		if err := app.do(10*time.Second, chromedp.Click("#open-approval", chromedp.NodeVisible)); err != nil {
			t.Fatalf("click: %v", err)
		}
		var win target.ID
		select {
		case win = <-newTarget:
		case <-wctx.Done():
			t.Fatal("the click opened no window")
		}
		popupCtx, cancelPopup := chromedp.NewContext(app.ctx, chromedp.WithTargetID(win))
		defer cancelPopup()
		pctx, cancel := context.WithTimeout(popupCtx, 30*time.Second)
		defer cancel()
		// It is the real approval window (the user could decide there)...
		if err := chromedp.Do(pctx, chromedp.WaitVisible(`[data-decision="approve"]`)); err != nil {
			t.Fatalf("the approval window: %v", err)
		}
		if tool, err := chromedp.Run(pctx, chromedp.Text("#tool")); err != nil || strings.TrimSpace(tool) != "pay" {
			t.Fatalf("the approval window shows tool %q (%v)", tool, err)
		}
		// ...but the page's handle on it is severed (COOP): it cannot read
		// it, click its Approve button, or reach it by message.
		var handle map[string]string
		app.js(t, &handle, `
const w = window.__win, id = `+jsString(id)+`;
const out = { handle: w ? "object" : String(w) };
if (!w) return out;
out.closed = String(w.closed);
try { out.document = w.document ? "readable" : String(w.document); } catch (e) { out.document = "threw " + e.name; }
try { out.href = String(w.location.href); } catch (e) { out.href = "threw " + e.name; }
try { w.document.querySelector("[data-decision=approve]").click(); out.click = "clicked"; } catch (e) { out.click = "threw " + e.name; }
try { w.postMessage({ id, decision: "approve" }, "*"); out.postMessage = "sent"; } catch (e) { out.postMessage = "threw " + e.name; }
return out;`)
		t.Logf("the page's handle on the approval window: %v", handle)
		if handle["handle"] != "object" || handle["closed"] != "true" || handle["document"] != "threw SecurityError" ||
			handle["href"] != "threw SecurityError" || handle["click"] != "threw SecurityError" {
			t.Errorf("the page reached into the approval window: %v", handle)
		}
		// The window saw nothing happen either.
		if res, err := chromedp.Run(pctx, chromedp.Text("#result")); err != nil || strings.TrimSpace(res) != "" {
			t.Errorf("the approval window shows a result %q (%v)", res, err)
		}

		// After all of it the call still waits: the handler never ran, the
		// turn has not settled, Core and the console still list it.
		time.Sleep(500 * time.Millisecond) // anything posted or submitted, had it any effect
		if r := runs(); r["pay"] != 1 {
			t.Fatalf("the handler ran: %v", r)
		}
		var settled bool
		app.js(t, &settled, `let done = false; window.turn.then(() => { done = true; }, () => { done = true; }); await new Promise((r) => setTimeout(r, 50)); return done;`)
		if settled {
			t.Fatal("the turn settled while the call should still wait")
		}
		out, err := pedelecCLI(t, env.core, nil, "approvals", "--format", "json")
		var st wire.ApprovalsState
		if err != nil || json.Unmarshal([]byte(out), &st) != nil || len(st.Pending) != 1 || st.Pending[0].ID != id || st.Pending[0].Kind != "call" {
			t.Fatalf("approvals after the attempts: %v %s", err, out)
		}
		// The table a person decides from names the tool, its arguments
		// and who asks (the session's agent), not only an id.
		table, err := pedelecCLI(t, env.core, nil, "approvals")
		if p := st.Pending[0]; err != nil || p.Provider != "script" || !strings.Contains(table, id) || !strings.Contains(table, "pay") || !strings.Contains(table, "script") || !strings.Contains(table, argsCellOf(p.Args)) {
			t.Errorf("approvals as a table: %v\n%s\n(pending %+v)", err, table, p)
		}
		con.waitJS(t, 5*time.Second, `!!document.querySelector('[data-approval-id="`+id+`"]')`, "the console to still list the call")
		if logs := env.core.Logs(); !strings.Contains(logs, "refused a console or approvals request") {
			t.Errorf("Core logged no refusal; logs:\n%s", logs)
		}

		// The user denies it: the agent hears so, and the handler never ran.
		if out, err := pedelecCLI(t, env.core, nil, "deny", id, "--reason", "the page asked for itself"); err != nil {
			t.Fatalf("deny: %v %s", err, out)
		}
		var text string
		app.js(t, &text, `return (await window.turn).text;`)
		if !strings.Contains(text, "TOOL_CALL_DENIED") || !strings.Contains(text, "the page asked for itself") {
			t.Errorf("the agent saw %q", text)
		}
		if r := runs(); r["pay"] != 1 {
			t.Errorf("a denied call's handler ran: %v", r)
		}
	})

	t.Run("nobody answers: TOOL_CONSENT_TIMEOUT", func(t *testing.T) {
		start := time.Now()
		text := turn("call wipe")
		if !strings.Contains(text, "TOOL_CONSENT_TIMEOUT") {
			t.Errorf("the agent saw %q", text)
		}
		if el := time.Since(start); el < 2*time.Second {
			t.Errorf("the call gave up after %s; the tool's timeout is 2 s", el)
		}
		if r := runs(); r["wipe"] != 0 {
			t.Errorf("a timed-out call's handler ran: %v", r)
		}
		var saw bool
		app.js(t, &saw, `return window.statuses.some((s) => s.status === "waiting_approval");`)
		if !saw {
			t.Error("the page never saw waiting_approval")
		}
	})

	t.Run("allow for this session: the next call does not ask", func(t *testing.T) {
		app.js(t, nil, `window.statuses = []; window.turn = window.session.sendTurn("call pay {\"amount\":1}\ncall pay {\"amount\":2}");`)
		id := awaitWaitingApproval(t, app, "pay")
		sel := `[data-approval-id="` + id + `"]`
		con.waitJS(t, 5*time.Second, `!!document.querySelector('`+sel+`')`, "the pending call in the console")
		decideIn(t, con.ctx, sel, "allow_session")
		var text string
		app.js(t, &text, `return (await window.turn).text;`)
		if !strings.Contains(text, `"paid":1`) || !strings.Contains(text, `"paid":2`) || runs()["pay"] != 3 {
			t.Fatalf("the agent saw %q, runs %v", text, runs())
		}
		var asked int
		app.js(t, &asked, `return window.statuses.filter((s) => s.status === "waiting_approval").length;`)
		if asked != 1 {
			t.Errorf("the page saw waiting_approval %d times, want 1 (the second call must not ask)", asked)
		}
		out, err := pedelecCLI(t, env.core, nil, "approvals", "--format", "json")
		if err != nil || strings.Contains(out, `"kind":"call"`) {
			t.Errorf("approvals after the turn: %v %s", err, out)
		}
	})
}

// selfApprovalAttempts is what an approved page does, in script, to
// approve the call with approval id that its own agent is waiting on:
// POST to the approvals API without a token, with a guessed one and in
// no-cors mode; a form post into a hidden iframe; fetch the approval
// window to read its token; frame the console and the approval window and
// read them. It leaves a button whose click opens the approval window
// (window.open needs a user gesture) and keeps the handle in window.__win.
// Each entry says what the page got: "blocked" (the fetch failed),
// "opaque" (nothing readable), or what it could read.
func selfApprovalAttempts(core, id string) string {
	return fmt.Sprintf(`
const core = %q, id = %q;
const decide = core + "/console/api/decide", win = core + "/console/approve/" + id;
const body = JSON.stringify({ id, decision: "approve" });
const out = {};
for (const [name, headers] of [["fetch", { "Content-Type": "application/json" }],
    ["fetchToken", { "Content-Type": "application/json", "X-Pedelec-Approver": "pa_guess", "Authorization": "Bearer pa_guess" }]]) {
  try { const r = await fetch(decide, { method: "POST", headers, body }); out[name] = "read " + r.status + " " + await r.text(); }
  catch (e) { out[name] = "blocked"; }
}
try { const r = await fetch(decide, { method: "POST", mode: "no-cors", body }); out.noCors = r.type === "opaque" ? "opaque" : "read " + r.status; }
catch (e) { out.noCors = "blocked"; }
try { const r = await fetch(win); out.fetchWindow = "read " + r.status + " " + await r.text(); }
catch (e) { out.fetchWindow = "blocked"; }
const frame = (name, src) => { const f = document.createElement("iframe"); f.name = name; if (src) f.src = src; document.body.appendChild(f); return f; };
const sink = frame("sink");
const form = document.createElement("form");
form.method = "POST"; form.action = decide; form.target = "sink";
for (const [k, v] of [["id", id], ["decision", "approve"], ["token", "pa_guess"]]) {
  const i = document.createElement("input"); i.name = k; i.value = v; form.appendChild(i);
}
document.body.appendChild(form); form.submit();
const frames = { frameConsole: frame("console", core + "/console/"), frameWindow: frame("window", win) };
await new Promise((r) => setTimeout(r, 1500));
const read = (f) => { try { const d = f.contentDocument; return d ? "readable: " + d.body?.textContent.slice(0, 80) : "opaque"; } catch (e) { return "opaque"; } };
out.formSink = read(sink);
for (const [k, f] of Object.entries(frames)) out[k] = read(f);
const btn = document.createElement("button");
btn.id = "open-approval"; btn.textContent = "Open the approval window";
btn.addEventListener("click", () => { window.__win = window.open(win); });
document.body.prepend(btn);
return out;`, core, id)
}

// argsCellOf is how `pedelec approvals` shows a call's arguments: compact
// JSON (these are short).
func argsCellOf(args json.RawMessage) string {
	var b bytes.Buffer
	json.Compact(&b, args)
	return b.String()
}
