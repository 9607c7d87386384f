package e2e

// The demo page Core serves at / in real Chromium, driven as a person
// would: clicking the script provider's examples and the modal's buttons.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

type demo struct {
	t    *testing.T
	b    *browser
	core *testenv.Server
}

func openDemo(t *testing.T, query string) *demo {
	t.Helper()
	b := newBrowser(t)
	core := testenv.Serve(t, nil)
	d := &demo{t: t, b: b, core: core}
	d.load(query)
	return d
}

func (d *demo) load(query string) {
	d.t.Helper()
	// A fresh visit: the demo keeps its state and session across a reload
	// of the same tab (sessionStorage), which these tests do not want.
	_ = d.b.tryJS(nil, `try { sessionStorage.clear() } catch {}`)
	if err := d.b.do(30*time.Second, chromedp.Navigate(d.core.URL+"/"+query)); err != nil {
		d.t.Fatal(err)
	}
	// The demo starts a session only when the user asks: press Start session.
	d.b.waitJS(d.t, 15*time.Second, `document.body.dataset.demo === "ready"`, "the demo's provider picker")
	d.click("#restart")
	d.b.waitJS(d.t, 15*time.Second, `window.pedelecDemo?.session && document.getElementById("status").dataset.status === "idle"`, "the demo's session")
}

func (d *demo) click(sel string) {
	d.t.Helper()
	if err := d.b.do(10*time.Second, chromedp.Click(sel, chromedp.NodeVisible)); err != nil {
		d.t.Fatalf("click %s: %v", sel, err)
	}
}

// sendExample clicks the example whose text starts with prefix, then Send.
func (d *demo) sendExample(prefix string) {
	d.t.Helper()
	d.click(`button.example[data-text^='` + prefix + `']`)
	d.click("#send")
}

// typeAndSend types a message into the chat box and presses Enter.
func (d *demo) typeAndSend(text string) {
	d.t.Helper()
	if err := d.b.do(10*time.Second, chromedp.SetValue("#message", text), chromedp.SendKeys("#message", "\r")); err != nil {
		d.t.Fatal(err)
	}
}

func (d *demo) text(sel string) string {
	d.t.Helper()
	var s string
	d.b.js(d.t, &s, `return document.querySelector(`+jsString(sel)+`)?.textContent ?? ""`)
	return s
}

// lastReply waits until there are n assistant bubbles and returns the last one.
func (d *demo) reply(n int) string {
	d.t.Helper()
	d.b.waitJS(d.t, 20*time.Second, `document.querySelectorAll(".msg-assistant").length >= `+itoa(n)+` && document.getElementById("status").dataset.status === "idle"`, "the agent's reply")
	var s string
	d.b.js(d.t, &s, `const all = document.querySelectorAll(".msg-assistant"); return all[all.length - 1].textContent`)
	return s
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestBrowserDemo(t *testing.T) {
	d := openDemo(t, "")

	t.Run("the provider picker lists every provider; unavailable ones with their reason", func(t *testing.T) {
		var got struct {
			Options []struct {
				Name     string `json:"name"`
				Disabled bool   `json:"disabled"`
			} `json:"options"`
			Listed []struct {
				Code      string `json:"code"`
				Available bool   `json:"available"`
				Error     string `json:"error"`
			} `json:"listed"`
			Notes    map[string]string `json:"notes"`
			Selected string            `json:"selected"`
			Intro    string            `json:"intro"`
		}
		d.b.js(t, &got, `
const listed = await window.pedelecDemo.pedelec.listProviders({ all: true });
const options = [...document.querySelectorAll("#provider option")].map((o) => ({ name: o.value, disabled: o.disabled }));
const notes = Object.fromEntries([...document.querySelectorAll("#provider-note .unavailable")].map((s) => [s.dataset.provider, s.textContent]));
return { options, listed, notes, selected: document.getElementById("provider").value, intro: document.getElementById("examples-intro").textContent };
`)
		if len(got.Options) != len(got.Listed) {
			t.Fatalf("picker %+v, providers %+v", got.Options, got.Listed)
		}
		for i, p := range got.Listed {
			if got.Options[i].Name != p.Code || got.Options[i].Disabled == p.Available {
				t.Errorf("option %d: %+v for provider %+v", i, got.Options[i], p)
			}
			// Core's reasons are Markdown: the page shows `code` as code, without the backticks.
			if !p.Available && !strings.Contains(got.Notes[p.Code], strings.ReplaceAll(p.Error, "`", "")) {
				t.Errorf("unavailable %s should show its reason %q; the page shows %q", p.Code, p.Error, got.Notes[p.Code])
			}
		}
		if got.Selected == "script" && !strings.Contains(got.Intro, "call <tool> <json>") {
			t.Errorf("with the script provider the page should say what to type: %q", got.Intro)
		}
	})

	t.Run("the counter through a clicked example", func(t *testing.T) {
		d.sendExample("call update_counter")
		if r := d.reply(1); !strings.Contains(r, `{"ok":true,"result":{"value":2}}`) {
			t.Errorf("the agent saw %q", r)
		}
		if v := d.text("#counter-value"); v != "2" {
			t.Errorf("counter shows %q", v)
		}
		d.b.screenshot(t, "demo")
	})

	t.Run("two calls in one turn stream into one message", func(t *testing.T) {
		d.sendExample("say Adding two todos")
		r := d.reply(2)
		// A long result line is indented for reading ("ok": true).
		if len(regexp.MustCompile(`"ok":\s*true`).FindAllString(r, -1)) != 3 || !strings.Contains(r, "Ship it") {
			t.Errorf("one message for the whole turn, got %q", r)
		}
		var todos []string
		d.b.js(t, &todos, `return [...document.querySelectorAll("#todo-list li span")].map((s) => s.textContent)`)
		if strings.Join(todos, ",") != "Write docs,Ship it" {
			t.Errorf("todos %v", todos)
		}
		d.typeAndSend(`call toggle_todo {"id": "todo-1"}` + "\n" + `call toggle_todo {"id": "todo-9"}`)
		r = d.reply(3)
		if !strings.Contains(r, `"done":true`) || !strings.Contains(r, `"TODO_NOT_FOUND"`) {
			t.Errorf("toggle: %q", r)
		}
	})

	t.Run("the editor's selection", func(t *testing.T) {
		d.b.js(t, nil, `const ed = document.getElementById("editor"); ed.focus(); ed.setSelectionRange(0, 7);`)
		d.sendExample("call get_selected_text")
		if r := d.reply(4); !strings.Contains(r, `"text":"Pedelec"`) {
			t.Errorf("the agent saw %q", r)
		}
		d.sendExample("call replace_selection")
		d.reply(5)
		var value string
		d.b.js(t, &value, `return document.getElementById("editor").value`)
		if !strings.HasPrefix(value, "HELLO lets a local agent") {
			t.Errorf("editor: %q", value)
		}
		d.b.js(t, nil, `document.getElementById("editor").setSelectionRange(0, 0)`)
		d.typeAndSend(`call replace_selection {"text": "x"}`)
		if r := d.reply(6); !strings.Contains(r, "NO_SELECTION") {
			t.Errorf("with no selection: %q", r)
		}
	})

	t.Run("the confirm modal: confirm, then cancel", func(t *testing.T) {
		d.sendExample("call confirm_action")
		d.b.waitJS(t, 10*time.Second, `document.getElementById("confirm-dialog").open`, "the modal")
		d.b.waitJS(t, 5*time.Second, `document.getElementById("status").textContent === "waiting for confirm_action"`, "the status to name the tool")
		if title := d.text("#confirm-title"); title != "Is this a good time?" {
			t.Errorf("modal title %q", title)
		}
		d.b.screenshot(t, "demo-modal")
		d.click("#confirm-ok")
		if r := d.reply(7); !strings.Contains(r, `{"ok":true,"result":{"confirmed":true}}`) {
			t.Errorf("after Confirm the agent saw %q", r)
		}
		d.sendExample("call confirm_action")
		d.b.waitJS(t, 10*time.Second, `document.getElementById("confirm-dialog").open`, "the modal")
		d.click("#confirm-cancel")
		if r := d.reply(8); !strings.Contains(r, `"confirmed":false,"reason":"cancelled"`) {
			t.Errorf("after Cancel the agent saw %q", r)
		}
	})
}

// The demo's manifest, as toManifest gives it in the page, passes the
// offline check an app's CI would run: the loop the docs promise.
func TestBrowserDemoManifestValidates(t *testing.T) {
	d := openDemo(t, "")
	var manifest json.RawMessage
	d.b.js(t, &manifest, `
const { toManifest } = await import("/sdk/pedelec.js");
const { guidance, tools } = await import("/tools.js");
const m = toManifest({ guidance, tools });
if (m.tools.some((tool) => "handler" in tool)) throw new Error("a handler left the page");
return m;
`)
	file := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(file, manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(testenv.Binary(t), "validate-tools", file).CombinedOutput()
	if err != nil {
		t.Errorf("pedelec validate-tools on the demo's manifest: %v\n%s", err, out)
	}
	// And the definitions the page sent Core carry no handler.
	created := 0
	for _, f := range d.b.sentFrames() {
		if strings.Contains(f, `"create_session"`) {
			created++
			if strings.Contains(f, `"handler"`) {
				t.Errorf("create_session carried a handler: %s", f)
			}
		}
	}
	if created == 0 {
		t.Error("saw no create_session frame")
	}
}

func TestBrowserDemoModalTimeoutAndPageClose(t *testing.T) {
	d := openDemo(t, "?confirmTimeoutMs=1500")

	t.Run("timeout closes the modal", func(t *testing.T) {
		d.sendExample("call confirm_action")
		d.b.waitJS(t, 10*time.Second, `document.getElementById("confirm-dialog").open`, "the modal")
		d.b.waitJS(t, 10*time.Second, `!document.getElementById("confirm-dialog").open`, "the modal to close at the deadline")
		// The page's own deadline timer and Core's race: the agent learns
		// of the timeout either from Core or from the modal's answer.
		if r := d.reply(1); !strings.Contains(r, "TOOL_TIMEOUT") && !strings.Contains(r, `"confirmed":false,"reason":"timeout"`) {
			t.Errorf("the agent saw %q", r)
		}
	})

	t.Run("closing the page answers cancel before it goes", func(t *testing.T) {
		d.load("") // the default 2-minute timeout
		d.sendExample("call confirm_action")
		d.b.waitJS(t, 10*time.Second, `document.getElementById("confirm-dialog").open`, "the modal")
		// Record what the page hands its WebSocket, in storage that
		// outlives the page, then leave the page.
		d.b.js(t, nil, `
localStorage.removeItem("sent");
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) {
  localStorage.setItem("sent", (localStorage.getItem("sent") || "") + data + "\n");
  return send.call(this, data);
};`)
		if err := d.b.do(20*time.Second, chromedp.Navigate("about:blank")); err != nil {
			t.Fatal(err)
		}
		if err := d.b.do(20*time.Second, chromedp.Navigate(d.core.URL+"/healthz")); err != nil {
			t.Fatal(err)
		}
		var sent string
		d.b.js(t, &sent, `return localStorage.getItem("sent") || ""`)
		if !strings.Contains(sent, `"submit_tool_result"`) || !strings.Contains(sent, `{"confirmed":false,"reason":"page_closed"}`) {
			t.Errorf("the page should answer the pending call before it goes; it sent:\n%s", sent)
		}
	})
}
