package e2e

// The console (issue 22) in real Chromium: an application page on its own
// origin creates a session and its agent calls a tool; the console, open
// in another tab on Core's origin, shows the session and the call within a
// second, then its result, duration and the command that repeats it. The
// application's origin can neither read the console's feed nor frame it.
// Screenshots at 1280 and 390 px wide are saved as artifacts
// (e2e/artifacts) for a person to look at.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// newTab opens another tab in b's browser.
func newTab(t *testing.T, b *browser) *browser {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return &browser{ctx: ctx}
}

// watchConsole records, in the console tab, when the first call appears.
const watchConsole = `
window.firstCallAt = 0;
window.firstSessionAt = 0;
new MutationObserver(() => {
  if (!window.firstSessionAt && document.querySelector("[data-session-id]")) window.firstSessionAt = Date.now();
  if (!window.firstCallAt && document.querySelector("#detail [data-call-id]")) window.firstCallAt = Date.now();
}).observe(document.body, { subtree: true, childList: true, attributes: true });`

func TestBrowserConsole(t *testing.T) {
	env := newSDKEnv(t)
	app := env.b
	con := newTab(t, app)
	if err := con.do(10*time.Second, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	if err := con.do(30*time.Second, chromedp.Navigate(env.core.URL+"/console/")); err != nil {
		t.Fatal(err)
	}
	con.waitJS(t, 10*time.Second, `document.body.dataset.version && document.getElementById("live").textContent === "live"`, "the console's first snapshot")
	con.js(t, nil, watchConsole)

	// The page creates a session; its agent (the script provider) calls
	// add_note, whose handler holds the call 1.5 s so the console shows it
	// pending first.
	app.js(t, nil, `
const { Pedelec, defineTool } = window.sdk;
const pedelec = new Pedelec();
const note = defineTool({
  name: "add_note", description: "Adds a note.",
  argsSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  handler: async ({ text }) => { window.calledAt = Date.now(); await h.sleep(1500); return { saved: true, text }; },
});
const session = await pedelec.createSession({ provider: "script", skills: { guidance: "Notes.", tools: [note] } });
window.createdAt = Date.now();
window.session = session;
window.turn = session.sendTurn("say Saving it.\ncall add_note {\"text\":\"buy milk, it's late\"}\nsay Saved.");
`)
	var times struct {
		CreatedAt, CalledAt float64
	}
	app.waitJS(t, 15*time.Second, `window.calledAt > 0`, "the page's handler to run")
	app.js(t, &times, `return { CreatedAt: window.createdAt, CalledAt: window.calledAt };`)

	t.Run("the session and the call show within a second", func(t *testing.T) {
		con.waitJS(t, 5*time.Second, `window.firstCallAt > 0`, "the call in the console")
		var seen struct{ SessionAt, CallAt float64 }
		con.js(t, &seen, `return { SessionAt: window.firstSessionAt, CallAt: window.firstCallAt };`)
		if lag := seen.SessionAt - times.CreatedAt; lag > 1000 {
			t.Errorf("the session showed %.0f ms after createSession returned", lag)
		}
		lag := seen.CallAt - times.CalledAt
		t.Logf("the call showed %.0f ms after the page's handler started", lag)
		if lag > 1000 {
			t.Errorf("the call showed %.0f ms after it happened, want under a second", lag)
		}
		var pending struct{ Status, Args string }
		con.js(t, &pending, `const c = document.querySelector("#detail [data-call-id]");
return { Status: c.dataset.status, Args: c.querySelector(".args-view").textContent };`)
		if pending.Status != "pending" || !strings.Contains(pending.Args, "buy milk, it's late") {
			t.Errorf("the call while its handler runs: %+v", pending)
		}
	})

	app.js(t, nil, `await window.turn;`)

	t.Run("the turn's chat, the result, the duration and the command", func(t *testing.T) {
		con.waitJS(t, 5*time.Second, `document.querySelector("#detail [data-call-id]")?.dataset.status === "result"`, "the call's result")
		var got struct {
			User, Agent, Result, Meta, Command, Origin, Provider string
			Secret                                               bool
		}
		con.js(t, &got, `
const d = document.getElementById("detail");
d.querySelector("[data-call-id]").open = true;
return {
  User: d.querySelector(".bubble-user").textContent,
  Agent: d.querySelector(".bubble-agent").textContent,
  Result: d.querySelector(".result .args-view").textContent,
  Meta: d.querySelector("[data-call-id] .meta").textContent,
  Command: d.querySelector("pre.command").textContent,
  Origin: document.querySelector("[data-session-id] .origin").textContent,
  Provider: d.querySelector(".facts").textContent,
  // The secret is named, never given: only as the shell's ${VAR:?…} check.
  Secret: /PEDELEC_AGENT_SECRET=(?!("|&quot;)\$\{PEDELEC_AGENT_SECRET:\?)/.test(document.documentElement.outerHTML),
};`)
		if !strings.Contains(got.User, "call add_note") || !strings.Contains(got.Agent, "Saved.") {
			t.Errorf("chat: user %q, agent %q", got.User, got.Agent)
		}
		if !strings.Contains(got.Result, `"saved": true`) || !strings.Contains(got.Meta, " s") {
			t.Errorf("result %q, meta %q (want the duration, about 1.5 s)", got.Result, got.Meta)
		}
		prefix := `PEDELEC_CORE_URL=` + env.core.URL + ` PEDELEC_AGENT_SECRET="${PEDELEC_AGENT_SECRET:?set it to the session's secret from the agent's environment}" pedelec tool-call --thread-id `
		want := prefix + got.Command[min(len(prefix), len(got.Command)):max(strings.Index(got.Command, " add_note"), min(len(prefix), len(got.Command)))] +
			` add_note '{"text":"buy milk, it'\''s late"}'`
		if got.Command != want {
			t.Errorf("command %q, want %q", got.Command, want)
		}
		if got.Origin != env.app.URL || !strings.Contains(got.Provider, "script") || got.Secret {
			t.Errorf("origin %q, facts %q, secret shown %v", got.Origin, got.Provider, got.Secret)
		}
	})

	t.Run("the record downloads as JSON", func(t *testing.T) {
		var rec struct {
			Disposition string
			Calls       int
			Tool        string
		}
		con.js(t, &rec, `
const href = document.querySelector('[data-action="download"]').getAttribute("href");
const res = await fetch(href);
const j = await res.json();
return { Disposition: res.headers.get("content-disposition"), Calls: j.calls.length, Tool: j.calls[0].tool };`)
		if !strings.HasPrefix(rec.Disposition, "attachment") || rec.Calls != 1 || rec.Tool != "add_note" {
			t.Errorf("record: %+v", rec)
		}
	})

	t.Run("the approvals panel: a pending call with its buttons, the approved origins", func(t *testing.T) {
		// A call that asks first waits in the Pending approvals panel while
		// the screenshots are taken; it is denied afterwards.
		app.js(t, nil, `
const { Pedelec, defineTool } = window.sdk;
const pay = defineTool({
  name: "pay", description: "Pays an amount.", timeoutMs: 60000, annotations: { consequentialHint: true },
  argsSchema: { type: "object", properties: { amount: { type: "integer" } }, required: ["amount"] },
  handler: async () => ({ paid: true }),
});
window.paySession = await new Pedelec().createSession({ provider: "script", skills: { guidance: "Pays.", tools: [pay] } });
window.payTurn = window.paySession.sendTurn("call pay {\"amount\":12}");`)
		con.waitJS(t, 10*time.Second, `!!document.querySelector("#approvals-body [data-approval-id]")`, "the pending call in the console")
		var got struct {
			Unavailable   int
			Text, Buttons string
			Origins       []string
		}
		con.js(t, &got, `
const a = document.querySelector("#approvals-body [data-approval-id]");
return {
  Unavailable: document.querySelectorAll('[data-approvals="unavailable"]').length,
  Text: a.textContent,
  Buttons: [...a.querySelectorAll("button")].map((b) => b.textContent).join("|"),
  Origins: [...document.querySelectorAll("#origins-body [data-origin]")].map((o) => o.textContent),
};`)
		if got.Unavailable != 0 || !strings.Contains(got.Text, "pay") || !strings.Contains(got.Text, `"amount": 12`) || got.Buttons != "Approve pay|Deny pay|Allow pay for this session" {
			t.Errorf("pending approvals: %+v", got)
		}
		// The app's origin is pre-approved by --allow-origin: listed, with no Revoke button.
		if len(got.Origins) != 1 || !strings.Contains(got.Origins[0], env.app.URL) || !strings.Contains(got.Origins[0], "--allow-origin") {
			t.Errorf("approved origins: %v", got.Origins)
		}
	})

	t.Run("screenshots at 1280 and 390 px", func(t *testing.T) {
		con.screenshot(t, "console-1280")
		if err := con.do(10*time.Second, chromedp.EmulateViewport(390, 844)); err != nil {
			t.Fatal(err)
		}
		var wide struct{ Overflow bool }
		con.js(t, &wide, `return { Overflow: document.documentElement.scrollWidth > innerWidth + 1 };`)
		con.screenshot(t, "console-390")
		// The chosen session's detail, scrolled to, as a phone shows it.
		con.js(t, nil, `document.getElementById("detail").scrollIntoView();`)
		ctx, cancel := context.WithTimeout(con.ctx, 20*time.Second)
		defer cancel()
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		writeArtifact(t, "console-390-detail.png", png)
		if wide.Overflow {
			t.Error("at 390 px the console scrolls sideways")
		}
		if err := con.do(10*time.Second, chromedp.EmulateViewport(1280, 900)); err != nil {
			t.Fatal(err)
		}
		decideIn(t, con.ctx, "#approvals-body [data-approval-id]", "deny")
		var text string
		app.js(t, &text, `return (await window.payTurn).text;`)
		if !strings.Contains(text, "TOOL_CALL_DENIED") {
			t.Errorf("after Deny the agent saw %q", text)
		}
	})

	t.Run("another origin can neither read the feed nor frame the console", func(t *testing.T) {
		var got struct {
			Feed, Record, NoCors string
		}
		app.js(t, &got, `
const core = new URLSearchParams(location.search).get("core");
const out = {};
for (const [k, path] of [["Feed", "/console/api/feed"], ["Record", "/console/api/sessions/" + window.session.sessionId + "/record"]]) {
  try { const r = await fetch(core + path); out[k] = "read " + r.status + " " + (await r.text()).slice(0, 40); }
  catch (e) { out[k] = "refused: " + e.name; }
}
try { const r = await fetch(core + "/console/api/sessions/" + window.session.sessionId + "/record", { mode: "no-cors" }); out.NoCors = r.type + " " + (await r.text()).length; }
catch (e) { out.NoCors = "refused: " + e.name; }
return out;`)
		for name, v := range map[string]string{"feed": got.Feed, "record": got.Record} {
			if !strings.HasPrefix(v, "refused") {
				t.Errorf("the app's origin read the %s: %s", name, v)
			}
		}
		if got.NoCors != "opaque 0" && !strings.HasPrefix(got.NoCors, "refused") {
			t.Errorf("a no-cors fetch got %q", got.NoCors)
		}
		app.js(t, nil, `
const core = new URLSearchParams(location.search).get("core");
const f = document.createElement("iframe");
f.id = "framed-console";
f.src = core + "/console/";
document.body.append(f);
await new Promise((r) => { f.onload = r; setTimeout(r, 3000); });`)
		tree, err := chromedp.Run(app.ctx, func(ctx context.Context, tg *chromedp.Target) (*page.FrameTree, error) {
			res, err := cdp.Call(ctx, tg, page.GetFrameTree, cdp.Empty{})
			return res.FrameTree, err
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(tree.ChildFrames) != 1 {
			t.Fatalf("frames: %+v", tree)
		}
		child := tree.ChildFrames[0].Frame
		t.Logf("the framed console's frame: %s", child.URL)
		if strings.HasPrefix(child.URL, env.core.URL) && !strings.HasPrefix(child.URL, "chrome-error:") {
			// The frame navigated to Core: it must hold Chromium's error
			// page, not the console.
			t.Errorf("the console loaded in another origin's frame: %s", child.URL)
		}
	})
}

// writeArtifact saves data under the artifacts directory.
func writeArtifact(t *testing.T, name string, data []byte) {
	t.Helper()
	path := filepath.Join(artifactsDir(t), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("artifact: %s", path)
}
