// Sessions that follow the page (follow.ts) and tools added while a
// session lives (page-tools.ts), against the fake Core. sessionStorage
// and pagehide are node stand-ins for the browser's.
import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeCore, tick, until } from "./fake-core.js";
import { addTool, onNavigatedCall, FOLLOW_GRACE_MS } from "../src/index.js";
import { convert } from "../src/webmcp/tools.js";
import { checkRegistration } from "../src/webmcp/model-context.js";

class MemoryStorage {
  private m = new Map<string, string>();
  getItem(k: string) {
    return this.m.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.m.set(k, v);
  }
  removeItem(k: string) {
    this.m.delete(k);
  }
}
const g = globalThis as Record<string, unknown>;
g.sessionStorage = new MemoryStorage();
const hideListeners = new Set<() => void>();
g.addEventListener = (type: string, fn: () => void) => type === "pagehide" && hideListeners.add(fn);
g.removeEventListener = (type: string, fn: () => void) => type === "pagehide" && hideListeners.delete(fn);
g.location = { href: "http://127.0.0.1:5173/cart.html", origin: "http://127.0.0.1:5173" };
const pagehide = () => [...hideListeners].forEach((fn) => fn());

function coreWithUpdates() {
  const core = new FakeCore();
  core.handlers.update_tools = (p) => ({ result: { tools: p.tools.map((t: { name: string }) => t.name) } });
  core.handlers.resume_session = (p) => ({
    result: { sessionId: p.sessionId, provider: "script", status: "waiting_tool_result", seq: 10, tools: ["old_tool"], autoEndOnDisconnect: true, disconnectGraceMs: FOLLOW_GRACE_MS },
  });
  return core;
}
const toolLists = (core: FakeCore) => core.sent("update_tools").map((r) => (r.params as { tools: { name: string }[] }).tools.map((t) => t.name));
const def = (name: string) => ({ name, description: `the ${name} tool`, argsSchema: { type: "object" as const, properties: {} } });

test("addTool: one update per burst, none when a mount, unmount and mount leave the list as it was; a removed tool's calls find no handler", async () => {
  const core = coreWithUpdates();
  const session = await core.client().createSession({ provider: "script", skills: { guidance: "", tools: [def("base")] } });
  const off = addTool(session, { ...def("counter"), handler: () => 1 });
  addTool(session, { ...def("greet"), handler: () => 2 });
  await until(() => toolLists(core).length === 1, "the burst's update");
  assert.deepEqual(toolLists(core), [["base", "counter", "greet"]]);

  // StrictMode: unmounted and mounted again in one commit.
  off();
  const again = addTool(session, { ...def("counter"), handler: () => 3 });
  await tick(20);
  assert.equal(toolLists(core).length, 1, "the same list is not sent again");

  assert.throws(() => addTool(session, def("base")), (e: { code: string }) => e.code === "INVALID_INPUT");
  assert.throws(() => addTool(session, { name: "bad name", description: "x", argsSchema: { type: "object", properties: {} } }), (e: { code: string }) => e.code === "INVALID_INPUT");

  again();
  await until(() => toolLists(core).length === 2, "the removal's update");
  assert.deepEqual(toolLists(core)[1], ["base", "greet"]);
  core.event("tool_call", { toolRequestId: "tr_1", tool: "counter", args: {}, timeoutMs: 1000, deadline: Date.now() + 1000, turnStartedAt: 1 });
  await until(() => core.sent("submit_tool_result").length === 1, "the answer");
  const answer = core.sent("submit_tool_result")[0]!.params as { result: { error?: { code: string } } };
  assert.equal(answer.result.error?.code, "TOOL_HANDLER_NOT_FOUND");
});

test("followPage: created with a disconnect grace, kept in sessionStorage, resumed by the next page with its tools; the running call is answered by that page, or as navigated", async () => {
  const first = coreWithUpdates();
  const s1 = await first.client().createSession({ provider: "script", followPage: true });
  const created = first.sent("create_session")[0]!.params as { autoEndOnDisconnect: boolean; disconnectGraceMs: number };
  assert.equal(created.autoEndOnDisconnect, true);
  assert.equal(created.disconnectGraceMs, FOLLOW_GRACE_MS);
  s1.onTool("open_cart", () => new Promise(() => {})); // navigates: never answers here
  s1.onTool("open_cart2", () => new Promise(() => {}));
  first.event("tool_call", { toolRequestId: "tr_nav", tool: "open_cart", args: {}, timeoutMs: 60000, deadline: Date.now() + 60000, turnStartedAt: 1 });
  first.event("tool_call", { toolRequestId: "tr_nav2", tool: "open_cart2", args: {}, timeoutMs: 60000, deadline: Date.now() + 60000, turnStartedAt: 1 });
  s1.onTool("late", () => ({ ran: "here" }));
  await tick(5);
  pagehide();
  const leftAt = s1.lastSeq();
  // A call that reaches the page as it unloads is the next page's to run.
  first.event("tool_call", { toolRequestId: "tr_late", tool: "late", args: {}, timeoutMs: 60000, deadline: Date.now() + 60000, turnStartedAt: 1 });
  await tick(5);
  assert.equal(first.sent("submit_tool_result").length, 0, "the unloading page ran a call");

  // The next page: a new client, the same tab's storage.
  const next = coreWithUpdates();
  const s2 = await next.client().createSession({ provider: "script", followPage: true, skills: { guidance: "", tools: [def("place_order")] } });
  assert.equal(s2.sessionId, "s_1");
  assert.equal(next.sent("create_session").length, 0, "resumed, not created");
  // The events after the last one the previous page handled (what the
  // agent did while no page was loaded), and the calls it was running again.
  assert.deepEqual(next.sent("resume_session")[0]!.params, { sessionId: "s_1", lastSeq: leftAt, redeliver: true });
  assert.ok(leftAt > 0);
  await until(() => toolLists(next).length === 1, "the new page's tools");
  assert.deepEqual(toolLists(next)[0], ["place_order"]);

  let ran = false;
  s2.onTool("open_cart", () => (ran = true));
  onNavigatedCall(s2, (call) => (call.tool === "open_cart" ? { page: "cart", from: call.from } : undefined));
  next.event("tool_call", { toolRequestId: "tr_nav", tool: "open_cart", args: {}, timeoutMs: 60000, deadline: Date.now() + 60000, turnStartedAt: 1, redelivered: true }, { seq: 11 });
  next.event("tool_call", { toolRequestId: "tr_nav2", tool: "open_cart2", args: {}, timeoutMs: 60000, deadline: Date.now() + 60000, turnStartedAt: 1, redelivered: true }, { seq: 12 });
  await until(() => next.sent("submit_tool_result").length === 2, "both carried calls answered", 4000);
  const results = Object.fromEntries(next.sent("submit_tool_result").map((r) => [(r.params as { toolRequestId: string }).toolRequestId, (r.params as { result: Record<string, unknown> }).result]));
  assert.deepEqual(results.tr_nav, { page: "cart", from: "http://127.0.0.1:5173/cart.html" });
  assert.equal(results.tr_nav2?.navigated, true);
  assert.match(String(results.tr_nav2?.message), /^navigated to http:\/\/127\.0\.0\.1:5173\/cart\.html/);
  assert.equal(ran, false, "the tool's own handler does not repeat what navigated");

  // Ended: the next page starts afresh.
  await s2.end();
  const third = coreWithUpdates();
  await third.client().createSession({ provider: "script", followPage: true });
  assert.equal(third.sent("create_session").length, 1);
});

test("followPage: a session that ended meanwhile is forgotten and a new one created; followPage with autoEndOnDisconnect false is refused", async () => {
  const a = coreWithUpdates();
  await a.client().createSession({ provider: "script", followPage: true });
  const b = coreWithUpdates();
  b.handlers.resume_session = () => ({ error: { code: "SESSION_ENDED", message: "ended" } });
  await b.client().createSession({ provider: "script", followPage: true });
  assert.equal(b.sent("create_session").length, 1);
  await assert.rejects(b.client().createSession({ provider: "script", followPage: true, autoEndOnDisconnect: false }), (e: { code: string }) => e.code === "INVALID_INPUT");
});

test("a WebMCP schema's $schema naming the 2020-12 dialect (Zod 4's) is kept for Core, which reads the dialect; any other is refused", () => {
  const schema = (extra: object) => ({ $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { city: { type: "string", minLength: 1 } }, required: ["city"], ...extra });
  const ok = convert(checkRegistration({ name: "zod", description: "d", inputSchema: schema({}), execute: () => 1 }, undefined));
  assert.ok("def" in ok);
  assert.deepEqual((ok as { def: { inputSchema: unknown } }).def.inputSchema, schema({}));
  const other = convert(checkRegistration({ name: "old", description: "d", inputSchema: schema({ $schema: "http://json-schema.org/draft-04/schema#" }), execute: () => 1 }, undefined));
  assert.ok("problems" in other && other.problems.some((p) => p.path === "inputSchema.$schema"));
});
