package e2e

// The console after a few minutes of use: its session list is in time
// order (newest first), ended sessions can be hidden (a toggle the browser
// remembers), ended sessions in which nothing happened collapse into one
// entry instead of piling up, the list is a history that survives a Core
// restart, and on a phone the chosen session's detail comes before the
// list. "Copy as command" offers a line that names what it needs: run
// without the session's secret, the shell says so and runs nothing.

import (
	"fmt"
	pids "github.com/kaoruisaac/pedelec/runtime/ids"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

func TestBrowserConsoleHistory(t *testing.T) {
	app := appServer(t)
	addr, dir := testenv.FreeAddr(t), t.TempDir()
	core := testenv.ServeIn(t, addr, dir, []string{"--allow-origin", app.URL})
	b := newBrowser(t)
	b.open(t, fmt.Sprintf("%s/harness.html?core=%s", app.URL, core.URL), "ready")
	// One session that worked (a call), ended; three empty ones, ended;
	// one live. Created in that order, a little apart.
	b.js(t, nil, `
const { Pedelec, defineTool } = window.sdk;
const p = new Pedelec();
const note = defineTool({ name: "add_note", description: "Adds a note.",
  argsSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  handler: async ({ text }) => ({ saved: text }) });
const worked = await p.createSession({ provider: "script", skills: { guidance: "Notes.", tools: [note] } });
await worked.sendTurn("call add_note {\"text\":\"milk\"}");
await worked.end();
window.ids = { worked: worked.sessionId, empty: [] };
for (let i = 0; i < 3; i++) {
  await h.sleep(20);
  const s = await p.createSession({ provider: "script", skills: { guidance: "Empty.", tools: [note] } });
  window.ids.empty.push(s.sessionId);
  await s.end();
}
await h.sleep(20);
window.live = await p.createSession({ provider: "script", skills: { guidance: "Live.", tools: [note] } });
window.ids.live = window.live.sessionId;
return null;`)
	var ids struct {
		Worked, Live string
		Empty        []string
	}
	b.js(t, &ids, `return { Worked: window.ids.worked, Live: window.ids.live, Empty: window.ids.empty };`)

	con := newTab(t, b)
	if err := con.do(10*time.Second, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	openConsole := func(c *browser, url string) {
		t.Helper()
		if err := c.do(30*time.Second, chromedp.Navigate(url+"/console/")); err != nil {
			t.Fatal(err)
		}
		c.waitJS(t, 10*time.Second, `document.getElementById("live").textContent === "live" && document.querySelectorAll("[data-session-id]").length > 0`, "the console's sessions")
	}
	listed := func(c *browser) []string {
		var out []string
		c.js(t, &out, `return [...document.querySelectorAll("#session-list [data-session-id]")].map((e) => e.dataset.sessionId + (e.closest("[data-empty-group]") ? "+" + e.closest("[data-empty-group]").dataset.emptyGroup : ""));`)
		return out
	}
	openConsole(con, core.URL)

	t.Run("newest first, empty ended sessions as one entry", func(t *testing.T) {
		got := listed(con)
		want := []string{ids.Live, ids.Empty[2] + "+3", ids.Worked}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("the list shows %v, want %v (newest first; the three empty ended sessions as one entry)", got, want)
		}
	})

	t.Run("ended sessions hide, and the choice is remembered", func(t *testing.T) {
		con.js(t, nil, `document.querySelector("[data-session-id='`+ids.Live+`']").click(); document.getElementById("hide-ended").click();`)
		if got := listed(con); strings.Join(got, " ") != ids.Live {
			t.Fatalf("with ended sessions hidden the list shows %v, want only %s", got, ids.Live)
		}
		con.screenshot(t, "console-history-hidden-1280")
		openConsole(con, core.URL)
		var checked bool
		con.js(t, &checked, `return document.getElementById("hide-ended").checked;`)
		if got := listed(con); !checked || strings.Join(got, " ") != ids.Live {
			t.Fatalf("after a reload: toggle %v, list %v", checked, got)
		}
		con.js(t, nil, `document.getElementById("hide-ended").click();`)
	})

	t.Run("the list survives a Core restart", func(t *testing.T) {
		core.Stop(t)
		core = testenv.ServeIn(t, addr, dir, []string{"--allow-origin", app.URL})
		openConsole(con, core.URL)
		got := listed(con)
		if !slicesContain(got, ids.Worked) || !slicesContain(got, ids.Empty[2]+"+3") {
			t.Fatalf("after a restart the list shows %v, want the ended sessions %s and %v too", got, ids.Worked, ids.Empty)
		}
		con.js(t, nil, `document.querySelector("[data-session-id='`+ids.Worked+`']").click();`)
		var tool string
		con.waitJS(t, 5*time.Second, `!!document.querySelector("#detail [data-call-id]")`, "the earlier session's call")
		con.js(t, &tool, `return document.querySelector("#detail [data-call-id] .tool").textContent;`)
		if tool != "add_note" {
			t.Errorf("the earlier session's call shows as %q", tool)
		}
		con.screenshot(t, "console-history-1280")
	})

	t.Run("the copied command names what it needs", func(t *testing.T) {
		var cmd string
		con.js(t, &cmd, `const c = document.querySelector("#detail [data-call-id]"); c.open = true; return c.querySelector("pre.command").textContent;`)
		// The agent's thread id, never the session id a page resumes with:
		// a command line is in every user's process listing.
		thread := pids.Hashed("t_", "pedelec agent thread", ids.Worked)
		if !strings.HasPrefix(cmd, "PEDELEC_CORE_URL="+core.URL+" PEDELEC_AGENT_SECRET=") || !strings.Contains(cmd, "pedelec tool-call --thread-id "+thread+" add_note") || strings.Contains(cmd, ids.Worked) {
			t.Fatalf("command %q", cmd)
		}
		out, err := exec.Command("sh", "-c", strings.Replace(cmd, "pedelec tool-call", "echo RAN", 1)).CombinedOutput()
		if err == nil || strings.Contains(string(out), "RAN") || !strings.Contains(string(out), "session's secret") {
			t.Fatalf("without the secret the command ran or said nothing useful: %v %q", err, out)
		}
	})

	t.Run("on a phone the chosen session's detail comes before the list", func(t *testing.T) {
		if err := con.do(10*time.Second, chromedp.EmulateViewport(390, 844)); err != nil {
			t.Fatal(err)
		}
		var pos struct{ Detail, List, Height float64 }
		con.js(t, &pos, `return { Detail: document.getElementById("detail").getBoundingClientRect().top, List: document.getElementById("sessions").getBoundingClientRect().top, Height: innerHeight };`)
		con.screenshot(t, "console-history-390")
		if pos.Detail >= pos.Height || pos.Detail > pos.List {
			t.Errorf("at 390 px the detail starts at %.0f px (the list at %.0f, the screen is %.0f tall)", pos.Detail, pos.List, pos.Height)
		}
	})
}
