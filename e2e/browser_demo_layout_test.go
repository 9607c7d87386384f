package e2e

// The demo's layout, measured in real Chromium: what a newcomer met on the
// page (the activity panel hiding the newest message, the examples box
// cutting a row, raw Markdown, errors looking like successes, the chat
// below the fold on a phone) stays fixed. Screenshots are saved as
// artifacts (e2e/artifacts) for a person to look at.

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// geometry is what the layout checks read from the page.
type geometry struct {
	Examples      int     `json:"examples"`
	ExamplesShown int     `json:"examplesShown"`
	CardBottom    float64 `json:"cardBottom"`
	ContentBottom float64 `json:"contentBottom"`
	LastVisible   bool    `json:"lastVisible"`
	MessagesTop   float64 `json:"messagesTop"`
	ComposerBot   float64 `json:"composerBottom"`
	Viewport      float64 `json:"viewport"`
}

const measure = `
const card = document.querySelector(".chat").getBoundingClientRect();
const box = document.getElementById("messages");
const b = box.getBoundingClientRect();
const list = document.getElementById("example-list").getBoundingClientRect();
const examples = [...document.querySelectorAll("#example-list .example")];
const shown = examples.filter((e) => {
  const r = e.getBoundingClientRect();
  return r.height > 0 && r.top >= list.top - 0.5 && r.bottom <= list.bottom + 0.5 && r.bottom <= card.bottom;
}).length;
const last = box.lastElementChild?.getBoundingClientRect();
const kids = [...document.querySelector(".chat").children].map((c) => c.getBoundingClientRect().bottom);
return {
  examples: examples.length,
  examplesShown: shown,
  cardBottom: card.bottom,
  contentBottom: Math.max(...kids),
  lastVisible: !!last && last.bottom <= b.bottom + 1 && last.bottom > b.top,
  messagesTop: b.top,
  composerBottom: document.getElementById("composer").getBoundingClientRect().bottom,
  viewport: innerHeight,
};`

func TestBrowserDemoLayout(t *testing.T) {
	d := openDemo(t, "?provider=script")

	t.Run("every example is shown whole", func(t *testing.T) {
		var g geometry
		d.b.js(t, &g, measure)
		if g.Examples != 13 || g.ExamplesShown != g.Examples {
			t.Errorf("%d of %d examples shown whole, want all 13", g.ExamplesShown, g.Examples)
		}
	})

	t.Run("with the tool activity open the newest message stays in view, inside the card", func(t *testing.T) {
		for i := 1; i <= 5; i++ {
			d.sendExample("call update_counter")
			d.reply(i)
		}
		d.click(".activity-wrap summary")
		d.b.waitJS(t, 5*time.Second, `document.querySelector(".activity-wrap").open`, "the activity panel")
		d.sendExample("say Adding two todos")
		d.reply(6)
		var g geometry
		d.b.js(t, &g, measure)
		d.b.screenshot(t, "demo-layout-activity")
		if g.ContentBottom > g.CardBottom+1 {
			t.Errorf("the chat card's content ends at %.0f px, below the card's bottom %.0f px", g.ContentBottom, g.CardBottom)
		}
		if !g.LastVisible {
			t.Error("the newest message is not visible in the message list")
		}
	})

	t.Run("Markdown is rendered, and an error result does not look like a success", func(t *testing.T) {
		d.typeAndSend("say Call `update_counter` with **care**.\ncall update_counter {\"delta\": \"two\"}\ncall get_counter {}")
		d.reply(7)
		var got struct {
			Code, Strong  string
			Raw           bool
			ErrColor      string
			OkColor       string
			ErrorLine, Ok int
		}
		d.b.js(t, &got, `
const all = document.querySelectorAll(".msg-assistant");
const el = all[all.length - 1];
// The agent's error line is marked; the success is the page's own mark of
// what its tool returned (the agent's words are never styled as one).
const err = el.querySelector(".line-error"), ok = el.querySelector("[data-tool-result].tool-ok");
return {
  Code: el.querySelector("code")?.textContent ?? "",
  Strong: el.querySelector("strong")?.textContent ?? "",
  // The say line is Markdown; result lines are JSON, shown as they are.
  Raw: /[`+"`"+`*]/.test(el.textContent.split("\n")[0]),
  ErrColor: err ? getComputedStyle(err).color : "",
  OkColor: ok ? getComputedStyle(ok).color : "",
  ErrorLine: el.querySelectorAll(".line-error").length,
  Ok: el.querySelectorAll("[data-tool-result].tool-ok").length,
};`)
		d.b.screenshot(t, "demo-layout-markdown")
		if got.Code != "update_counter" || got.Strong != "care" || got.Raw {
			t.Errorf("Markdown: code %q, bold %q, raw markers left: %v", got.Code, got.Strong, got.Raw)
		}
		if got.ErrorLine != 1 || got.Ok != 1 || got.ErrColor == got.OkColor {
			t.Errorf("error and success lines: %d error (%s), %d ok (%s); want one of each, styled differently", got.ErrorLine, got.ErrColor, got.Ok, got.OkColor)
		}
	})

	t.Run("at 390 px wide the chat is above the fold", func(t *testing.T) {
		if err := d.b.do(10*time.Second, chromedp.EmulateViewport(390, 844)); err != nil {
			t.Fatal(err)
		}
		d.load("?provider=script")
		var g geometry
		d.b.js(t, &g, measure)
		d.b.screenshot(t, "demo-layout-390")
		if g.MessagesTop >= g.Viewport/2 || g.ComposerBot > g.Viewport {
			t.Errorf("at 390x844 the messages start at %.0f px and the composer ends at %.0f px; want the chat within the first screen", g.MessagesTop, g.ComposerBot)
		}
		if g.ExamplesShown != g.Examples {
			t.Errorf("at 390 px %d of %d examples shown whole", g.ExamplesShown, g.Examples)
		}
		// Issue 23: the page was 397 px wide, every card clipped on the
		// right, and the checks above did not notice.
		checkNoSidewaysScroll(t, d, 390)
	})
}

// checkNoSidewaysScroll fails when the page is wider than the viewport or
// any card, the header or a control sticks out on the right.
func checkNoSidewaysScroll(t *testing.T, d *demo, width int) {
	t.Helper()
	var got struct {
		ScrollWidth, InnerWidth float64
		Outside                 []string
	}
	d.b.js(t, &got, `
const outside = [...document.querySelectorAll(".topbar, .topbar *, .provider-note, .layout, .card, .card > *, .composer *")]
  .filter((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && (r.right > innerWidth + 0.5 || r.left < -0.5); })
  .map((e) => (e.id ? "#" + e.id : e.tagName.toLowerCase() + "." + [...e.classList].join(".")) + " " + Math.round(e.getBoundingClientRect().left) + ".." + Math.round(e.getBoundingClientRect().right));
return { ScrollWidth: document.documentElement.scrollWidth, InnerWidth: innerWidth, Outside: outside };`)
	if got.InnerWidth != float64(width) {
		t.Fatalf("the viewport is %v px wide, want %d", got.InnerWidth, width)
	}
	if got.ScrollWidth > got.InnerWidth || len(got.Outside) > 0 {
		t.Errorf("at %d px the page is %v px wide; outside the viewport: %v", width, got.ScrollWidth, got.Outside)
	}
}
