package e2e

// The demo shows what the README leads with: Core's consent (clear_todos
// is destructive, so Core, not the page, asks: the status pill and the
// console say it waits, and it runs only once approved) and resume (a
// reload keeps the counter, the todos, the chat and the session). While
// Core restarts the pill says "reconnecting…", then "reconnected"; "New
// session" leaves a divider; the MCP instructions name this Core's state
// directory.

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
	"github.com/kaoruisaac/pedelec/runtime/wire"
)

func TestBrowserDemoConsentAndResume(t *testing.T) {
	top := t // the restarted Core lives as long as the test, not the subtest
	d := openDemo(t, "?provider=script")
	d.sendExample("call add_todo")
	d.reply(1)
	d.sendExample("call update_counter")
	d.reply(2)

	t.Run("clear_todos waits for Core's consent, shown in the page and the console", func(t *testing.T) {
		d.sendExample("call clear_todos")
		d.b.waitJS(t, 15*time.Second, `document.getElementById("status").dataset.status === "waiting_approval"`, "the pill to say it waits for approval")
		pill := d.text("#status")
		if !strings.Contains(pill, "waiting for your approval: clear_todos") {
			t.Errorf("the pill says %q", pill)
		}
		con := newTab(t, d.b)
		if err := con.do(30*time.Second, chromedp.Navigate(d.core.URL+"/console/")); err != nil {
			t.Fatal(err)
		}
		con.waitJS(t, 10*time.Second, `!!document.querySelector("#approvals-body [data-approval-id]")`, "the pending call in the console")
		con.screenshot(t, "demo-consent-console")
		out, err := pedelecCLI(t, d.core, nil, "approvals", "--format", "json")
		var st wire.ApprovalsState
		if err != nil || json.Unmarshal([]byte(out), &st) != nil || len(st.Pending) != 1 || st.Pending[0].Tool != "clear_todos" {
			t.Fatalf("approvals: %v %s", err, out)
		}
		if n := d.text("#todo-list"); !strings.Contains(n, "Buy milk") {
			t.Fatalf("the todos changed before the user approved: %q", n)
		}
		if out, err := pedelecCLI(t, d.core, nil, "approve", st.Pending[0].ID); err != nil {
			t.Fatalf("approve: %v %s", err, out)
		}
		if r := d.reply(3); !strings.Contains(r, `"removed":1`) && !strings.Contains(r, `"removed": 1`) {
			t.Errorf("after approval the agent saw %q", r)
		}
	})

	d.sendExample("call add_todo")
	d.reply(4)
	var before struct {
		ID, Counter, Todos string
		Bubbles            int
	}
	d.b.js(t, &before, `return { ID: window.pedelecDemo.session.sessionId, Counter: document.getElementById("counter-value").textContent,
  Todos: document.getElementById("todo-list").textContent, Bubbles: document.querySelectorAll(".msg-assistant").length };`)

	t.Run("a reload keeps the counter, the todos, the chat and the session", func(t *testing.T) {
		if err := d.b.do(30*time.Second, chromedp.Reload()); err != nil {
			t.Fatal(err)
		}
		d.b.waitJS(t, 15*time.Second, `document.body.dataset.demo === "ready" && window.pedelecDemo.session`, "the demo to resume its session")
		var after struct {
			ID, Counter, Todos, Notes string
			Bubbles                   int
		}
		d.b.js(t, &after, `return { ID: window.pedelecDemo.session.sessionId, Counter: document.getElementById("counter-value").textContent,
  Todos: document.getElementById("todo-list").textContent, Bubbles: document.querySelectorAll(".msg-assistant").length,
  Notes: document.getElementById("messages").textContent };`)
		d.b.screenshot(t, "demo-after-reload")
		if after.ID != before.ID || after.Counter != before.Counter || after.Todos != before.Todos || after.Bubbles != before.Bubbles || !strings.Contains(after.Notes, "Resumed the session") {
			t.Fatalf("before the reload %+v, after %+v", before, after)
		}
		// The resumed session still works: the agent's call reaches the page.
		d.sendExample("call update_counter")
		d.reply(before.Bubbles + 1)
		if c := d.text("#counter-value"); c != "4" {
			t.Errorf("after the resumed session's call the counter is %q, want 4", c)
		}
	})

	t.Run("while Core restarts the pill says reconnecting, then reconnected", func(t *testing.T) {
		u, _ := url.Parse(d.core.URL)
		dir := d.core.StateDir
		d.core.Stop(t)
		d.b.waitJS(t, 15*time.Second, `document.getElementById("status").textContent === "reconnecting…"`, "the pill to say reconnecting")
		d.core = testenv.ServeIn(top, u.Host, dir, nil)
		d.b.waitJS(t, 30*time.Second, `document.getElementById("messages").textContent.includes("Reconnected to Pedelec Core")`, "the demo to say it reconnected")
	})

	t.Run("New session leaves a divider", func(t *testing.T) {
		d.click("#restart")
		d.b.waitJS(t, 15*time.Second, `!!document.querySelector("#messages .msg-divider") && !!window.pedelecDemo.session && window.pedelecDemo.session.sessionId !== `+jsString(before.ID), "the divider and the new session")
	})

	t.Run("the MCP instructions name this Core's state directory", func(t *testing.T) {
		var cmd string
		d.b.js(t, &cmd, `return (await (await fetch("/console/api/connect")).json()).mcpCommand;`)
		if cmd != "pedelec mcp --state-dir "+d.core.StateDir {
			t.Fatalf("Core's MCP command %q, want it with --state-dir %s", cmd, d.core.StateDir)
		}
		// Picked while the next session starts, the provider stays picked
		// (the session that was starting does not put its own back) and
		// New session offers it.
		var started string
		d.b.js(t, &started, `const id = window.pedelecDemo.session.sessionId;
  document.getElementById("restart").click();
  const s = document.getElementById("provider"); s.value = "mcp"; s.dispatchEvent(new Event("change"));
  return id;`)
		d.b.waitJS(t, 15*time.Second, `window.pedelecDemo.session?.provider === "script" && window.pedelecDemo.session.sessionId !== `+jsString(started)+` && !document.getElementById("restart").disabled`, "the session that was starting")
		var picked struct {
			Value   string
			Pending bool
		}
		d.b.js(t, &picked, `return { Value: document.getElementById("provider").value, Pending: document.getElementById("restart").classList.contains("pending") };`)
		if picked.Value != "mcp" || !picked.Pending {
			t.Fatalf("after the start the picker shows %q (New session pending: %v), want mcp and pending", picked.Value, picked.Pending)
		}
		d.click("#restart")
		d.b.waitJS(t, 15*time.Second, `document.getElementById("examples-intro").textContent.includes("claude mcp add pedelec -- `+cmd+`")`, "the MCP instructions with this Core's command")
	})
}
