package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kaoruisaac/pedelec/e2e/testenv"
)

// Schemas as the tools people use write them, in real Chromium: the page
// declares one tool whose inputSchema is Zod 4's z.toJSONSchema() output
// and one whose inputSchema is TypeBox's (e2e/testdata/browser/
// standard-schemas.json, written by standard-schemas.gen.mjs), and the
// agent calls them through the real `pedelec tool-call`. A call that
// breaks additionalProperties: false, anyOf, a $ref into $defs,
// exclusiveMinimum, format or const is TOOL_ARGS_INVALID naming the path,
// and the handler never runs; the valid calls reach it.
func TestBrowserStandardSchemasFromZodAndTypeBox(t *testing.T) {
	env := newSDKEnv(t)
	var got struct {
		Saw   []json.RawMessage `json:"saw"`
		Calls []json.RawMessage `json:"calls"`
	}
	env.b.js(t, &got, `
const { Pedelec } = window.sdk;
const schemas = await (await fetch("standard-schemas.json")).json();
const calls = [];
const tools = [
  { name: "invite", description: "Invite someone (a Zod 4 schema).", inputSchema: schemas.zod.invite, handler: (args) => { calls.push(["invite", args]); return { ok: true }; } },
  { name: "order", description: "Place an order (a TypeBox schema).", inputSchema: schemas.typebox.order, handler: (args) => { calls.push(["order", args]); return { ok: true }; } },
];
const session = await new Pedelec().createSession({ provider: "script", skills: { guidance: "Test page.", tools } });
const invite = { email: "ann@example.com", seats: 2, contact: 7, address: { city: "Graz", zip: "80100" }, role: "editor" };
const order = { item: { sku: "abc", qty: 1 }, total: 9.5, when: "2026-12-01T10:00:00Z", pay: { card: "4242" } };
const line = (tool, args) => "call " + tool + " " + JSON.stringify(args);
const text = [
  line("invite", invite),
  line("invite", { ...invite, extra: 1 }),                          // additionalProperties: false
  line("invite", { ...invite, contact: true }),                     // anyOf
  line("invite", { ...invite, address: { city: "Graz", zip: "8" } }), // $ref to $defs.Address (pattern)
  line("invite", { ...invite, seats: 0 }),                          // exclusiveMinimum
  line("invite", { ...invite, email: "not-an-email" }),             // format (and pattern)
  line("invite", { ...invite, role: "owner" }),                     // const
  line("order", order),
  line("order", { ...order, pay: { card: "4242", iban: "AT00" } }), // anyOf of closed objects
  line("order", { ...order, item: { sku: "abc", qty: 1, gift: true } }), // $ref to an $id, additionalProperties
  line("order", { ...order, total: 0 }),                            // exclusiveMinimum
  line("order", { ...order, when: "tomorrow" }),                    // format
  "spec invite",
].join("\n");
const saw = h.agentSaw((await session.sendTurn(text)).text);
await session.end();
return { saw, calls };
`)
	if len(got.Saw) != 13 {
		t.Fatalf("the agent saw %d answers, want 13: %s", len(got.Saw), got.Saw)
	}
	type answer struct {
		OK     bool
		Result json.RawMessage
		Error  struct {
			Code    string
			Message string
			Details struct {
				Violations []struct{ Path, Expected, Got, Message string }
			}
		}
	}
	read := func(i int) answer {
		var a answer
		if err := json.Unmarshal(got.Saw[i], &a); err != nil {
			t.Fatalf("answer %d: %v: %s", i, err, got.Saw[i])
		}
		return a
	}
	for _, i := range []int{0, 7} {
		if a := read(i); !a.OK || string(a.Result) != `{"ok":true}` {
			t.Errorf("valid call %d: %s", i, got.Saw[i])
		}
	}
	for _, tc := range []struct {
		i        int
		path     string
		expected string
	}{
		{1, "extra", `no property "extra"`},
		{2, "contact", "at least one of: (1) a string; (2) an integer"},
		{3, "address.zip", "a string matching the pattern ^[0-9]{5}$"},
		{4, "seats", "greater than 0"},
		{5, "email", "a string in the format email"},
		{6, "role", `exactly "editor"`},
		{8, "pay", "at least one of"},
		{9, "item.gift", `no property "gift" (allowed: "sku", "qty")`},
		{10, "total", "greater than 0"},
		{11, "when", "a string in the format date-time"},
	} {
		a := read(tc.i)
		if a.OK || a.Error.Code != "TOOL_ARGS_INVALID" || len(a.Error.Details.Violations) != 1 {
			t.Errorf("call %d: %s; want TOOL_ARGS_INVALID with one violation", tc.i, got.Saw[tc.i])
			continue
		}
		v := a.Error.Details.Violations[0]
		if v.Path != tc.path || !strings.Contains(v.Expected, tc.expected) || v.Got == "" || !strings.Contains(a.Error.Message, tc.path+": "+v.Message) {
			t.Errorf("call %d: violation %+v; want path %s expecting %q, named in the message %q", tc.i, v, tc.path, tc.expected, a.Error.Message)
		}
	}
	// tool-spec shows the schema as the page declared it, under inputSchema.
	var spec struct {
		OK     bool
		Result struct {
			InputSchema map[string]any  `json:"inputSchema"`
			ArgsSchema  json.RawMessage `json:"argsSchema"`
		}
	}
	json.Unmarshal(got.Saw[12], &spec)
	if !spec.OK || spec.Result.InputSchema["$schema"] != "https://json-schema.org/draft/2020-12/schema" || spec.Result.ArgsSchema != nil {
		t.Errorf("tool-spec invite: %s", got.Saw[12])
	}
	// Only the two valid calls reached the handlers.
	if len(got.Calls) != 2 || !strings.HasPrefix(string(got.Calls[0]), `["invite"`) || !strings.HasPrefix(string(got.Calls[1]), `["order"`) {
		t.Errorf("the handlers ran for %s; want the two valid calls only", got.Calls)
	}
}

// TestStandardSchemaFixtureIsCurrent regenerates the fixture with the Zod
// and TypeBox versions of sdk/package-lock.json: the page must test what
// those libraries write today.
func TestStandardSchemaFixtureIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node with the SDK's dev dependencies")
	}
	root := testenv.RepoRoot()
	cmd := exec.Command("node", filepath.Join(root, "e2e", "testdata", "browser", "standard-schemas.gen.mjs"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node standard-schemas.gen.mjs (needs `npm ci --prefix sdk`): %v", err)
	}
	want, err := os.ReadFile(filepath.Join(root, "e2e", "testdata", "browser", "standard-schemas.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, want) {
		t.Errorf("e2e/testdata/browser/standard-schemas.json is stale: run node e2e/testdata/browser/standard-schemas.gen.mjs > e2e/testdata/browser/standard-schemas.json")
	}
}
