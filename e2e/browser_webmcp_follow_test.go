package e2e

// Declarative WebMCP across same-origin navigations, in real Chromium with
// Pedelec's polyfill and with Chromium's native WebMCP: a session that
// follows the page (createSession({followPage: true, webmcp: true})) over
// the pages of testdata/webmcp/trip.html. A form tool whose submission
// navigates is answered by the next page (onNavigatedCall) or, when that
// page answers nothing, with "navigated to <url>"; a registerTool tool
// that follows a link likewise; each page's tools, forms and
// registerTool's, replace the last page's, and the agent's turn goes on.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// followLine finds the agent's answer (a tool-call JSON line) that
// contains want in the chat; a line may come twice (a page's last events
// are also given to the next one), it is read once.
func followLine(t *testing.T, chat, want string) (agentLine, bool) {
	t.Helper()
	for _, l := range strings.Split(chat, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "{") && strings.Contains(l, want) {
			var a agentLine
			if err := json.Unmarshal([]byte(l), &a); err != nil {
				t.Fatalf("%v: %s", err, l)
			}
			return a, true
		}
	}
	return agentLine{}, false
}

// One turn of the script agent (the real `pedelec tool-call`) over four
// pages: a form that submits to a page that answers, that page's own form
// and a call of the old page's tool (gone), a registerTool tool that
// follows a link, a form that submits to a page that answers nothing, and
// that last page's tool.
func TestBrowserWebMCPFormsFollowThePage(t *testing.T) {
	testenv.SkipShort(t, "chromium")
	for _, mode := range webmcpModes {
		t.Run(mode.name, func(t *testing.T) {
			b, core := webmcpPage(t, mode.native, "trip.html?provider=script")
			var start struct {
				ID     string `json:"id"`
				Origin string `json:"origin"`
			}
			b.js(t, &start, waitForTools+`
await waitFor(() => session.tools.includes("search_flights") && session.tools.includes("open_map"), "the trip page's tools");
session.sendTurn([
  'call search_flights {"from":"JFK","to":"LHR"}',
  'call book_flight {"flight":"PD7"}',
  'call search_flights {"from":"JFK","to":"CDG"}',
  'call open_help {}',
  'call ask_question {"question":"bikes on board?"}',
  'call rate_help {"stars":4}',
  'say finished',
].join("\n")).catch(() => {}); // the page that sent it is gone before it ends
return { id: session.sessionId, origin: location.origin };
`)
			b.waitJS(t, 90*time.Second, `location.pathname === "/thanks.html" && window.ready === true && window.chat().includes("finished")`, "the turn's end on the last page")
			var got struct {
				Chat   string   `json:"chat"`
				ID     string   `json:"id"`
				Tools  []string `json:"tools"`
				Errors []string `json:"errors"`
			}
			b.js(t, &got, `return { chat: window.chat(), id: session.sessionId, tools: [...session.tools].sort(), errors: window.pageErrors };`)
			if got.ID != start.ID {
				t.Errorf("the last page's session is %s, want %s (followed)", got.ID, start.ID)
			}
			if strings.Join(got.Tools, ",") != "rate_help" {
				t.Errorf("the last page's tools %v, want only its own", got.Tools)
			}
			results := start.Origin + "/results.html?from=JFK&to=LHR"
			want := []struct{ what, find, result string }{
				{"the search, answered by the results page", `"page":"results"`,
					`{"page":"results","flights":["PD1 JFK-LHR","PD7 JFK-LHR"],"left":{"submitted":true,"navigated":true,"url":"` + results + `","method":"GET"}}`},
				{"the results page's own form", `"booked"`, `{"booked":"PD7"}`},
				{"the link, answered by the help page", `"page":"help"`, `{"page":"help","from":"` + results + `"}`},
				{"the last page's tool", `"rated"`, `{"rated":4}`},
			}
			for _, w := range want {
				l, ok := followLine(t, got.Chat, w.find)
				if !ok || !l.OK || string(l.Result) != w.result {
					t.Errorf("%s: %+v %s, want %s\nchat:\n%s", w.what, l, l.Result, w.result, got.Chat)
				}
			}
			if l, ok := followLine(t, got.Chat, `"TOOL_NOT_FOUND"`); !ok || !strings.Contains(l.Error.Message, "search_flights") {
				t.Errorf("the trip page's form, called on the results page: %+v\nchat:\n%s", l, got.Chat)
			}
			thanks := start.Origin + "/thanks.html?question=bikes+on+board%3F"
			l, ok := followLine(t, got.Chat, `navigated to `+thanks)
			var nav map[string]any
			if ok {
				json.Unmarshal(l.Result, &nav)
			}
			if !ok || !l.OK || nav["submitted"] != true || nav["navigated"] != true || nav["url"] != thanks || nav["method"] != "GET" || nav["title"] != "Thank you" {
				t.Errorf("the question, whose page answers nothing: %+v %s\nchat:\n%s", l, l.Result, got.Chat)
			}
			if len(got.Errors) != 0 {
				t.Errorf("the last page reported %v", got.Errors)
			}

			// Chat the agent wrote while no page was loaded reaches the next page.
			b.js(t, nil, `location.href = "/trip.html"; return null;`)
			b.waitJS(t, 30*time.Second, `location.pathname === "/trip.html" && window.ready === true`, "the trip page again")
			b.js(t, nil, waitForTools+`
await waitFor(() => session.tools.includes("open_map"), "open_map");
// The last turn's text can reach the page before its end does: a turn
// sent in between is SESSION_BUSY, so it is sent again until it starts.
(async () => {
  for (;;) {
    try { await session.sendTurn("call open_map {}\nsay written while no page was loaded"); return; }
    catch (e) { if (e.code !== "SESSION_BUSY") return; await new Promise((r) => setTimeout(r, 100)); }
  }
})();
return null;`)
			b.waitJS(t, 30*time.Second, `location.pathname === "/map.html" && window.ready === true`, "the map page, its session not resumed yet")
			turnsDone := func() int {
				n := 0
				for _, line := range testenv.Lines(core.Logs()) {
					if strings.Contains(line, "turn done") && strings.Contains(line, start.ID) {
						n++
					}
				}
				return n
			}
			testenv.Await(t, 60*time.Second, "the second turn to end with no page loaded", func() bool { return turnsDone() >= 2 })
			var mapPage struct {
				Mine string `json:"mine"`
				ID   string `json:"id"`
			}
			b.js(t, &mapPage, waitForTools+`await window.start(); await waitFor(() => window.pageChat.includes("written while no page was loaded"), "the chat"); return { mine: window.pageChat, id: session.sessionId };`)
			if mapPage.ID != start.ID || !strings.Contains(mapPage.Mine, "TOOL_TIMEOUT") {
				t.Errorf("the map page (session %s) got %q", mapPage.ID, mapPage.Mine)
			}
		})
	}
}

// The same pages for an MCP client: the form call made on the trip page
// gets the results page's answer, the client hears tools/list_changed,
// and the results page's form and link tools answer it.
func TestBrowserWebMCPFormsFollowThePageOverMCP(t *testing.T) {
	testenv.SkipShort(t, "chromium")
	for _, mode := range webmcpModes {
		t.Run(mode.name, func(t *testing.T) {
			b, core := webmcpPage(t, mode.native, "trip.html?provider=mcp")
			var origin string
			b.js(t, &origin, `return location.origin;`)
			c := startPedelecMCP(t, core.URL, core.StateDir)
			testenv.Await(t, 15*time.Second, "search_flights over MCP", func() bool { return containsString(c.toolNames(t), "search_flights") })
			ctx := t.Context()
			// A submission that should navigate but leaves the tab here is
			// answered here after all, once the page did not unload.
			res := c.call(t, ctx, "save_draft", `{"name":"summer"}`)
			var draft map[string]any
			if err := json.Unmarshal([]byte(resultText(res)), &draft); err != nil || res.IsError || draft["submitted"] != true || draft["url"] != origin+"/no-content?name=summer" {
				t.Errorf("save_draft, whose action answers 204: %v %q", err, resultText(res))
			}
			before := c.listChanges()
			called := time.Now()
			res = c.call(t, ctx, "search_flights", `{"from":"JFK","to":"LHR"}`)
			// Measured, not asserted (docs/performance.md): the submission, the
			// next page's load and resume, its tools sent, its answer.
			t.Logf("search_flights answered by the next page in %v", time.Since(called).Round(time.Millisecond))
			var got struct {
				Page    string         `json:"page"`
				Flights []string       `json:"flights"`
				Left    map[string]any `json:"left"`
			}
			if err := json.Unmarshal([]byte(resultText(res)), &got); err != nil || res.IsError || got.Page != "results" || got.Left["url"] != origin+"/results.html?from=JFK&to=LHR" {
				t.Fatalf("search_flights over MCP: %v %q", err, resultText(res))
			}
			testenv.Await(t, 15*time.Second, "tools/list_changed with the results page's tools", func() bool {
				names := c.toolNames(t)
				return c.listChanges() > before && containsString(names, "book_flight") && containsString(names, "open_help") && !containsString(names, "search_flights")
			})
			if res := c.call(t, ctx, "book_flight", `{"flight":"PD1"}`); res.IsError || resultText(res) != `{"booked":"PD1"}` {
				t.Errorf("book_flight over MCP: %q", resultText(res))
			}
			if res := c.call(t, ctx, "open_help", `{}`); res.IsError || resultText(res) != fmt.Sprintf(`{"page":"help","from":"%s/results.html?from=JFK&to=LHR"}`, origin) {
				t.Errorf("open_help over MCP: %q", resultText(res))
			}
			b.waitJS(t, 15*time.Second, `location.pathname === "/help.html"`, "the help page")
		})
	}
}

// A real agent CLI (codex, against a scripted model): its turn calls the
// trip page's form, then the results page's, and its next turn, sent from
// the results page, is told the tools changed.
func TestBrowserWebMCPFormsFollowThePageWithCodex(t *testing.T) {
	testenv.SkipShort(t, "chromium and the codex CLI")
	for _, mode := range webmcpModes {
		t.Run(mode.name, func(t *testing.T) { formsFollowThePageWithCodex(t, mode.native) })
	}
}

func formsFollowThePageWithCodex(t *testing.T, native bool) {
	ms := codexCLI.newServer(t,
		modelserver.Run(`pedelec tool-call search_flights '{"from":"JFK","to":"LHR"}'`),
		modelserver.Run(`pedelec tool-call book_flight '{"flight":"PD1"}'`),
		modelserver.Say("Booked."),
		modelserver.Say("You are on the results page."),
	)
	b, _ := webmcpEnvIn(t, webmcpBrowser(t, native), "trip.html?provider=codex", func(origin string) *testenv.Server {
		return serveCLI(t, codexCLI, ms.URL, "--allow-origin", origin)
	})
	b.js(t, nil, waitForTools+`
await waitFor(() => session.tools.includes("search_flights"), "search_flights");
session.sendTurn("Find me a flight from JFK to London and book the first.").catch(() => {});
return null;`)
	b.waitJS(t, 90*time.Second, `location.pathname === "/results.html" && window.ready === true && window.chat().includes("Booked.") && session.getStatus() === "idle"`, "the first turn's end on the results page")
	var second string
	b.js(t, &second, `return (await session.sendTurn("Where am I?")).text;`)
	if !strings.Contains(second, "You are on the results page.") {
		t.Errorf("the second turn: %q", second)
	}
	reqs := ms.Requests()
	if len(reqs) != 4 {
		t.Fatalf("model requests = %d, want 4", len(reqs))
	}
	if out := codexCLI.toolOutput(reqs[1]); !strings.Contains(out, `"page":"results"`) {
		t.Errorf("the search's answer from the results page did not reach the agent:\n%s", out)
	}
	if out := codexCLI.toolOutput(reqs[2]); !strings.Contains(out, `{"ok":true,"result":{"booked":"PD1"}}`) {
		t.Errorf("book_flight's result did not reach the agent:\n%s", out)
	}
	body := string(reqs[3].Body)
	for _, want := range []string{"Tools changed since your last turn", "book_flight (new)", "open_help (new)", "Removed (a call now fails with TOOL_NOT_FOUND): ", "search_flights"} {
		if !strings.Contains(body, want) {
			t.Errorf("the second turn's prompt lacks %q", want)
		}
	}
}
