package e2e

// The seeds' "Defining Tools" (shared/seeds/defining-tools.txt) in real
// Chromium: definitions, schemas checked by Core at call time, timeouts,
// and every INVALID_INPUT case checked in the page with Core's messages.

import (
	"strings"
	"testing"
)

const definingPrelude = `
const { Pedelec, defineTool, toManifest } = window.sdk;
const pedelec = new Pedelec();
const counter = { value: 0 };
const noArgs = {
  type: "object",
  properties: {},
  required: [],
};
`

func TestBrowserSeedDefiningTools(t *testing.T) {
	env := newSDKEnv(t)
	b := env.b

	t.Run("basic definition, inline handler, literal names, nested schema checked by Core", func(t *testing.T) {
		var got struct {
			Same bool        `json:"same"`
			Saw  []agentCall `json:"saw"`
		}
		b.js(t, &got, definingPrelude+`
const input = {
  name: "update_counter",
  description: "Increase or decrease the visible counter by a signed delta.",
  argsSchema: {
    type: "object",
    properties: {
      delta: {
        type: "integer",
        description: "Signed amount to add to the counter.",
        minimum: -100,
        maximum: 100,
      },
    },
    required: ["delta"],
  },
  timeoutMs: 10_000,
  handler: (args) => {
    counter.value += args.delta;
    return { value: counter.value };
  },
};
const updateCounter = defineTool(input);

const readSelection = defineTool({
  name: "get_selected_text",
  description: "Read the text currently selected in the page.",
  argsSchema: noArgs,
  handler: () => ({
    text: window.getSelection()?.toString() ?? "",
  }),
});

const canvas = { w: 0, h: 0, resize(w, h) { this.w = w; this.h = h; return { width: w, height: h }; } };
const resizeSchema = {
  type: "object",
  properties: {
    width: { type: "integer", minimum: 1 },
    height: { type: "integer", minimum: 1 },
  },
  required: ["width", "height"],
};
const resize = defineTool({
  name: "resize_canvas",
  description: "Resize the current canvas.",
  argsSchema: resizeSchema,
  handler: (args) => canvas.resize(args.width, args.height),
});

const createCard = defineTool({
  name: "create_card",
  description: "Create a card in the active board column.",
  argsSchema: {
    type: "object",
    properties: {
      card: {
        type: "object",
        properties: {
          title: { type: "string", minLength: 1, maxLength: 120 },
          labels: {
            type: "array",
            items: { type: "string" },
            maxItems: 10,
            uniqueItems: true,
          },
        },
        required: ["title"],
      },
    },
    required: ["card"],
  },
});

const argsSchema = {
  type: "object",
  properties: {
    documentId: {
      type: "string",
      description: "Application document identifier.",
      minLength: 1,
    },
    mode: {
      type: "string",
      enum: ["append", "replace"],
    },
  },
  required: ["documentId", "mode"],
};
const writeDoc = defineTool({ name: "editor.write_document", description: "Write the document: append to it or replace it.", argsSchema });

const tools = [updateCounter, readSelection, resize, createCard, writeDoc];

const session = await pedelec.createSession({
  provider: "script",
  skills: {
    guidance: "Use the declared tools for page operations.",
    tools,
  },
});
const cards = [];
const handleCounter = (args) => ({ value: (counter.value += args.delta), named: true });
session.onTool("update_counter", handleCounter);
session.onTool("create_card", (args) => { cards.push(args.card); return { id: "card-" + cards.length }; });
session.onTool("editor.write_document", (args) => ({ written: args.documentId, mode: args.mode }));
window.getSelection().selectAllChildren(document.getElementById("para"));
const saw = h.agentSaw((await session.sendTurn([
  'call update_counter {"delta": 7}',
  'call update_counter {"delta": 101}',
  'call get_selected_text',
  'call resize_canvas {"width": 640, "height": 480}',
  'call resize_canvas {"width": 0, "height": 480}',
  'call create_card {"card": {"title": "Ship", "labels": ["a", "b"]}}',
  'call create_card {"card": {"title": "", "labels": ["a", "a"]}}',
  'call editor.write_document {"documentId": "d1", "mode": "append"}',
  'call editor.write_document {"documentId": "d1", "mode": "delete"}',
].join("\n"))).text);
await session.end();
return { same: updateCounter === input, saw };
`)
		if !got.Same {
			t.Error("defineTool must return its input unchanged")
		}
		saw := got.Saw
		if len(saw) != 9 {
			t.Fatalf("the agent saw %d results: %+v", len(saw), saw)
		}
		if r := saw[0].result(t); r["value"] != 7.0 || r["named"] != true {
			t.Errorf("update_counter: %s", saw[0].Result)
		}
		for _, i := range []int{1, 4, 6, 8} {
			if saw[i].OK || saw[i].Error == nil || saw[i].Error.Code != "TOOL_ARGS_INVALID" {
				t.Errorf("call %d: Core must refuse arguments that miss the schema: %+v", i, saw[i])
			}
		}
		if r := saw[2].result(t); r["text"] != "Some text on the page to select." {
			t.Errorf("get_selected_text: %s", saw[2].Result)
		}
		if string(saw[3].Result) != `{"width":640,"height":480}` || string(saw[5].Result) != `{"id":"card-1"}` {
			t.Errorf("resize / create_card: %s %s", saw[3].Result, saw[5].Result)
		}
		if string(saw[7].Result) != `{"written":"d1","mode":"append"}` {
			t.Errorf("dotted tool name: %s", saw[7].Result)
		}
	})

	t.Run("each INVALID_INPUT case is refused in the page with Core's own message", func(t *testing.T) {
		type verdict struct {
			Name     string `json:"name"`
			SDK      string `json:"sdk"`
			SDKCode  string `json:"sdkCode"`
			Core     string `json:"core"`
			CoreCode string `json:"coreCode"`
		}
		var got []verdict
		b.js(t, &got, definingPrelude+`
const ok = { name: "ok_tool", description: "A fine tool.", argsSchema: noArgs };
const cyclic = { type: "object" }; cyclic.properties = { self: cyclic };
const cases = {
  "invalid name": [{ ...ok, name: "update counter" }],
  "name starts with a digit": [{ ...ok, name: "1tool" }],
  "duplicate name": [ok, { ...ok }],
  "empty description": [{ ...ok, description: "" }],
  "blank description": [{ ...ok, description: "   " }],
  "timeout zero": [{ ...ok, timeoutMs: 0 }],
  "timeout negative": [{ ...ok, timeoutMs: -5 }],
  "timeout not an integer": [{ ...ok, timeoutMs: 1.5 }],
  "missing argsSchema": [{ name: "t", description: "d" }],
  "root not an object schema": [{ ...ok, argsSchema: { type: "string" } }],
  "root is not a schema at all": [{ ...ok, argsSchema: "object" }],
  "legacy input shorthand": [{ name: "t", description: "d", input: { delta: "number" } }],
  "unsupported keyword": [{ ...ok, argsSchema: { type: "object", additionalProperties: false } }],
  "required names an unknown property": [{ ...ok, argsSchema: { type: "object", properties: {}, required: ["x"] } }],
  "function in the schema": [{ ...ok, argsSchema: { type: "object", default: () => 1 } }],
  "BigInt in the schema": [{ ...ok, argsSchema: { type: "object", default: 10n } }],
  "cyclic schema": [{ ...ok, argsSchema: cyclic }],
};
// Core's verdict on the same JSON, asked over a raw WebSocket (no SDK).
const core = new URLSearchParams(location.search).get("core").replace("http", "ws") + "/ws";
const raw = new WebSocket(core);
await new Promise((r, j) => { raw.onopen = r; raw.onerror = j; });
let id = 0;
const askCore = (tools) => new Promise((resolve) => {
  const myId = ++id;
  raw.addEventListener("message", function on(ev) {
    const f = JSON.parse(ev.data);
    if (f.type === "response" && f.id === myId) { raw.removeEventListener("message", on); resolve(f); }
  });
  raw.send(JSON.stringify({ type: "request", id: myId, method: "create_session",
    params: { provider: "script", skills: toManifest({ guidance: "g", tools }) } }));
});
const out = [];
for (const [name, tools] of Object.entries(cases)) {
  let sdkErr = null;
  try {
    const s = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools } });
    await s.end();
  } catch (e) { sdkErr = e; }
  const v = { name, sdk: sdkErr?.message ?? "", sdkCode: sdkErr?.code ?? "", core: "", coreCode: "" };
  let jsonable = true;
  try { toManifest({ guidance: "g", tools }); } catch { jsonable = false; }
  if (jsonable) {
    const f = await askCore(tools);
    v.core = f.ok ? "" : f.error.message;
    v.coreCode = f.ok ? "created" : f.error.code;
  }
  out.push(v);
}
raw.close();
return out;
`)
		asked := 0
		for _, v := range got {
			if v.CoreCode != "" {
				asked++
			}
			if v.SDKCode != "INVALID_INPUT" {
				t.Errorf("%s: the SDK answered %q %q, want INVALID_INPUT", v.Name, v.SDKCode, v.SDK)
				continue
			}
			if v.CoreCode != "" && (v.CoreCode != "INVALID_INPUT" || v.Core != v.SDK) {
				t.Errorf("%s: the page and Core disagree:\n  sdk:  %s\n  core: %s (%s)", v.Name, v.SDK, v.Core, v.CoreCode)
			}
		}
		if len(got) != 17 || asked != 14 {
			t.Errorf("checked %d cases, %d of them against Core too", len(got), asked)
		}
	})

	t.Run("a timeout: the agent gets TOOL_TIMEOUT, the late result is refused and reported through onError", func(t *testing.T) {
		var got struct {
			Saw        []agentCall `json:"saw"`
			Errors     []struct{ Code, Message string }
			AbortCode  string `json:"abortCode"`
			AbortedAt  int64  `json:"abortedAt"`
			Deadline   int64  `json:"deadline"`
			DeadlineOK bool   `json:"deadlineOk"`
		}
		b.js(t, &got, definingPrelude+`
let abortCode = "", abortedAt = 0, deadline = 0, deadlineOk = false;
const slow = defineTool({
  name: "slow_tool",
  description: "Takes longer than its timeout.",
  argsSchema: noArgs,
  timeoutMs: 300,
  handler: async (_args, ctx) => {
    deadline = ctx.deadline;
    deadlineOk = ctx.timeoutMs === 300 && ctx.deadline > ctx.eventReceivedAt - 1000;
    ctx.signal.addEventListener("abort", () => { abortCode = ctx.signal.reason?.code; abortedAt = Date.now(); });
    await h.sleep(900); // ignores the signal: the result is late
    return { finished: true };
  },
});
const session = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [slow] } });
const rec = h.record(session);
const saw = h.agentSaw((await session.sendTurn("call slow_tool {}")).text);
await h.waitFor(() => rec.errors.length > 0, "onError");
await session.end();
return { saw, errors: rec.errors, abortCode, abortedAt, deadline, deadlineOk };
`)
		if len(got.Saw) != 1 || got.Saw[0].OK || got.Saw[0].Error == nil || got.Saw[0].Error.Code != "TOOL_TIMEOUT" {
			t.Fatalf("the agent saw %+v, want TOOL_TIMEOUT", got.Saw)
		}
		if len(got.Errors) != 1 || got.Errors[0].Code != "SUBMIT_TOOL_RESULT_FAILED" || !strings.Contains(got.Errors[0].Message, "TOOL_REQUEST_NOT_PENDING") {
			t.Errorf("onError: %+v, want SUBMIT_TOOL_RESULT_FAILED (TOOL_REQUEST_NOT_PENDING)", got.Errors)
		}
		if got.AbortCode != "TOOL_TIMEOUT" || !got.DeadlineOK || got.AbortedAt < got.Deadline-50 {
			t.Errorf("ctx.signal: aborted with %q at %d, deadline %d (ctx ok: %v)", got.AbortCode, got.AbortedAt, got.Deadline, got.DeadlineOK)
		}
	})
}
