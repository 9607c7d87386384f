package e2e

// Declarative WebMCP (<form toolname>), tools registered from inline
// classic scripts, and execute results written as MCP CallToolResults, in
// real Chromium twice: with Pedelec's polyfill, and with Chromium's own
// WebMCP (--enable-features=WebMCPTesting: a native document.modelContext
// with getTools/executeTool and a form's schema synthesized by the
// browser). Calls go through the real binary (the script provider's agent
// runs `pedelec tool-call`) and through `pedelec mcp`.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/kaoruisaac/pedelec/e2e/modelserver"
	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// webmcpModes are the two ways a page meets WebMCP: Pedelec's polyfill,
// or Chromium's native modelContext.
var webmcpModes = []struct {
	name   string
	native bool
}{{"polyfill", false}, {"native", true}}

// webmcpBrowser is a browser with or without Chromium's native WebMCP.
func webmcpBrowser(t testing.TB, native bool) *browser {
	t.Helper()
	if native {
		return newBrowserWith(t, chromedp.Flag("enable-features", "WebMCPTesting"))
	}
	return newBrowser(t)
}

// webmcpPage opens page in a browser of the mode, on a Core that allows
// the app, and checks the mode is the one asked for.
func webmcpPage(t testing.TB, native bool, page string) (*browser, *testenv.Server) {
	t.Helper()
	b, core := webmcpEnvIn(t, webmcpBrowser(t, native), page, func(origin string) *testenv.Server {
		return testenv.Serve(t, []string{"--allow-origin", origin})
	})
	var hasNative bool
	b.js(t, &hasNative, `return typeof document.modelContext?.getTools === "function";`)
	if hasNative != native {
		t.Fatalf("native getTools present = %v, want %v", hasNative, native)
	}
	return b, core
}

// specSchema is the input schema in a tool-spec answer: a WebMCP tool's
// inputSchema where Core takes it, else its argsSchema.
func specSchema(spec json.RawMessage) json.RawMessage {
	var s struct {
		InputSchema json.RawMessage `json:"inputSchema"`
		ArgsSchema  json.RawMessage `json:"argsSchema"`
	}
	json.Unmarshal(spec, &s)
	if len(s.InputSchema) > 0 {
		return s.InputSchema
	}
	return s.ArgsSchema
}

const waitForTools = `
window.waitFor = async (cond, what) => { const end = Date.now() + 10000; while (!cond()) { if (Date.now() > end) throw new Error("timed out waiting for " + what + "; tools: " + session.tools); await new Promise((r) => setTimeout(r, 10)); } };
`

func TestBrowserWebMCPDeclarativeForms(t *testing.T) {
	testenv.SkipShort(t, "chromium")
	for _, mode := range webmcpModes {
		t.Run(mode.name, func(t *testing.T) {
			b, _ := webmcpPage(t, mode.native, "forms.html")

			t.Run("each form is a tool with its schema; a call fills, submits and gets respondWith's value", func(t *testing.T) {
				var got struct {
					Tools   []string         `json:"tools"`
					Text    string           `json:"text"`
					Notes   []map[string]any `json:"notes"`
					Submits []map[string]any `json:"submits"`
				}
				b.js(t, &got, waitForTools+`
window.session = await window.pedelec.createSession({ provider: "script", webmcp: true });
window.errors = [];
session.onError((e) => window.errors.push(e.code + ": " + e.message));
const { text } = await session.sendTurn([
  'spec search_flights',
  'call add_note {"text":"pack the charger","pinned":true}',
  'call search_flights {"from":"jfk","to":"LHR"}',
  'call add_note {"pinned":false}',
].join("\n"));
return { tools: [...session.tools].sort(), text, notes: window.notes, submits: window.submits };
`)
				if strings.Join(got.Tools, ",") != "add_note,contact_us,search_flights" {
					t.Fatalf("session tools %v", got.Tools)
				}
				lines := agentLines(t, got.Text)
				if len(lines) != 4 {
					t.Fatalf("agent saw %d answers:\n%s", len(lines), got.Text)
				}
				var spec struct {
					Properties map[string]map[string]any `json:"properties"`
					Required   []string                  `json:"required"`
				}
				json.Unmarshal(specSchema(lines[0].Result), &spec)
				from := spec.Properties["from"]
				if !lines[0].OK || from["type"] != "string" || !strings.Contains(fmt.Sprint(from["pattern"]), "[A-Z]{3}") ||
					from["description"] != "IATA code of the departure airport, such as JFK" ||
					spec.Properties["flexible"]["type"] != "boolean" || strings.Join(spec.Required, ",") != "from,to" {
					t.Errorf("search_flights' schema as the agent reads it: %s", lines[0].Result)
				}
				if !lines[1].OK || string(lines[1].Result) != `{"saved":{"id":1,"text":"pack the charger","pinned":true}}` {
					t.Errorf("add_note: %+v %s", lines[1], lines[1].Result)
				}
				if len(got.Submits) != 1 || got.Submits[0]["agentInvoked"] != true {
					t.Errorf("the page's submit listener saw %v, want one agentInvoked submission", got.Submits)
				}
				if lines[2].OK || lines[2].Error.Code != "TOOL_ARGS_INVALID" || !strings.Contains(lines[2].Error.Message, "from") {
					t.Errorf("a value the form's pattern refuses: %+v", lines[2])
				}
				if lines[3].OK || lines[3].Error.Code != "TOOL_ARGS_INVALID" || !strings.Contains(lines[3].Error.Message, "text") {
					t.Errorf("a missing required field: %+v", lines[3])
				}
			})

			if !mode.native {
				t.Run("the polyfill's schema of numbers, selects, radio groups and dates", func(t *testing.T) {
					var got struct {
						Text string `json:"text"`
					}
					b.js(t, &got, waitForTools+`
window.addBooking();
await waitFor(() => session.tools.includes("book_table"), "book_table");
return { text: (await session.sendTurn('spec book_table\ncall book_table {"people":2,"area":"out","time":"18:00","day":"2027-01-15"}\ncall book_table {"people":2,"area":"roof","time":"18:00"}')).text };
`)
					lines := agentLines(t, got.Text)
					if len(lines) != 3 {
						t.Fatalf("agent saw %d answers:\n%s", len(lines), got.Text)
					}
					schema := specSchema(lines[0].Result)
					want := `{"type":"object","properties":{` +
						`"people":{"type":"integer","minimum":1,"maximum":12,"description":"People"},` +
						`"area":{"type":"string","enum":["in","out"],"description":"Area. One of: \"in\" (Inside), \"out\" (Terrace)"},` +
						`"time":{"type":"string","enum":["18:00","20:30"],"description":"Time. One of: \"18:00\" (Early), \"20:30\" (Late)"},` +
						`"day":{"type":"string","pattern":"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$","description":"Day. A date, YYYY-MM-DD"}},` +
						`"required":["people","time"]}`
					if string(schema) != want {
						t.Errorf("book_table's schema:\n got %s\nwant %s", schema, want)
					}
					if !lines[1].OK || string(lines[1].Result) != `{"booked":{"people":2,"area":"out","time":"18:00","day":"2027-01-15"}}` {
						t.Errorf("book_table: %s", lines[1].Result)
					}
					if lines[2].OK || lines[2].Error.Code != "TOOL_ARGS_INVALID" {
						t.Errorf("an area the select does not have: %+v", lines[2])
					}
				})
			}

			t.Run("forms added and removed later are followed", func(t *testing.T) {
				var got struct {
					Rated string `json:"rated"`
					Gone  string `json:"gone"`
				}
				b.js(t, &got, waitForTools+`
window.addRating();
await waitFor(() => session.tools.includes("rate_trip"), "rate_trip");
const rated = (await session.sendTurn('call rate_trip {"stars":"5","comment":"lovely"}')).text;
window.removeNote();
await waitFor(() => !session.tools.includes("add_note"), "add_note gone");
const gone = (await session.sendTurn('call add_note {"text":"late"}')).text;
return { rated, gone };
`)
				if l := agentLines(t, got.Rated); len(l) != 1 || !l[0].OK || string(l[0].Result) != `{"rated":"5","comment":"lovely"}` {
					t.Errorf("rate_trip, added after the session began:\n%s", got.Rated)
				}
				if l := agentLines(t, got.Gone); len(l) != 1 || l[0].OK || l[0].Error.Code != "TOOL_NOT_FOUND" {
					t.Errorf("add_note after its form was removed:\n%s", got.Gone)
				}
			})

			t.Run("without toolautosubmit the form is filled and the user's submission answers", func(t *testing.T) {
				b.js(t, nil, `window.contactTurn = session.sendTurn('call contact_us {"message":"two seats by the window"}'); return null;`)
				b.waitJS(t, 15*time.Second, `document.querySelector("#contact input").value === "two seats by the window" && document.activeElement?.id === "send"`,
					"the form filled and its submit button focused")
				var text string
				b.js(t, &text, `document.getElementById("send").click(); return (await window.contactTurn).text;`)
				if l := agentLines(t, text); len(l) != 1 || !l[0].OK || string(l[0].Result) != `{"sent":"two seats by the window"}` {
					t.Errorf("contact_us after the user sent it:\n%s", text)
				}
			})

			t.Run("a form removed while its call waits for the user ends the call", func(t *testing.T) {
				b.js(t, nil, `window.contactTurn = session.sendTurn('call contact_us {"message":"never sent"}'); return null;`)
				b.waitJS(t, 15*time.Second, `document.querySelector("#contact input").value === "never sent"`, "the form filled")
				var text string
				b.js(t, &text, `document.getElementById("contact").remove(); return (await window.contactTurn).text;`)
				l := agentLines(t, text)
				var r struct {
					Error struct{ Code, Message string } `json:"error"`
				}
				if len(l) == 1 {
					json.Unmarshal(l[0].Result, &r)
				}
				if len(l) != 1 || r.Error.Code != "TOOL_HANDLER_ERROR" {
					t.Errorf("contact_us after its form was removed:\n%s", text)
				}
				t.Logf("the agent read: %s", r.Error.Message)
			})
		})
	}
}

// A real agent CLI (codex, against a scripted model) calls a form tool,
// and its next turn is told of a form the page added meanwhile.
func TestBrowserWebMCPFormsWithCodex(t *testing.T) {
	testenv.SkipShort(t, "chromium and the codex CLI")
	ms := codexCLI.newServer(t,
		modelserver.Run(`pedelec tool-call add_note '{"text":"call the hotel"}'`),
		modelserver.Say("Noted."),
		modelserver.Run(`pedelec tool-call rate_trip '{"stars":"4"}'`),
		modelserver.Say("Rated."),
	)
	b, _ := webmcpEnv(t, "forms.html", func(origin string) *testenv.Server {
		return serveCLI(t, codexCLI, ms.URL, "--allow-origin", origin)
	})
	var got struct {
		First  string           `json:"first"`
		Second string           `json:"second"`
		Notes  []map[string]any `json:"notes"`
	}
	b.js(t, &got, `
window.session = await window.pedelec.createSession({ provider: "codex", webmcp: true });
`+waitForTools+`
const first = (await session.sendTurn("Note: call the hotel.")).text;
window.addRating();
await waitFor(() => session.tools.includes("rate_trip"), "rate_trip");
const second = (await session.sendTurn("Rate the trip 4 stars.")).text;
await session.end();
return { first, second, notes: window.notes };
`)
	if len(got.Notes) != 1 || got.Notes[0]["text"] != "call the hotel" || !strings.Contains(got.First, "Noted.") || !strings.Contains(got.Second, "Rated.") {
		t.Errorf("turns %q, %q; notes %v", got.First, got.Second, got.Notes)
	}
	reqs := ms.Requests()
	if len(reqs) != 4 {
		t.Fatalf("model requests = %d, want 4", len(reqs))
	}
	if out := codexCLI.toolOutput(reqs[1]); !strings.Contains(out, `{"ok":true,"result":{"saved":{"id":1,"text":"call the hotel","pinned":false}}}`) {
		t.Errorf("add_note's result did not reach the agent:\n%s", out)
	}
	body := string(reqs[2].Body)
	for _, want := range []string{"Tools changed since your last turn", "rate_trip (new)"} {
		if !strings.Contains(body, want) {
			t.Errorf("the second turn's prompt lacks %q", want)
		}
	}
	if out := codexCLI.toolOutput(reqs[3]); !strings.Contains(out, `"rated":"4"`) {
		t.Errorf("rate_trip's result did not reach the agent:\n%s", out)
	}
}

// A form whose action navigates answers before the page unloads: the
// agent (an MCP client here) learns it was submitted and the URL it went to.
func TestBrowserWebMCPFormNavigates(t *testing.T) {
	testenv.SkipShort(t, "chromium")
	for _, mode := range webmcpModes {
		t.Run(mode.name, func(t *testing.T) {
			b, core := webmcpPage(t, mode.native, "forms.html")
			var origin string
			b.js(t, &origin, `window.session = await window.pedelec.createSession({ provider: "mcp", webmcp: true }); return location.origin;`)
			c := startPedelecMCP(t, core.URL, core.StateDir)
			testenv.Await(t, 15*time.Second, "search_flights over MCP", func() bool { return containsString(c.toolNames(t), "search_flights") })
			// A form added now reaches the client with tools/list_changed.
			before := c.listChanges()
			b.js(t, nil, `window.addRating(); return null;`)
			testenv.Await(t, 15*time.Second, "tools/list_changed with rate_trip", func() bool {
				return c.listChanges() > before && containsString(c.toolNames(t), "rate_trip")
			})
			ctx := t.Context()
			res := c.call(t, ctx, "search_flights", `{"from":"JFK","to":"LHR","flexible":true}`)
			var got map[string]any
			if err := json.Unmarshal([]byte(resultText(res)), &got); err != nil || res.IsError {
				t.Fatalf("search_flights over MCP: %v %q", err, resultText(res))
			}
			want := origin + "/next.html?from=JFK&to=LHR&flexible=on"
			if got["submitted"] != true || got["navigated"] != true || got["url"] != want || got["method"] != "GET" {
				t.Errorf("the answer: %v, want it submitted and navigated to %s", got, want)
			}
			b.waitJS(t, 15*time.Second, `location.pathname === "/next.html" && window.ready === true`, "the browser on the results page")
			var arrived string
			b.js(t, &arrived, `return window.arrived;`)
			if arrived != "?from=JFK&to=LHR&flexible=on" {
				t.Errorf("the results page got %q", arrived)
			}
		})
	}
}

// A page that registers from inline classic scripts after the classic
// line 1 (/sdk/webmcp.js), each tool returning what MCP-B's libraries
// return: a CallToolResult, with isError for a failure.
func TestBrowserWebMCPClassicScriptAndMCPResults(t *testing.T) {
	testenv.SkipShort(t, "chromium")
	for _, mode := range webmcpModes {
		t.Run(mode.name, func(t *testing.T) {
			b, core := webmcpPage(t, mode.native, "classic.html")
			var got struct {
				Tools []string `json:"tools"`
				Text  string   `json:"text"`
			}
			b.js(t, &got, `
window.session = await window.pedelec.createSession({ provider: "script", webmcp: true });
const { text } = await session.sendTurn([
  'call add_to_cart {"sku":"kettle"}',
  'call cart_summary {}',
  'call checkout {}',
  'call early_bird {}',
].join("\n"));
return { tools: [...session.tools].sort(), text };
`)
			want := "add_to_cart,cart_summary,checkout,empty_cart"
			if mode.native {
				// Registered before Pedelec's line 1, read from the browser's getTools().
				want = "add_to_cart,cart_summary,checkout,early_bird,empty_cart"
			}
			if strings.Join(got.Tools, ",") != want {
				t.Fatalf("session tools %v, want %s", got.Tools, want)
			}
			lines := agentLines(t, got.Text)
			if len(lines) != 4 {
				t.Fatalf("agent saw %d answers:\n%s", len(lines), got.Text)
			}
			if !lines[0].OK || string(lines[0].Result) != `{"cart":["kettle"]}` {
				t.Errorf("add_to_cart's structuredContent is the result: %s", lines[0].Result)
			}
			if !lines[1].OK || string(lines[1].Result) != `"1 item(s): kettle"` {
				t.Errorf("cart_summary's text content is the result: %s", lines[1].Result)
			}
			var failed struct {
				Error struct{ Code, Message string } `json:"error"`
			}
			json.Unmarshal(lines[2].Result, &failed)
			if failed.Error.Code != "TOOL_HANDLER_ERROR" || failed.Error.Message != "Error: the card was declined" {
				t.Errorf("checkout's isError result is a handler error: %+v %s", lines[2], lines[2].Result)
			}
			if mode.native {
				if !lines[3].OK || string(lines[3].Result) != `{"early":true}` {
					t.Errorf("early_bird through the browser's executeTool: %s", lines[3].Result)
				}
			} else if lines[3].OK || lines[3].Error.Code != "TOOL_NOT_FOUND" {
				t.Errorf("early_bird without a native modelContext: %+v", lines[3])
			}

			if mode.native {
				// A defineTool tool, shown to the browser's agent, is not read back as one of the page's.
				var seen struct {
					Browser bool     `json:"browser"`
					Session []string `json:"session"`
					Errors  []string `json:"errors"`
				}
				b.js(t, &seen, `
const { defineTool } = await import(document.querySelector('script[type=module]').textContent.match(/"([^"]+pedelec.js)"/)[1]);
const own = defineTool({ name: "own_tool", description: "Pedelec's own.", argsSchema: { type: "object", properties: {} }, handler: () => ({ own: true }) });
const s = await window.pedelec.createSession({ provider: "script", webmcp: true, skills: { guidance: "g", tools: [own] } });
const errors = []; s.onError((e) => errors.push(e.code + ": " + e.message));
await new Promise((r) => setTimeout(r, 300));
const browser = (await document.modelContext.getTools()).some((t) => t.name === "own_tool");
const session = s.tools.filter((n) => n === "own_tool");
await s.end();
return { browser, session, errors };
`)
				if !seen.Browser || len(seen.Session) != 1 || len(seen.Errors) != 0 {
					t.Errorf("own_tool: in the browser's list %v, in the session %v, errors %v", seen.Browser, seen.Session, seen.Errors)
				}
			}

			// The same tools over MCP: the page's CallToolResult, its
			// structuredContent and its error's own text.
			b.js(t, nil, `await session.end(); window.session = await window.pedelec.createSession({ provider: "mcp", webmcp: true }); return null;`)
			c := startPedelecMCP(t, core.URL, core.StateDir)
			testenv.Await(t, 15*time.Second, "add_to_cart over MCP", func() bool { return containsString(c.toolNames(t), "add_to_cart") })
			ctx := t.Context()
			res := c.call(t, ctx, "add_to_cart", `{"sku":"mug"}`)
			if sc, _ := json.Marshal(res.StructuredContent); res.IsError || string(sc) != `{"cart":["kettle","mug"]}` {
				t.Errorf("add_to_cart over MCP: structuredContent %s, isError %v", sc, res.IsError)
			}
			res = c.call(t, ctx, "checkout", `{}`)
			if text := resultText(res); !res.IsError || text != "Error: the card was declined" {
				t.Errorf("checkout over MCP: isError %v, %q", res.IsError, text)
			}
		})
	}
}

// WebMCP schemas as the tools people use write them: these pass once
// Core checks a WebMCP tool's inputSchema as full JSON Schema (until then
// it refuses the keywords outside Pedelec's subset, docs/webmcp.md).
func TestBrowserWebMCPFullSchemas(t *testing.T) {
	testenv.SkipShort(t, "chromium")
	for _, mode := range webmcpModes {
		t.Run(mode.name, func(t *testing.T) {
			b, _ := webmcpPage(t, mode.native, "forms.html")
			var got struct {
				Create string `json:"create"`
				Text   string `json:"text"`
			}
			b.js(t, &got, waitForTools+`
// z.toJSONSchema(z.object({ query: z.string().min(1), limit: z.number().int().positive().optional() })), Zod 4.
await document.modelContext.registerTool({
  name: "search_hotels",
  description: "Search hotels by name.",
  inputSchema: { "$schema": "https://json-schema.org/draft/2020-12/schema", type: "object",
    properties: { query: { type: "string", minLength: 1 }, limit: { type: "integer", exclusiveMinimum: 0, maximum: 9007199254740991 } },
    required: ["query"], additionalProperties: false },
  execute: async ({ query, limit }) => ({ hotels: [query + " Inn"], limit: limit ?? null }),
});
window.addBooking();
let create = "";
try { window.session = await window.pedelec.createSession({ provider: "script", webmcp: true }); } catch (e) { return { create: e.code + ": " + e.message }; }
await waitFor(() => session.tools.includes("book_table"), "book_table");
const { text } = await session.sendTurn([
  'call search_hotels {"query":"Sea","limit":2}',
  'call search_hotels {"query":"Sea","stars":5}',
  'call search_hotels {"query":"Sea","limit":0}',
  'call book_table {"people":4,"area":"out","time":"20:30","day":"2027-01-15"}',
  'call book_table {"people":40,"area":"out","time":"20:30"}',
].join("\n"));
return { create, text };
`)
			if got.Create != "" {
				t.Fatalf("createSession: %s", got.Create)
			}
			lines := agentLines(t, got.Text)
			if len(lines) != 5 {
				t.Fatalf("agent saw %d answers:\n%s", len(lines), got.Text)
			}
			if !lines[0].OK || string(lines[0].Result) != `{"hotels":["Sea Inn"],"limit":2}` {
				t.Errorf("search_hotels: %+v %s", lines[0], lines[0].Result)
			}
			for i, what := range map[int]string{1: "additionalProperties: false", 2: "exclusiveMinimum", 4: "the form's max"} {
				if lines[i].OK || lines[i].Error.Code != "TOOL_ARGS_INVALID" {
					t.Errorf("a call breaking %s: %+v", what, lines[i])
				}
			}
			if !lines[3].OK || string(lines[3].Result) != `{"booked":{"people":4,"area":"out","time":"20:30","day":"2027-01-15"}}` {
				t.Errorf("book_table: %+v %s", lines[3], lines[3].Result)
			}
		})
	}
}
