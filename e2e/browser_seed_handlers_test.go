package e2e

// The seeds' "Registering Tool Handlers" (shared/seeds/handlers.txt) run as
// written in real Chromium, each call made by the script provider through
// the real `pedelec tool-call`, so every assertion reads what the agent saw.

import (
	"encoding/json"
	"strings"
	"testing"
)

// agentCall is one line the script agent printed: the CLI's JSON.
type agentCall struct {
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// resultError reads {error:{code,message}} out of a normal result.
func (c agentCall) resultError() (code, message string) {
	var r struct {
		Error struct {
			Code    string          `json:"code"`
			Message string          `json:"message"`
			Details json.RawMessage `json:"details"`
		} `json:"error"`
	}
	_ = json.Unmarshal(c.Result, &r)
	return r.Error.Code, r.Error.Message
}

func (c agentCall) result(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(c.Result, &m); err != nil {
		t.Fatalf("result %s is not an object: %v", c.Result, err)
	}
	return m
}

// handlersPrelude declares the tools and stores the handler examples use.
const handlersPrelude = `
const { Pedelec, defineTool } = window.sdk;
const pedelec = new Pedelec();
const noArgs = { type: "object", properties: {}, required: [] };
const delta = { type: "object", properties: { delta: { type: "integer" } }, required: ["delta"] };
const counterStore = { value: 0, async add(d) { await h.sleep(20); this.value += d; return this.value; } };
const store = { value: 42 };

const getCurrentPage = defineTool({
  name: "get_current_page",
  description: "Read the current page title and URL.",
  argsSchema: {
    type: "object",
    properties: {},
    required: [],
  },
  handler: () => ({
    title: document.title,
    url: location.href,
  }),
});
const tool = (name, extra = {}) => ({ name, description: "A test tool: " + name + ".", argsSchema: noArgs, ...extra });
const tools = [
  getCurrentPage,
  defineTool({ ...tool("update_counter"), argsSchema: delta, handler: (args) => ({ value: args.delta, by: "inline" }) }),
  tool("read_value"), tool("save_document"), tool("tool_a"), tool("tool_b"), tool("plain_tool"), tool("rich"), tool("bad"),
  tool("replace_selection"),
];
const session = await pedelec.createSession({ provider: "script", skills: { guidance: "Test page.", tools } });
const rec = h.record(session);
const say = async (text) => h.agentSaw((await session.sendTurn(text)).text);
`

func runHandlers(t *testing.T, b *browser, body string) []agentCall {
	t.Helper()
	var out []agentCall
	b.js(t, &out, handlersPrelude+body+"\n")
	return out
}

func TestBrowserSeedHandlers(t *testing.T) {
	env := newSDKEnv(t)
	b := env.b

	t.Run("three styles and their priority", func(t *testing.T) {
		saw := runHandlers(t, b, `
const seen = [];
seen.push(...await say('call update_counter {"delta": 1}'));

// Named handler: overrides the inline default.
const offUpdateCounter = session.onTool(
  "update_counter",
  async (args, ctx) => {
    console.debug(ctx.toolRequestId, ctx.turnId);
    const value = await counterStore.add(args.delta);
    return { value };
  },
);
seen.push(...await say('call update_counter {"delta": 5}'));

// Generic fallback: for tools with no named or inline handler.
const offFallback = session.onTool(async (tool, args, ctx) => {
  switch (tool) {
    case "get_current_page":
      return { title: document.title, url: location.href };
    default:
      return {
        error: {
          code: "UNSUPPORTED_TOOL",
          message: `+"`No application handler for ${tool}`"+`,
        },
      };
  }
});
seen.push(...await say("call plain_tool {}\ncall get_current_page {}"));

offUpdateCounter();
seen.push(...await say('call update_counter {"delta": 2}'));
offFallback();
seen.push(...await say("call plain_tool {}"));
await session.end();
return seen;
`)
		if len(saw) != 6 {
			t.Fatalf("the agent saw %d results: %+v", len(saw), saw)
		}
		if r := saw[0].result(t); r["by"] != "inline" || r["value"] != 1.0 {
			t.Errorf("inline handler: %v", r)
		}
		if r := saw[1].result(t); r["value"] != 5.0 || r["by"] != nil {
			t.Errorf("named handler should override inline: %v", r)
		}
		if code, msg := saw[2].resultError(); code != "UNSUPPORTED_TOOL" || msg != "No application handler for plain_tool" {
			t.Errorf("fallback: %s %s", code, msg)
		}
		if r := saw[3].result(t); r["title"] != "Pedelec SDK test page" {
			t.Errorf("get_current_page: the inline handler answers before the fallback: %v", r)
		}
		if r := saw[4].result(t); r["by"] != "inline" {
			t.Errorf("after the named disposer, the inline handler answers again: %v", r)
		}
		if code, _ := saw[5].resultError(); code != "TOOL_HANDLER_NOT_FOUND" {
			t.Errorf("after the fallback disposer: %s", saw[5].Result)
		}
	})

	t.Run("a disposer removes only a registration that is still current; one fallback at a time", func(t *testing.T) {
		saw := runHandlers(t, b, `
const offA = session.onTool("read_value", () => ({ from: "A" }));
session.onTool("read_value", () => ({ from: "B" }));
offA();
const offF1 = session.onTool(() => ({ from: "F1" }));
session.onTool(() => ({ from: "F2" }));
offF1();
const seen = await say("call read_value {}\ncall tool_a {}");
await session.end();
return seen;
`)
		if len(saw) != 2 || saw[0].result(t)["from"] != "B" || saw[1].result(t)["from"] != "F2" {
			t.Errorf("the agent saw %s and %s; want B (A's disposer is stale) and F2 (F2 replaced F1)", saw[0].Result, saw[1].Result)
		}
	})

	t.Run("sync and async handlers; waiting_tool_result while async is pending", func(t *testing.T) {
		var got struct {
			Saw     []agentCall `json:"saw"`
			During  string      `json:"during"`
			Waiting bool        `json:"waiting"`
		}
		b.js(t, &got, handlersPrelude+`
const api = { async save(args) { await h.sleep(300); return { id: "doc-7", savedAt: "2026-01-01T00:00:00.000Z" }; } };
let during = "";
session.onTool("read_value", () => ({ value: store.value }));

session.onTool("save_document", async (args) => {
  during = session.getStatus();
  const result = await api.save(args);
  return { id: result.id, savedAt: result.savedAt };
});
const saw = await say("call read_value {}\ncall save_document {}");
const waiting = rec.statuses.some((s) => s.status === "waiting_tool_result" && s.waitingOn.some((w) => w.tool === "save_document"));
await session.end();
return { saw, during, waiting };
`)
		if len(got.Saw) != 2 || got.Saw[0].result(t)["value"] != 42.0 || got.Saw[1].result(t)["id"] != "doc-7" {
			t.Fatalf("the agent saw %+v", got.Saw)
		}
		if got.During != "waiting_tool_result" || !got.Waiting {
			t.Errorf("status while the async handler ran: %q (onStatus named save_document: %v)", got.During, got.Waiting)
		}
	})

	t.Run("rich values converted as JSON.stringify does; unsendable ones become TOOL_RESULT_INVALID", func(t *testing.T) {
		var got struct {
			Saw    []agentCall `json:"saw"`
			Errors []struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"errors"`
		}
		b.js(t, &got, handlersPrelude+`
const date = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
const uint8Array = new Uint8Array([1, 2, 255]);
const selection = { start: 3, end: 9, extra: "ignored" };
session.onTool("rich", () => {
  return {
    savedAt: date.toISOString(),
    bytes: Array.from(uint8Array),
    selection: {
      start: selection.start,
      end: selection.end,
    },
  };
});
const cyclic = { name: "loop" }; cyclic.self = cyclic;
class Doc { constructor() { this.secret = 1; } }
const bad = [
  () => ({ savedAt: date }),
  () => ({ map: new Map([["a", 1]]) }),
  () => ({ node: document.body }),
  () => cyclic,
  () => ({ big: 10n }),
  () => ({ fn: () => 1 }),
  () => ({ n: NaN }),
  () => undefined,
  () => new Doc(),
  () => ({ set: new Set([1]) }),
];
let i = 0;
session.onTool("bad", () => bad[i++]());
const lines = ["call rich {}", ...bad.map(() => "call bad {}"), "call read_value {}"];
session.onTool("read_value", () => ({ stillWorks: true }));
const saw = await say(lines.join("\n"));
await session.end();
return { saw, errors: rec.errors };
`)
		if len(got.Saw) != 12 {
			t.Fatalf("the agent saw %d results", len(got.Saw))
		}
		if r := got.Saw[0].result(t); r["savedAt"] != "2026-01-02T03:04:05.000Z" || len(r["bytes"].([]any)) != 3 || r["selection"].(map[string]any)["end"] != 9.0 {
			t.Errorf("converted values: %v", r)
		}
		// As the original (issue 23): converted the way JSON.stringify
		// converts, refused only where it could not send the value either.
		converted := map[int]string{0: `{"savedAt":"2026-01-02T03:04:05.000Z"}`, 1: `{"map":{}}`, 6: `{"n":null}`, 7: `null`, 8: `{"secret":1}`, 9: `{"set":{}}`}
		refused := map[int]string{2: "$.node is a DOM node", 3: "$.self is a cycle", 4: "$.big is a BigInt", 5: "$.fn is a function"}
		for i := range 10 {
			c := got.Saw[1+i]
			if want, ok := converted[i]; ok {
				if !c.OK || string(c.Result) != want {
					t.Errorf("value %d: the agent saw %s; want %s", i, c.Result, want)
				}
				continue
			}
			code, msg := c.resultError()
			if !c.OK || code != "TOOL_RESULT_INVALID" || !strings.Contains(msg, refused[i]) {
				t.Errorf("bad value %d: the agent saw %s; want TOOL_RESULT_INVALID naming %q", i, c.Result, refused[i])
			}
		}
		if got.Saw[11].result(t)["stillWorks"] != true {
			t.Errorf("the session kept working: %s", got.Saw[11].Result)
		}
		// The original reports a result it cannot send as a submission failure.
		if len(got.Errors) != 4 || got.Errors[0].Code != "SUBMIT_TOOL_RESULT_FAILED" {
			t.Errorf("onError should report each result that could not be sent: %+v", got.Errors)
		}
	})

	t.Run("a domain failure is a normal result", func(t *testing.T) {
		saw := runHandlers(t, b, `
const documentId = "doc-1";
session.onTool("replace_selection", () => {
  return {
    error: {
      code: "NO_SELECTION",
      message: "There is no active editor selection.",
      details: { documentId },
    },
  };
});
const seen = await say("call replace_selection {}");
await session.end();
return seen;
`)
		if len(saw) != 1 || !saw[0].OK || string(saw[0].Result) != `{"error":{"code":"NO_SELECTION","message":"There is no active editor selection.","details":{"documentId":"doc-1"}}}` {
			t.Errorf("the agent saw %+v %s", saw, saw[0].Result)
		}
	})

	t.Run("a thrown error becomes TOOL_HANDLER_ERROR and does not reject sendText", func(t *testing.T) {
		saw := runHandlers(t, b, `
const save = async () => ({ ok: false, status: 500 });
session.onTool("save_document", async (args) => {
  const response = await save(args);
  if (!response.ok) {
    throw new Error(`+"`Save failed with ${response.status}`"+`);
  }
  return response.data;
});
const seen = await say("call save_document {}\ncall get_current_page {}");
await session.end();
return seen;
`)
		if len(saw) != 2 {
			t.Fatalf("the agent saw %+v", saw)
		}
		if string(saw[0].Result) != `{"error":{"code":"TOOL_HANDLER_ERROR","message":"Save failed with 500"}}` {
			t.Errorf("the agent saw %s", saw[0].Result)
		}
		if saw[1].result(t)["title"] == nil {
			t.Errorf("the turn went on after the throw: %s", saw[1].Result)
		}
	})

	t.Run("a missing handler and cleanup", func(t *testing.T) {
		saw := runHandlers(t, b, `
const handleA = () => ({ a: true });
const handleB = () => ({ b: true });
const handleFallback = (tool) => ({ fallback: tool });
const disposers = [
  session.onTool("tool_a", handleA),
  session.onTool("tool_b", handleB),
  session.onTool(handleFallback),
];

function cleanup() {
  for (const dispose of disposers) dispose();
}
const seen = await say("call tool_a {}\ncall tool_b {}\ncall plain_tool {}");
cleanup();
seen.push(...await say("call tool_a {}\ncall tool_b {}\ncall plain_tool {}"));
await session.end();
return seen;
`)
		if len(saw) != 6 {
			t.Fatalf("the agent saw %+v", saw)
		}
		if saw[0].result(t)["a"] != true || saw[1].result(t)["b"] != true || saw[2].result(t)["fallback"] != "plain_tool" {
			t.Errorf("before cleanup: %s %s %s", saw[0].Result, saw[1].Result, saw[2].Result)
		}
		for _, c := range saw[3:] {
			if code, msg := c.resultError(); code != "TOOL_HANDLER_NOT_FOUND" || !strings.Contains(msg, "onTool") {
				t.Errorf("after cleanup the agent saw %s; want TOOL_HANDLER_NOT_FOUND", c.Result)
			}
		}
	})

	t.Run("do not trust TypeScript alone", func(t *testing.T) {
		saw := runHandlers(t, b, `
const invalidArgs = (message) => ({ error: { code: "INVALID_ARGS", message } });
session.onTool("update_counter", (args) => {
  // The annotation improves authoring, but runtime args still came from an agent.
  if (!Number.isFinite(args.delta)) {
    return invalidArgs("delta must be finite");
  }
  return counterStore.add(args.delta);
});
const seen = await say('call update_counter {"delta": 4}');
await session.end();
return seen;
`)
		if len(saw) != 1 || string(saw[0].Result) != "4" {
			t.Errorf("the agent saw %+v", saw)
		}
	})
}
