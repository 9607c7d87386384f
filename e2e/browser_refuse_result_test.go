package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// Issue 26 in real Chromium, through the SDK as an application uses it:
// a handler's refuse() reaches the agent as TOOL_REFUSED (and not the
// page's onError); a result that breaks the tool's outputSchema fails the
// agent's call and reaches onError as the handler's bug; a large result
// reaches the agent as a file the page can read back whole.
func TestBrowserRefusalsOutputSchemaAndResultFiles(t *testing.T) {
	env := newSDKEnv(t, "--max-inline-result-bytes", "4096")
	var got struct {
		Saw       []json.RawMessage                      `json:"saw"`
		Errors    []struct{ Code, Message, Type string } `json:"errors"`
		SameTable bool                                   `json:"sameTable"`
		TableSize int                                    `json:"tableSize"`
	}
	env.b.js(t, &got, `
const { Pedelec, refuse } = window.sdk;
const pedelec = new Pedelec();
const noArgs = { type: "object", properties: {}, required: [] };
const totalsSchema = { type: "object", properties: { total: { type: "integer", minimum: 0 }, currency: { type: "string" } }, required: ["total", "currency"] };
const rows = Array.from({ length: 500 }, (_, i) => ({ id: i, name: "row " + i }));
const tool = (name, extra) => ({ name, description: "A test tool: " + name + ".", argsSchema: noArgs, ...extra });
const tools = [
  tool("buy", { handler: () => { throw refuse({ code: "OUT_OF_STOCK", message: "Item 42 is sold out", retryable: false }); } }),
  tool("reserve", { handler: async () => { throw refuse({ code: "KITCHEN_BUSY", message: "Try again in a minute", retryable: true }); } }),
  tool("totals", { outputSchema: totalsSchema, handler: () => ({ total: "12.50" }) }),
  tool("totals_ok", { outputSchema: totalsSchema, handler: () => ({ total: 12, currency: "EUR" }) }),
  tool("table", { handler: () => ({ rows }) }),
];
const session = await pedelec.createSession({ provider: "script", skills: { guidance: "Test page.", tools } });
const rec = h.record(session);
const saw = h.agentSaw((await session.sendTurn("call buy {}\ncall reserve {}\ncall totals {}\ncall totals_ok {}\ncall table {}")).text);
const file = saw[4]?.resultFile;
const back = file ? await session.readAsset(file.assetPath, "json") : null;
await session.end();
return { saw, errors: rec.errors, sameTable: JSON.stringify(back) === JSON.stringify({ rows }), tableSize: JSON.stringify({ rows }).length };
`)
	if len(got.Saw) != 5 {
		t.Fatalf("the agent saw %d answers: %s", len(got.Saw), got.Saw)
	}
	refusal := func(i int, reason string, retryable bool) {
		t.Helper()
		var r struct {
			OK    bool
			Error struct {
				Code    string
				Message string
				Details struct {
					Reason    string
					Retryable bool
					Tool      string
				}
			}
		}
		json.Unmarshal(got.Saw[i], &r)
		if r.OK || r.Error.Code != "TOOL_REFUSED" || r.Error.Details.Reason != reason || r.Error.Details.Retryable != retryable {
			t.Errorf("answer %d: %s; want TOOL_REFUSED %s retryable=%v", i, got.Saw[i], reason, retryable)
		}
	}
	refusal(0, "OUT_OF_STOCK", false)
	refusal(1, "KITCHEN_BUSY", true)
	if s := string(got.Saw[2]); !strings.Contains(s, `"code":"TOOL_RESULT_INVALID"`) || !strings.Contains(s, `"path":"total"`) || !strings.Contains(s, `"path":"currency"`) {
		t.Errorf("a result that breaks the outputSchema: %s", s)
	}
	if s := string(got.Saw[3]); s != `{"ok":true,"result":{"total":12,"currency":"EUR"}}` {
		t.Errorf("a result that keeps it: %s", s)
	}
	if s := string(got.Saw[4]); !strings.Contains(s, `"resultFile"`) || len(s) > 1500 || !got.SameTable {
		t.Errorf("the large result (%d bytes): the agent saw %d bytes %.300s; the page read the file back whole: %v", got.TableSize, len(s), s, got.SameTable)
	}
	// onError hears the handler's bug and nothing of the refusals.
	if len(got.Errors) != 1 || got.Errors[0].Code != "TOOL_RESULT_INVALID" || got.Errors[0].Type != "sdk_error" || !strings.Contains(got.Errors[0].Message, "outputSchema") {
		t.Errorf("onError heard %+v; want the one TOOL_RESULT_INVALID", got.Errors)
	}
}
