package e2e

// Call consent (issue 22, item 2) in real Chromium: a page declares a
// consequential tool and one that needs approval; its agent (the script
// provider, through the real `pedelec tool-call`) calls them. Each call
// waits in waiting_approval, which the page's onStatus shows, and runs
// only when the user approves it: by clicking in the console, or with
// `pedelec approve|deny`. A denial reaches the agent as TOOL_CALL_DENIED
// with the user's reason, a call nobody answers as TOOL_CONSENT_TIMEOUT,
// and in neither case does the handler run. "Allow for this session"
// lets the next call of the tool run without asking.

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
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
session.onStatus((status, ctx) => window.statuses.push({ status, waitingOn: ctx.waitingOn }));
window.session = session;`

type consentStatus struct {
	Status    string
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
		if !strings.Contains(shown.Text, "pay") || !strings.Contains(shown.Text, `"amount": 5`) || shown.Buttons != "Approve|Deny|Allow for this session" || shown.Status != "waiting_approval" {
			t.Errorf("the console shows %+v", shown)
		}
		con.screenshot(t, "console-consent-1280")
		con.js(t, nil, `document.querySelector('`+sel+` button.primary').click();`)
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
		con.js(t, nil, `[...document.querySelectorAll('`+sel+` button')].find((b) => b.textContent === "Allow for this session").click();`)
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
