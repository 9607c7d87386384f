import assert from "node:assert/strict";
import { test } from "node:test";
import { mirrorNativeTools, ownToolNames, type EnumerableModelContext } from "../src/webmcp/native-tools.js";
import { registrations, type WebMCPRegistration } from "../src/webmcp/registrations.js";

/** A browser's modelContext as Chromium 156 gives it: getTools and executeTool, results as JSON text. */
function fakeNative(tools: { name: string; description: string; inputSchema?: object; annotations?: Record<string, unknown>; run: (input: object) => unknown }[]) {
  const target = new EventTarget();
  const mc = Object.assign(target, {
    tools,
    registerTool: async () => undefined,
    getTools: async () => mc.tools.map(({ run: _r, ...t }) => ({ ...t, title: "", origin: "http://127.0.0.1" })),
    executeTool: async (t: { name: string }, input?: object) => {
      const v = await mc.tools.find((x) => x.name === t.name)!.run(input ?? {});
      return v === undefined ? "undefined" : JSON.stringify(v);
    },
  });
  return mc;
}

test("mirrorNativeTools: the browser's list, minus the SDK's own and what registerTool already gave", async () => {
  const observed: WebMCPRegistration = { name: "observed", description: "d", execute: () => "direct", readOnlyHint: false, untrustedContentHint: false, exposedTo: [] };
  registrations.add(observed);
  ownToolNames.add("pedelec_own");
  const mc = fakeNative([
    { name: "early", description: "before line 1", inputSchema: { type: "object", properties: { a: { type: "string" } } }, annotations: { readOnlyHint: true, debugging: false }, run: (i) => ({ got: i }) },
    { name: "observed", description: "d", run: () => "through the browser" },
    { name: "pedelec_own", description: "d", run: () => 1 },
    { name: "silent", description: "d", run: () => undefined },
  ]);
  await mirrorNativeTools(mc as unknown as EnumerableModelContext);
  assert.deepEqual(registrations.list().map((r) => r.name).sort(), ["early", "observed", "silent"]);
  assert.equal(registrations.get("observed"), observed);
  const early = registrations.get("early")!;
  assert.equal(early.source, "native");
  assert.equal(early.readOnlyHint, true);
  assert.deepEqual(early.annotations, { readOnlyHint: true }, "only the hints Core knows");
  assert.equal(early.inputSchema, JSON.stringify({ type: "object", properties: { a: { type: "string" } } }));
  assert.deepEqual(await early.execute({ a: "x" }), { got: { a: "x" } });
  assert.equal(await registrations.get("silent")!.execute({}), null);

  // A toolchange: one gone, one new.
  mc.tools = mc.tools.filter((t) => t.name !== "early");
  mc.tools.push({ name: "later", description: "d", run: () => 2 });
  mc.dispatchEvent(new Event("toolchange"));
  await mirrorNativeTools(mc as unknown as EnumerableModelContext); // the same follower, once per modelContext
  await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(registrations.list().map((r) => r.name).sort(), ["later", "observed", "silent"]);

  mc.tools = [];
  mc.dispatchEvent(new Event("toolchange"));
  await new Promise((r) => setTimeout(r, 10));
  registrations.remove(observed);
  ownToolNames.delete("pedelec_own");
  assert.deepEqual(registrations.list(), []);
});
