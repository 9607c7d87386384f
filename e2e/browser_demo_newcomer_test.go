package e2e

// Issue 23's newcomer list, on the demo in real Chromium: what a person met
// on first use (the page wider than a phone, the status pill over the
// title, a header that jumps, the MCP client choice offering a Send that
// fails, two sessions for one choice, a reset that reset nothing, the
// script provider echoing plain words, a favicon 404) stays fixed.
// Screenshots go to e2e/artifacts for a person to look at.

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// headerGeometry is the header read from the page.
type headerGeometry struct {
	Height        float64 `json:"height"`
	ControlTops   int     `json:"controlTops"` // distinct tops of the controls: 1 is one line
	StatusOverlap bool    `json:"statusOverlap"`
	StatusText    string  `json:"statusText"`
	TitleCut      bool    `json:"titleCut"`
}

const measureHeader = `
const top = document.querySelector(".topbar").getBoundingClientRect();
const tops = new Set([...document.querySelectorAll(".session-controls > *")]
  .filter((e) => e.getBoundingClientRect().width > 0)
  .map((e) => Math.round(e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2)));
const s = document.getElementById("status").getBoundingClientRect();
const h = document.querySelector(".brand h1").getBoundingClientRect();
const overlap = s.left < h.right && h.left < s.right && s.top < h.bottom && h.top < s.bottom;
const h1 = document.querySelector(".brand h1");
return { height: top.height, controlTops: tops.size, statusOverlap: overlap, statusText: document.getElementById("status").textContent,
  titleCut: h1.scrollWidth > h1.clientWidth };`

func TestBrowserDemoNewcomer(t *testing.T) {
	d := openDemo(t, "?provider=script")

	t.Run("favicon.ico is served, so no page load logs a 404", func(t *testing.T) {
		var got struct {
			Status int
			Type   string
			Size   int
		}
		d.b.js(t, &got, `const r = await fetch("/favicon.ico"); const b = await r.arrayBuffer(); return { Status: r.status, Type: r.headers.get("content-type"), Size: b.byteLength };`)
		if got.Status != 200 || !strings.HasPrefix(got.Type, "image/") || got.Size == 0 {
			t.Errorf("/favicon.ico: %+v", got)
		}
		for _, line := range d.b.consoleLines() {
			if strings.Contains(line, "404") {
				t.Errorf("the console: %s", line)
			}
		}
	})

	t.Run("Reset the counter? resets it when confirmed, and not when cancelled", func(t *testing.T) {
		d.sendExample("call update_counter")
		d.reply(1)
		d.sendExample("call reset_counter")
		d.b.waitJS(t, 10*time.Second, `document.getElementById("confirm-dialog").open`, "the modal")
		if title := d.text("#confirm-title"); title != "Reset the counter?" {
			t.Errorf("modal title %q", title)
		}
		d.click("#confirm-cancel")
		if r := d.reply(2); !strings.Contains(r, `"reset":false,"reason":"cancelled"`) || d.text("#counter-value") != "2" {
			t.Errorf("after Cancel: the agent saw %q, the counter shows %q", r, d.text("#counter-value"))
		}
		d.sendExample("call reset_counter")
		d.b.waitJS(t, 10*time.Second, `document.getElementById("confirm-dialog").open`, "the modal")
		d.click("#confirm-ok")
		if r := d.reply(3); !strings.Contains(r, `{"ok":true,"result":{"reset":true,"value":0}}`) || d.text("#counter-value") != "0" {
			t.Errorf("after Confirm: the agent saw %q, the counter shows %q", r, d.text("#counter-value"))
		}
		// The other modal example promises no change, and makes none.
		var text string
		d.b.js(t, &text, `return document.querySelector("button.example[data-text^='call confirm_action']").dataset.text`)
		if strings.Contains(text, "Reset") || strings.Contains(text, "subtract") {
			t.Errorf("the confirm_action example promises a change it does not make: %s", text)
		}
	})

	t.Run("plain words to the script provider get a hint of the commands it takes", func(t *testing.T) {
		d.typeAndSend("please add a todo to buy milk")
		d.reply(4)
		d.b.waitJS(t, 5*time.Second, `[...document.querySelectorAll(".msg-note")].some((n) => n.textContent.includes("call <tool> <json>"))`, "the script provider's hint")
		var notes int
		d.b.js(t, &notes, `return [...document.querySelectorAll(".msg-note")].filter((n) => n.textContent.includes("call <tool> <json>")).length`)
		d.sendExample("call get_counter")
		d.reply(5)
		var after int
		d.b.js(t, &after, `return [...document.querySelectorAll(".msg-note")].filter((n) => n.textContent.includes("call <tool> <json>")).length`)
		if after != notes {
			t.Errorf("a message of commands got the hint too (%d, then %d)", notes, after)
		}
		var placeholder string
		d.b.js(t, &placeholder, `return document.getElementById("message").placeholder`)
		if !strings.Contains(placeholder, "call <tool> <json>") {
			t.Errorf("the message box does not say what the script provider takes: %q", placeholder)
		}
	})

	t.Run("desktop: the header keeps one line and its height during a modal", func(t *testing.T) {
		if err := d.b.do(10*time.Second, chromedp.EmulateViewport(1280, 800)); err != nil {
			t.Fatal(err)
		}
		d.load("?provider=script")
		var idle, modal headerGeometry
		d.b.js(t, &idle, measureHeader)
		d.sendExample("call reset_counter")
		d.b.waitJS(t, 10*time.Second, `document.getElementById("confirm-dialog").open && document.getElementById("status").dataset.status === "waiting_tool_result"`, "the modal")
		d.b.waitJS(t, 5*time.Second, `document.getElementById("status").textContent.includes("reset_counter")`, "the status to name the tool")
		d.b.js(t, &modal, measureHeader)
		d.b.screenshot(t, "demo-header-1280-modal")
		checkNoSidewaysScroll(t, d, 1280)
		d.click("#confirm-cancel")
		d.reply(1)
		if idle.ControlTops != 1 || modal.ControlTops != 1 || idle.Height != modal.Height || modal.StatusOverlap || modal.TitleCut {
			t.Errorf("header idle %+v, during the modal %+v; want one line of controls, the same height, the pill clear of the title", idle, modal)
		}
	})

	t.Run("phone: the status pill never covers the title during a modal", func(t *testing.T) {
		if err := d.b.do(10*time.Second, chromedp.EmulateViewport(390, 844)); err != nil {
			t.Fatal(err)
		}
		d.load("?provider=script")
		d.sendExample("call reset_counter")
		d.b.waitJS(t, 10*time.Second, `document.getElementById("confirm-dialog").open && document.getElementById("status").textContent.includes("reset_counter")`, "the modal")
		var g headerGeometry
		d.b.js(t, &g, measureHeader)
		d.b.screenshot(t, "demo-modal-390")
		d.click("#confirm-cancel")
		d.reply(1)
		if g.StatusOverlap || g.TitleCut {
			t.Errorf("at 390 px with the status %q: covers the title %v, the title cut short %v", g.StatusText, g.StatusOverlap, g.TitleCut)
		}
		checkNoSidewaysScroll(t, d, 390)
	})

	t.Run("choosing a provider, then New session, starts one session", func(t *testing.T) {
		if err := d.b.do(10*time.Second, chromedp.EmulateViewport(1280, 800)); err != nil {
			t.Fatal(err)
		}
		d.load("?provider=script")
		before := countFrames(d.b.sentFrames(), `"create_session"`)
		d.b.js(t, nil, `const p = document.getElementById("provider"); p.value = "mcp"; p.dispatchEvent(new Event("change"));`)
		d.b.waitJS(t, 5*time.Second, `document.getElementById("restart").classList.contains("pending")`, "New session to ask to be pressed")
		d.click("#restart")
		d.b.waitJS(t, 15*time.Second, `window.pedelecDemo.session?.provider === "mcp"`, "the mcp session")
		time.Sleep(500 * time.Millisecond) // a second session would be on its way by now
		if n := countFrames(d.b.sentFrames(), `"create_session"`) - before; n != 1 {
			t.Errorf("choosing a provider and pressing New session sent %d create_session, want 1", n)
		}
	})

	t.Run("MCP client: tells how to connect one, and offers no Send that fails", func(t *testing.T) {
		var got struct {
			Intro, Summary, Placeholder, Notes string
			SendDisabled, BoxDisabled          bool
			Examples                           int
		}
		d.b.js(t, &got, `return {
  Intro: document.getElementById("examples-intro").textContent,
  Summary: document.querySelector("#examples summary").textContent,
  Placeholder: document.getElementById("message").placeholder,
  Notes: [...document.querySelectorAll(".msg-note, .msg-error")].map((n) => n.textContent).join("\n"),
  SendDisabled: document.getElementById("send").disabled,
  BoxDisabled: document.getElementById("message").disabled,
  Examples: document.querySelectorAll("#example-list .example").length,
};`)
		d.b.screenshot(t, "demo-mcp")
		if !strings.Contains(got.Intro, "pedelec mcp") || !strings.Contains(got.Summary, "MCP client") || !got.SendDisabled || !got.BoxDisabled || got.Examples != 0 {
			t.Errorf("with the mcp provider: %+v", got)
		}
		if strings.Contains(got.Notes, "Ask for something") || strings.Contains(got.Notes, "SEND_TEXT_NOT_SUPPORTED") {
			t.Errorf("the notes: %s", got.Notes)
		}
		// Enter in the (disabled) box sends nothing.
		d.b.js(t, nil, `window.pedelecDemo.send("hello")`)
		time.Sleep(300 * time.Millisecond)
		d.b.js(t, &got.Notes, `return [...document.querySelectorAll(".msg-error")].map((n) => n.textContent).join("\n")`)
		if strings.Contains(got.Notes, "SEND_TEXT_NOT_SUPPORTED") {
			t.Errorf("a message was sent to the mcp session: %s", got.Notes)
		}
	})
}

func countFrames(frames []string, marker string) int {
	n := 0
	for _, f := range frames {
		if strings.Contains(f, marker) {
			n++
		}
	}
	return n
}
