package e2e

// The demo's layout, measured in real Chromium: what a newcomer met on the
// page (the activity panel hiding the newest message, the examples box
// cutting a row, raw Markdown, errors looking like successes, the chat
// below the fold on a phone) stays fixed. Screenshots are saved as
// artifacts (e2e/artifacts) for a person to look at.

import (
	"fmt"
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
		if g.Examples != 14 || g.ExamplesShown != g.Examples {
			t.Errorf("%d of %d examples shown whole, want all 14", g.ExamplesShown, g.Examples)
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

	t.Run("at 1280 and 1024 px the header is whole", func(t *testing.T) {
		for _, w := range []int64{1280, 1024} {
			if err := d.b.do(10*time.Second, chromedp.EmulateViewport(w, 800)); err != nil {
				t.Fatal(err)
			}
			var h headerFit
			d.b.js(t, &h, measureHeaderFit)
			d.b.screenshot(t, fmt.Sprintf("demo-layout-%d", w))
			if h.TitleCut || h.TaglineCut || h.SelectCut || h.Outside {
				t.Errorf("at %d px the header cuts: %+v", w, h)
			}
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
		// The page's cards are on the first screen too, with a chat area
		// to use, and the provider and model fields are wide enough to read.
		var p phoneFit
		d.b.js(t, &p, measurePhone)
		if p.CardTop >= p.Viewport || p.CardBottom <= 0 || p.MessagesHeight < 160 || p.ModelWidth < 100 || p.SelectWidth < 150 || p.Outside || p.TitleCut {
			t.Errorf("at 390x844: %+v (want a page card on screen, messages at least 160 px tall, the model field at least 100 px and the provider select at least 150 px wide, nothing outside the screen)", p)
		}
		d.sendExample("call update_counter")
		d.reply(8)
		var counterInView bool
		d.b.js(t, &counterInView, `const r = document.getElementById("counter-card").getBoundingClientRect(); return r.left >= -1 && r.right <= innerWidth + 1 && r.top < innerHeight && r.bottom > 0;`)
		d.b.screenshot(t, "demo-layout-390-after-call")
		if !counterInView {
			t.Error("at 390 px the counter the agent changed is not in view")
		}
		// Issue 23: the page was 397 px wide, every card clipped on the
		// right, and the checks above did not notice.
		checkNoSidewaysScroll(t, d, 390)
		var strip struct{ Left, Right float64 }
		d.b.js(t, &strip, `const r = document.querySelector(".app").getBoundingClientRect(); return { Left: r.left, Right: r.right };`)
		if strip.Left < 0 || strip.Right > 390 {
			t.Errorf("the cards' strip is at %.0f..%.0f px, outside the screen", strip.Left, strip.Right)
		}
	})
}

type headerFit struct {
	TitleCut, TaglineCut, SelectCut, Outside bool
}

const measureHeaderFit = `
const cut = (el) => el.scrollWidth > el.clientWidth + 1;
const sel = document.getElementById("provider");
const ctl = [sel, document.getElementById("model"), document.getElementById("restart"), document.getElementById("status")];
return {
  TitleCut: cut(document.querySelector(".brand h1")),
  TaglineCut: cut(document.querySelector(".tagline")) || document.querySelector(".tagline").getBoundingClientRect().width < 200,
  // The chosen provider's name fits in the select (with room for its arrow).
  SelectCut: (() => { const c = document.createElement("canvas").getContext("2d"); c.font = getComputedStyle(sel).font; return c.measureText(sel.selectedOptions[0]?.textContent ?? "").width > sel.clientWidth - 24; })(),
  Outside: ctl.some((e) => e.getBoundingClientRect().right > innerWidth + 1),
};`

type phoneFit struct {
	CardTop, CardBottom, Viewport, MessagesHeight, ModelWidth, SelectWidth float64
	Outside, TitleCut                                                      bool
}

const measurePhone = `
const card = document.getElementById("counter-card").getBoundingClientRect();
const ctl = ["provider", "model", "restart", "status"].map((id) => document.getElementById(id).getBoundingClientRect());
return {
  CardTop: card.top, CardBottom: card.bottom, Viewport: innerHeight,
  MessagesHeight: document.getElementById("messages").getBoundingClientRect().height,
  ModelWidth: document.getElementById("model").getBoundingClientRect().width,
  SelectWidth: document.getElementById("provider").getBoundingClientRect().width,
  Outside: ctl.some((r) => r.right > innerWidth + 1 || r.left < -1),
  TitleCut: (() => { const h = document.querySelector(".brand h1"); const r = h.getBoundingClientRect(); return h.scrollWidth > h.clientWidth + 1 || r.right > document.getElementById("restart").getBoundingClientRect().left; })(),
};`

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
  // The page's cards on a phone are a strip that scrolls sideways by
  // itself: a card out of view there is the strip's, not the page's.
  .filter((e) => !e.closest(".app") || getComputedStyle(document.querySelector(".app")).overflowX === "visible")
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
