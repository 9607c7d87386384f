import assert from "node:assert/strict";
import { test } from "node:test";
import { ModelContextPolyfill } from "../src/webmcp/model-context.js";
import { registrations } from "../src/webmcp/registrations.js";
import { asJson, convert } from "../src/webmcp/tools.js";
import type { ToolCallContext } from "../src/types.js";

const tool = (name: string, extra: Record<string, unknown> = {}) => ({ name, description: "d", execute: async () => "ok", ...extra });

async function rejection(p: Promise<unknown>): Promise<{ name: string; message: string }> {
  try {
    await p;
  } catch (e) {
    return { name: (e as Error).name, message: (e as Error).message };
  }
  throw new Error("did not reject");
}

test("registerTool: the draft's registration errors", async () => {
  const mc = new ModelContextPolyfill();
  const ac = new AbortController();
  await mc.registerTool(tool("dup"), { signal: ac.signal });
  assert.equal((await rejection(mc.registerTool(tool("dup")))).name, "InvalidStateError");
  assert.equal((await rejection(mc.registerTool(tool("")))).name, "InvalidStateError");
  assert.equal((await rejection(mc.registerTool({ ...tool("x"), description: "" }))).name, "InvalidStateError");
  assert.equal((await rejection(mc.registerTool(tool("has space")))).name, "InvalidStateError");
  assert.equal((await rejection(mc.registerTool(tool("a".repeat(129))))).name, "InvalidStateError");
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.equal((await rejection(mc.registerTool(tool("cyc", { inputSchema: cyclic })))).name, "TypeError");
  assert.equal((await rejection(mc.registerTool(tool("undef", { inputSchema: { toJSON: () => undefined } })))).name, "TypeError");
  const aborted = AbortSignal.abort(new Error("gone already"));
  assert.equal((await rejection(mc.registerTool(tool("late"), { signal: aborted }))).message, "gone already");
  assert.equal((await rejection(mc.registerTool(tool("exp"), { exposedTo: ["http://example.com"] }))).name, "SecurityError");
  assert.equal((await rejection(mc.registerTool(tool("exp2"), { exposedTo: ["not a url"] }))).name, "SecurityError");
  await mc.registerTool(tool("exp3"), { exposedTo: ["https://example.com", "http://127.0.0.1:8080"], signal: ac.signal });
  assert.ok(registrations.has("exp3"));
  ac.abort();
  assert.ok(!registrations.has("dup") && !registrations.has("exp3"));
  for (const n of ["late", "exp", "exp2", "cyc", "undef"]) assert.ok(!registrations.has(n), n);
});

test("toolchange fires before the promise resolves, and when a signal unregisters", async () => {
  const mc = new ModelContextPolyfill();
  const seen: string[] = [];
  mc.ontoolchange = () => seen.push("toolchange");
  const ac = new AbortController();
  const p = mc.registerTool(tool("tc"), { signal: ac.signal }).then(() => seen.push("resolved"));
  await p;
  assert.deepEqual(seen, ["toolchange", "resolved"]);
  ac.abort();
  await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(seen, ["toolchange", "resolved", "toolchange"]);
  assert.ok(!registrations.has("tc"));
});

test("convert: the mapping; inputSchema stays standard JSON Schema, for Core to check", async () => {
  const mc = new ModelContextPolyfill();
  const ac = new AbortController();
  let gotSignal: AbortSignal | undefined;
  await mc.registerTool(
    {
      name: "search",
      title: "Search",
      description: "Search the page.",
      inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
      annotations: { readOnlyHint: true, untrustedContentHint: true },
      execute: async (input: Record<string, unknown>, opts?: { signal?: AbortSignal }) => {
        gotSignal = opts?.signal;
        return { q: input.q, when: new Date(0) };
      },
    },
    { signal: ac.signal },
  );
  const c = convert(registrations.get("search")!);
  assert.ok("def" in c);
  assert.deepEqual(c.def.annotations, { readOnlyHint: true, untrustedContentHint: true, title: "Search" });
  assert.deepEqual("inputSchema" in c.def && c.def.inputSchema, { type: "object", properties: { q: { type: "string" } }, required: ["q"] });
  const signal = new AbortController().signal;
  assert.deepEqual(await c.def.handler!({ q: "x" }, { signal } as ToolCallContext), { q: "x", when: "1970-01-01T00:00:00.000Z" });
  assert.equal(gotSignal, signal);

  await mc.registerTool(tool("closed", { inputSchema: { type: "object", additionalProperties: false } }), { signal: ac.signal });
  assert.ok("def" in convert(registrations.get("closed")!));
  await mc.registerTool(tool("scalar", { inputSchema: { type: "string" } }), { signal: ac.signal });
  const refused = convert(registrations.get("scalar")!);
  assert.ok("problems" in refused);
  assert.equal(refused.problems[0]?.path, "inputSchema.type");
  ac.abort();
});

test("asJson: what JSON.stringify sends", () => {
  assert.equal(asJson(undefined), null);
  assert.equal(asJson(() => 1), null);
  assert.deepEqual(asJson(new Map([[1, 2]])), {});
  assert.deepEqual(asJson({ a: undefined, b: NaN }), { b: null });
  assert.throws(() => asJson(10n), TypeError);
});

test("a webmcp session: create_session carries the page's tools; later changes go out as whole lists, one per burst", async () => {
  const { FakeCore, until, tick } = await import("./fake-core.js");
  const core = new FakeCore();
  core.handlers.update_tools = (p) => ({ result: { tools: p.tools.map((t: { name: string }) => t.name), added: [], removed: [], changed: [] } });
  const mc = new ModelContextPolyfill();
  const ac = new AbortController();
  await mc.registerTool(tool("first"), { signal: ac.signal });
  const session = await core.client().createSession({ provider: "script", webmcp: true });
  const created = core.requests.find((r) => r.method === "create_session")!;
  assert.deepEqual((created.params as { skills: { tools: { name: string }[] } }).skills.tools.map((t) => t.name), ["first"]);

  const later = new AbortController();
  await Promise.all([mc.registerTool(tool("second"), { signal: later.signal }), mc.registerTool(tool("third"), { signal: ac.signal })]);
  await until(() => session.tools.length === 3, "the burst's update");
  await tick(20);
  const updates = () => core.requests.filter((r) => r.method === "update_tools").map((r) => (r.params as { tools: { name: string }[] }).tools.map((t) => t.name));
  assert.deepEqual(updates(), [["first", "second", "third"]]);

  later.abort();
  await until(() => updates().length === 2, "the unregistration's update");
  assert.deepEqual(updates()[1], ["first", "third"]);
  await until(() => session.tools.length === 2, "Core's answer"); // the request is sent before it is answered
  assert.deepEqual([...session.tools], ["first", "third"]);

  await session.end();
  ac.abort();
  await tick(20);
  assert.equal(updates().length, 2, "an ended session sends nothing more");
});
