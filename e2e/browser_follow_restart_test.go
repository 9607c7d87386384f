package e2e

// A session that follows the page keeps its grace across a real restart
// of `pedelec serve`: the grace is in the durable record, so the page that
// reconnects to the new Core resumes it and takes it on to the next page,
// and a tab closed while Core was down ends its session once the grace
// has passed (not after the resume window, ten minutes).

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

func TestBrowserFollowGraceSurvivesCoreRestart(t *testing.T) {
	testenv.SkipShort(t, "chromium")
	b, core := webmcpPage(t, false, "trip.html?provider=script")
	var first struct {
		ID     string `json:"id"`
		Origin string `json:"origin"`
	}
	b.js(t, &first, `return { id: session.sessionId, origin: location.origin };`)

	// A second tab with its own following session, closed while Core is down.
	tab, closeTab := chromedp.NewContext(b.ctx)
	if err := chromedp.Do(tab); err != nil { // opens the tab; must not carry a timeout
		t.Fatal(err)
	}
	other := &browser{ctx: tab}
	other.open(t, first.Origin+"/trip.html?provider=script", "ready")
	var closedID string
	other.js(t, &closedID, `return session.sessionId;`)

	core.Stop(t)
	b.waitJS(t, 10*time.Second, "window.session.isReconnecting()", "the page to notice Core is gone")
	closeTab()
	core.Restart(t)
	b.waitJS(t, 30*time.Second, `!window.session.isReconnecting() && window.session.getStatus() === "idle"`, "the session resumed by the page")

	// The next page after the restart still gets the session and the call.
	b.js(t, nil, waitForTools+`
await waitFor(() => session.tools.includes("search_flights"), "search_flights");
session.sendTurn('call search_flights {"from":"OSL","to":"BER"}\ncall book_flight {"flight":"PD1"}\nsay after the restart').catch(() => {});
return null;`)
	b.waitJS(t, 60*time.Second, `location.pathname === "/results.html" && window.ready === true && window.chat().includes("after the restart")`, "the turn's end on the results page")
	var got struct {
		ID   string `json:"id"`
		Chat string `json:"chat"`
	}
	b.js(t, &got, `return { id: session.sessionId, chat: window.chat() };`)
	if got.ID != first.ID {
		t.Errorf("the results page's session is %s, want %s: the navigation after the restart ended it", got.ID, first.ID)
	}
	for _, want := range []string{`"page":"results"`, `{"ok":true,"result":{"booked":"PD1"}}`} {
		if !strings.Contains(got.Chat, want) {
			t.Errorf("chat lacks %s:\n%s", want, got.Chat)
		}
	}

	ended := func(id, reason string) bool {
		for _, l := range testenv.Lines(core.Logs()) {
			if strings.Contains(l, "session ended") && strings.Contains(l, id) && strings.Contains(l, reason) {
				return true
			}
		}
		return false
	}
	testenv.Await(t, 60*time.Second, "the closed tab's session to end after its grace", func() bool { return ended(closedID, "disconnect") })
	if ended(first.ID, "") {
		t.Errorf("the followed session ended:\n%s", core.Logs())
	}
}
