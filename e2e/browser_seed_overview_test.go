package e2e

// The seeds' overview (shared/seeds/overview.txt) run as written in real
// Chromium: the page imports the SDK from Core, declares tools, and the
// script provider calls them through the real `pedelec tool-call`.

import (
	"strings"
	"testing"
)

func TestBrowserSeedOverview(t *testing.T) {
	env := newSDKEnv(t)
	b := env.b

	t.Run("a complete small tool", func(t *testing.T) {
		var got struct {
			TurnID string           `json:"turnId"`
			Saw    []map[string]any `json:"saw"`
			URL    string           `json:"url"`
		}
		b.js(t, &got, `
const { Pedelec, defineTool } = window.sdk;
const pedelec = new Pedelec();

const getCurrentPage = defineTool({
  name: "get_current_page",
  description: "Read the title, URL, and selected text of the current browser page.",
  argsSchema: {
    type: "object",
    properties: {},
    required: [],
  },
  handler: (_args, ctx) => ({
    title: document.title,
    url: location.href,
    selectedText: window.getSelection()?.toString() ?? "",
    observedForTurn: ctx.turnId,
  }),
});

const session = await pedelec.createSession({
  provider: "script",
  skills: {
    guidance: "Call get_current_page instead of guessing page state.",
    tools: [getCurrentPage],
  },
});

const sel = window.getSelection();
sel.selectAllChildren(document.getElementById("para"));
const turn = await session.sendTurn("call get_current_page {}");
await session.end();
return { turnId: turn.turnId, saw: h.agentSaw(turn.text), url: location.href };
`)
		if len(got.Saw) != 1 || got.Saw[0]["ok"] != true {
			t.Fatalf("the agent saw %v", got.Saw)
		}
		res := got.Saw[0]["result"].(map[string]any)
		if res["title"] != "Pedelec SDK test page" || res["url"] != got.URL ||
			res["selectedText"] != "Some text on the page to select." || res["observedForTurn"] != got.TurnID {
			t.Errorf("result %v; want the page's title, url, selection and turn %s", res, got.TurnID)
		}
	})

	t.Run("the trust model: the handler validates untrusted arguments", func(t *testing.T) {
		var saw []map[string]any
		b.js(t, &saw, `
const { Pedelec } = window.sdk;
const pedelec = new Pedelec();
const deleted = [];
const canDeleteDocument = (id) => id !== "doc-locked";
const deleteDocument = (id) => { deleted.push(id); return { deleted: id }; };
const session = await pedelec.createSession({
  provider: "script",
  skills: {
    guidance: "Ask for confirmation before destructive changes.",
    tools: [{
      name: "delete_document",
      description: "Delete one document by id. Destructive.",
      argsSchema: { type: "object", properties: { documentId: { oneOf: [{ type: "string" }, { type: "integer" }] } }, required: [] },
    }],
  },
});

session.onTool("delete_document", async (args) => {
  const { documentId } = args;

  if (typeof documentId !== "string") {
    return {
      error: {
        code: "INVALID_DOCUMENT_ID",
        message: "documentId must be a string.",
      },
    };
  }

  if (!canDeleteDocument(documentId)) {
    return {
      error: {
        code: "NOT_ALLOWED",
        message: "The current user cannot delete this document.",
      },
    };
  }

  return deleteDocument(documentId);
});

const turn = await session.sendTurn([
  'call delete_document {"documentId": 5}',
  'call delete_document {"documentId": "doc-locked"}',
  'call delete_document {"documentId": "doc-1"}',
].join("\n"));
await session.end();
return h.agentSaw(turn.text);
`)
		want := []string{"INVALID_DOCUMENT_ID", "NOT_ALLOWED", ""}
		if len(saw) != 3 {
			t.Fatalf("the agent saw %v", saw)
		}
		for i, w := range want {
			res, _ := saw[i]["result"].(map[string]any)
			code := ""
			if e, ok := res["error"].(map[string]any); ok {
				code, _ = e["code"].(string)
			}
			if saw[i]["ok"] != true || code != w {
				t.Errorf("call %d: the agent saw %v; want a normal result with error code %q", i, saw[i], w)
			}
		}
		if res := saw[2]["result"].(map[string]any); res["deleted"] != "doc-1" {
			t.Errorf("the allowed delete returned %v", res)
		}
	})

	t.Run("several calls in one turn keep the turn's id", func(t *testing.T) {
		var got struct {
			TurnID   string           `json:"turnId"`
			TurnIDs  []string         `json:"turnIds"`
			Saw      []map[string]any `json:"saw"`
			Statuses []string         `json:"statuses"`
		}
		b.js(t, &got, `
const { Pedelec, defineTool } = window.sdk;
const pedelec = new Pedelec();
const counter = { value: 0 };
const turnIds = [];
const updateCounter = defineTool({
  name: "update_counter",
  description: "Increase or decrease the visible counter by a signed delta.",
  argsSchema: {
    type: "object",
    properties: { delta: { type: "integer", minimum: -100, maximum: 100 } },
    required: ["delta"],
  },
  handler: (args, ctx) => {
    turnIds.push(ctx.turnId);
    counter.value += args.delta;
    return { value: counter.value };
  },
});
const session = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [updateCounter] } });
const rec = h.record(session);
const turn = await session.sendTurn('call update_counter {"delta": 1}\ncall update_counter {"delta": 2}\ncall update_counter {"delta": 3}');
await session.end();
return { turnId: turn.turnId, turnIds, saw: h.agentSaw(turn.text), statuses: rec.statuses.map((s) => s.status) };
`)
		if len(got.Saw) != 3 {
			t.Fatalf("the agent saw %v", got.Saw)
		}
		for i, want := range []float64{1, 3, 6} {
			if v := got.Saw[i]["result"].(map[string]any)["value"]; v != want {
				t.Errorf("call %d returned %v, want %v", i, v, want)
			}
		}
		for _, id := range got.TurnIDs {
			if id != got.TurnID {
				t.Errorf("ctx.turnId %s, want the sendText turn %s", id, got.TurnID)
			}
		}
		if s := strings.Join(got.Statuses, ","); strings.Count(s, "waiting_tool_result") != 3 {
			t.Errorf("statuses %s: want waiting_tool_result once per call", s)
		}
	})
}
