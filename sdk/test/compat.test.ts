// The original SDK's documented behaviours (docs/compat.md), one test each,
// against a fake Core.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Pedelec } from "../src/client.js";
import { defineTool } from "../src/define-tool.js";
import { PedelecError } from "../src/errors.js";
import type { ChatEventContext, EndedEventContext, ErrorEventContext, StatusEventContext } from "../src/types.js";
import { FakeCore, tick, until } from "./fake-core.js";

const providers = (defaultProvider: string, extra: Record<string, unknown>[] = []) => () => ({
  result: {
    providers: [
      { name: "codex", available: false, reason: "codex is not on PATH" },
      { name: "script", available: true, defaultModel: "echo-1" },
      ...extra,
    ],
    defaultProvider,
  },
});

async function started(core: FakeCore) {
  const pedelec = core.client();
  const session = await pedelec.createSession({ provider: "script" });
  return { pedelec, session };
}

test("listeners receive (value, ctx) with the documented contexts", async () => {
  const core = new FakeCore();
  const { session } = await started(core);
  const chats: [string, ChatEventContext][] = [];
  const statuses: [string, StatusEventContext][] = [];
  const errors: [PedelecError, ErrorEventContext][] = [];
  const ended: EndedEventContext[] = [];
  session.onChat((delta, ctx) => chats.push([delta, ctx]));
  session.onStatus((status, ctx) => statuses.push([status, ctx]));
  session.onError((error, ctx) => errors.push([error, ctx]));
  session.onEnded((ctx) => ended.push(ctx));
  let text = "";
  session.onChat((delta) => (text += delta));

  const turn = session.sendText("hi");
  await until(() => core.sent("send_text").length === 1, "send_text");
  await tick(5);
  core.event("chat_delta", { text: "Hel" }, { turnId: "t_1" });
  core.event("chat_delta", { text: "lo" }, { turnId: "t_1" });
  core.event("error", { error: { code: "PROVIDER_ERROR", message: "hiccup" } }, { turnId: "t_1" });
  core.event("status_changed", { status: "idle", previousStatus: "running" }, { turnId: "t_1" });
  core.event("done", { ok: true }, { turnId: "t_1" });
  assert.equal(await turn, undefined, "sendText resolves with nothing, as the original's Promise<void>");
  assert.equal(text, "Hello", "deltas are strings: accumulating them gives the message");

  const [delta, chat] = chats[1]!;
  assert.equal(delta, "lo");
  assert.equal(chat.type, "chat_delta");
  assert.equal(chat.turnId, "t_1");
  assert.equal(chat.turnStartedAt, 1000);
  assert.equal(chat.turnKind, "user");
  assert.equal(chat.sessionId, "s_1");
  assert.equal(chat.provider, "script");
  assert.equal(chat.source, "core");
  assert.equal(chat.text, "Hello");
  assert.equal(typeof chat.eventReceivedAt, "number");
  assert.equal(typeof chat.eventEmittedAt, "number");
  assert.equal(chat.sessionCreatedAt, session.sessionCreatedAt);

  assert.deepEqual(
    statuses.map(([s, c]) => [s, c.previousStatus, c.source, c.type]),
    [
      ["running", "idle", "sdk", "sdk_status_changed"],
      ["idle", "running", "core", "status_changed"],
    ],
  );
  assert.equal(statuses[0]![1].eventReceivedAt, undefined, "a change the SDK made has no received time");
  assert.equal(errors[0]![0].code, "PROVIDER_ERROR");
  assert.deepEqual([errors[0]![1].type, errors[0]![1].source, errors[0]![1].turnId], ["error", "core", "t_1"]);

  await session.end();
  assert.equal(ended.length, 1);
  assert.deepEqual([ended[0]!.type, ended[0]!.source, ended[0]!.reason], ["sdk_ended", "sdk", "end_session"]);
  assert.equal(statuses.at(-1)![0], "ended");
});

test("a Core ended event reaches onEnded once with type ended; SDK errors are sdk_error", async () => {
  const core = new FakeCore();
  const { session } = await started(core);
  const ended: EndedEventContext[] = [];
  const errors: ErrorEventContext[] = [];
  session.onEnded((ctx) => ended.push(ctx));
  session.onError((_e, ctx) => errors.push(ctx));
  // A result that cannot be sent is an SDK error (SUBMIT_TOOL_RESULT_FAILED).
  session.onTool("nothing_here" as never, () => ({ n: 1n }));
  core.event("tool_call", { toolRequestId: "r1", tool: "nothing_here", args: {}, timeoutMs: 1000, deadline: Date.now() + 1000, turnStartedAt: 5 }, { turnId: "t_1" });
  await until(() => errors.length === 1, "SUBMIT_TOOL_RESULT_FAILED reported");
  assert.deepEqual([errors[0]!.type, errors[0]!.source], ["sdk_error", "sdk"]);
  core.event("ended", { reason: "shutdown" });
  core.event("ended", { reason: "shutdown" });
  assert.deepEqual(ended.map((c) => [c.type, c.source, c.reason]), [["ended", "core", "shutdown"]]);
});

test("sendTurn (ours) resolves with the turn's record", async () => {
  const core = new FakeCore();
  const { session } = await started(core);
  const turn = session.sendTurn("hi");
  await until(() => core.sent("send_text").length === 1, "send_text");
  await tick(5);
  core.event("chat_delta", { text: "answer" }, { turnId: "t_1" });
  core.event("done", { ok: true }, { turnId: "t_1" });
  assert.deepEqual(await turn, { turnId: "t_1", startedAt: 1000, text: "answer" });
});

test("listProviders resolves ProviderInfo[] {name, code, available, error} of the original's codes; {all: true} adds ours", async () => {
  const core = new FakeCore();
  core.handlers.list_providers = providers("script", [
    { name: "cursor", available: false, reason: "not built into this version of Pedelec yet" },
    { name: "qwen", available: false, reason: "not built" },
  ]);
  const list = await core.client().listProviders();
  assert.ok(Array.isArray(list));
  assert.deepEqual(list, [
    { name: "Codex", code: "codex", available: false, error: "codex is not on PATH" },
    { name: "Cursor", code: "cursor", available: false, error: "not built into this version of Pedelec yet" },
  ]);
  const all = await core.client().listProviders({ all: true });
  assert.deepEqual(all.map((p) => p.code), ["codex", "script", "cursor", "qwen"]);
  assert.deepEqual(all.filter((p) => p.available).map((p) => p.code), ["script"]);
  // Chosen for the whole client: the constructor option, or the module URL Core serves.
  assert.deepEqual((await core.client({ providers: "all" }).listProviders()).map((p) => p.code), ["codex", "script", "cursor", "qwen"]);
  assert.deepEqual((await core.client({ moduleUrl: "http://127.0.0.1:7077/sdk/pedelec.js?providers=all" } as object).listProviders()).map((p) => p.code), ["codex", "script", "cursor", "qwen"]);
});

test("getSettings gives Core's default provider and default models", async () => {
  const core = new FakeCore();
  core.handlers.list_providers = providers("script");
  // script is not one of the original's codes: reported only when asked for all.
  assert.deepEqual(await core.client().getSettings(), { defaultProvider: null, defaultModels: {} });
  assert.deepEqual(await core.client().getSettings({ all: true }), { defaultProvider: "script", defaultModels: { script: "echo-1" } });
  core.handlers.list_providers = providers("");
  assert.deepEqual(await core.client().getSettings({ all: true }), { defaultProvider: null, defaultModels: { script: "echo-1" } });
  core.handlers.list_providers = providers("codex", [{ name: "codex", available: true, defaultModel: "gpt-5" }]);
  assert.deepEqual((await core.client().getSettings()).defaultProvider, "codex");
  core.handlers.list_providers = () => ({ result: { nothing: true } });
  await assert.rejects(core.client().getSettings(), (e: PedelecError) => e.code === "SDK_PROTOCOL_ERROR");
});

test("createSession() with no argument uses Core's default provider and its default model, with no tools", async () => {
  const core = new FakeCore();
  core.handlers.list_providers = providers("script");
  const session = await core.client().createSession();
  const params = core.sent("create_session")[0]!.params as Record<string, unknown>;
  assert.deepEqual(params, { provider: "script", model: "echo-1", skills: { guidance: "", tools: [] } });
  assert.equal(session.provider, "script");
  assert.equal(typeof session.sessionCreatedAt, "number");
  // Without skills but with a provider: no list_providers round trip.
  const before = core.sent("list_providers").length;
  await core.client().createSession({ provider: "script", autoEndOnDisconnect: false });
  assert.equal(core.sent("list_providers").length, before);
  assert.deepEqual(core.sent("create_session")[1]!.params, { provider: "script", skills: { guidance: "", tools: [] }, autoEndOnDisconnect: false });
});

test("DEFAULT_PROVIDER_NOT_SET and DEFAULT_PROVIDER_UNAVAILABLE, before any session is created", async () => {
  const core = new FakeCore();
  core.handlers.list_providers = providers("");
  await assert.rejects(core.client().createSession(), (e: PedelecError) => e.code === "DEFAULT_PROVIDER_NOT_SET");
  core.handlers.list_providers = providers("codex");
  await assert.rejects(
    core.client().createSession({ skills: { guidance: "g", tools: [] } }),
    (e: PedelecError) => e.code === "DEFAULT_PROVIDER_UNAVAILABLE" && /codex is not on PATH/.test(e.message) && (e.details as { provider: string }).provider === "codex",
  );
  assert.equal(core.sent("create_session").length, 0);
});

test("model without provider, and inputs of the wrong type, reject with INVALID_INPUT before anything is sent", async () => {
  const core = new FakeCore();
  const pedelec = core.client();
  const bad: unknown[] = [{ model: "some-model" }, { provider: 7 }, { provider: "" }, { provider: "script", model: 3 }, { autoEndOnDisconnect: "yes" }, "codex", null, { skills: { tools: "x" } }];
  for (const input of bad) {
    await assert.rejects(pedelec.createSession(input as never), (e: PedelecError) => e instanceof PedelecError && e.code === "INVALID_INPUT", JSON.stringify(input));
  }
  assert.equal(core.requests.length, 0);
});

test("getApprovalStatus: Core up and the origin allowed, refused, or Core down; it resolves in each case", async () => {
  const core = new FakeCore();
  assert.deepEqual(await core.client().getApprovalStatus(), { installed: true, approved: true, origin: null, appConnected: true });
  core.refuse = { code: 1006, reason: "" };
  core.httpUp = true;
  assert.deepEqual(await core.client().getApprovalStatus(), { installed: true, approved: false, origin: null, appConnected: true });
  core.httpUp = false;
  assert.deepEqual(await core.client().getApprovalStatus(), { installed: false, approved: false, origin: null, appConnected: false });
});

test("checkAvailability checks every layer and never rejects", async () => {
  const up = new FakeCore();
  assert.deepEqual(await up.client().checkAvailability(), {
    available: true,
    extension: { available: true },
    approval: { approved: true, origin: null },
    desktop: { available: true, launchAttempted: true },
  });
  const refused = new FakeCore();
  refused.refuse = { code: 1006, reason: "" };
  refused.httpUp = true;
  const r = await refused.client().checkAvailability();
  assert.deepEqual([r.available, r.extension.available, r.approval.approved, r.desktop.launchAttempted, r.error?.code], [false, true, false, false, "ORIGIN_NOT_ALLOWED"]);
  const down = new FakeCore();
  down.refuse = { code: 1006, reason: "" };
  const d = await down.client().checkAvailability();
  assert.deepEqual([d.available, d.extension.available, d.error?.code], [false, false, "CORE_UNREACHABLE"]);
  const broken = new FakeCore();
  broken.handlers.list_providers = () => ({ error: { code: "INTERNAL", message: "boom" } });
  const b = await broken.client().checkAvailability();
  assert.deepEqual([b.available, b.approval.approved, b.desktop.available, b.desktop.launchAttempted, b.error?.code], [false, true, false, true, "INTERNAL"]);
});

test("request<T>() sends one request of Core's protocol; the original's {input} is unwrapped", async () => {
  const core = new FakeCore();
  const pedelec = core.client();
  const list = await pedelec.request<{ defaultProvider: string }>("list_providers");
  assert.equal(list.defaultProvider, "script");
  const created = await pedelec.request<{ sessionId: string }>("create_session", { input: { provider: "script", autoEndOnDisconnect: true } });
  assert.equal(created.sessionId, "s_1");
  assert.deepEqual(core.sent("create_session")[0]!.params, { provider: "script", autoEndOnDisconnect: true, skills: { guidance: "", tools: [] } });
  await assert.rejects(pedelec.request("no_such_method"), (e: PedelecError) => e.code === "UNKNOWN_METHOD");
});

test("prepare() is idempotent: concurrent callers share one promise; a later call resolves at once", async () => {
  const core = new FakeCore();
  const { session } = await started(core);
  const chats: string[] = [];
  session.onChat((d) => chats.push(d));
  const a = session.prepare();
  const b = session.prepare();
  assert.equal(a, b, "the same promise");
  await until(() => core.sent("prepare").length === 1, "prepare");
  await tick(5);
  core.event("chat_delta", { text: "warming up" }, { turnId: "t_1" });
  core.event("done", { ok: true, prepare: true }, { turnId: "t_1" });
  assert.equal(await a, undefined);
  await session.prepare();
  assert.equal(core.sent("prepare").length, 1, "no second preparation");
  assert.deepEqual(chats, [], "preparation chat is not delivered");
});

test("prepare() during a user turn is SESSION_BUSY; after end SESSION_ENDED; sendText waits for a preparation", async () => {
  const core = new FakeCore();
  const { session } = await started(core);
  const turn = session.sendText("hi");
  await assert.rejects(session.prepare(), (e: PedelecError) => e.code === "SESSION_BUSY");
  await until(() => core.sent("send_text").length === 1, "send_text");
  await tick(5);
  core.event("done", { ok: true }, { turnId: "t_1" });
  await turn;

  const prep = session.prepare();
  const after = session.sendText("after the preparation");
  await until(() => core.sent("prepare").length === 1, "prepare");
  await tick(5);
  assert.equal(core.sent("send_text").length, 1, "sendText waits while the preparation runs");
  core.event("done", { ok: false, error: { code: "PROVIDER_ERROR", message: "warm-up failed" } }, { turnId: "t_2" });
  await assert.rejects(prep, (e: PedelecError) => e.code === "PROVIDER_ERROR");
  await until(() => core.sent("send_text").length === 2, "sendText runs after a failed preparation");
  await tick(5);
  core.event("done", { ok: true }, { turnId: "t_3" });
  await after;

  await session.end();
  await assert.rejects(session.prepare(), (e: PedelecError) => e.code === "SESSION_ENDED");
});

test("onTool refuses an invalid tool name or a missing handler with INVALID_INPUT", async () => {
  const core = new FakeCore();
  const { session } = await started(core);
  for (const name of ["bad name", "1tool", "", "tool!"]) {
    assert.throws(() => session.onTool(name as never, () => null), (e: PedelecError) => e instanceof PedelecError && e.code === "INVALID_INPUT" && e.message.includes(JSON.stringify(name)));
  }
  assert.throws(() => (session.onTool as (n: string, h?: unknown) => unknown)("fine_name"), (e: PedelecError) => e.code === "INVALID_INPUT");
  assert.throws(() => (session.onTool as (n: unknown) => unknown)(42), (e: PedelecError) => e.code === "INVALID_INPUT");
  const off = session.onTool("editor.write-document_2", () => null);
  off();
});

test("bridgeTimeoutMs: an unanswered request rejects with SDK_BRIDGE_TIMEOUT; below 1 counts as 1", async () => {
  const core = new FakeCore();
  core.handlers.list_providers = () => undefined; // never answered
  const pedelec = new Pedelec({ url: "ws://127.0.0.1:7077/ws", bridgeTimeoutMs: 0, socketFactory: () => core.open() } as never);
  await assert.rejects(pedelec.listProviders(), (e: PedelecError) => e.code === "SDK_BRIDGE_TIMEOUT" && (e.details as { timeoutMs: number }).timeoutMs === 1);
});

test("new Pedelec() reaches Core at its default address", () => {
  assert.equal(new Pedelec().url, "ws://127.0.0.1:7077/ws");
});

test("end() that Core refuses reports through onError, rejects, and leaves the session as it was", async () => {
  const core = new FakeCore();
  const { session } = await started(core);
  const errors: [string, string][] = [];
  session.onError((e, ctx) => errors.push([e.code, ctx.type]));
  core.handlers.end_session = () => ({ error: { code: "INTERNAL", message: "disk on fire" } });
  await assert.rejects(session.end(), (e: PedelecError) => e.code === "INTERNAL");
  assert.notEqual(session.getStatus(), "ended");
  assert.deepEqual(errors, [["INTERNAL", "sdk_error"]]);
});

test("the asset methods of the original are built: they check input, then ask Core", async () => {
  const core = new FakeCore();
  const { session } = await started(core);
  core.handlers.list_assets = () => ({ result: { assets: [] } });
  assert.deepEqual(await session.listAssets(), []);
  assert.equal(core.sent("list_assets").length, 1);
  await assert.rejects(session.readAsset("a.txt" as `/${string}`, "text"), (e: PedelecError) => e.code === "ASSET_PATH_INVALID");
  await assert.rejects(session.uploadAsset({} as File), (e: PedelecError) => e.code === "INVALID_INPUT");
});

test("inline handlers from createSession's tools answer calls with the documented ctx", async () => {
  const core = new FakeCore();
  let seen: Record<string, unknown> = {};
  const tool = defineTool({
    name: "get_current_page",
    description: "d",
    argsSchema: { type: "object" },
    handler: (_args, ctx) => {
      seen = { type: ctx.type, tool: ctx.tool, turnId: ctx.turnId, kind: ctx.turnKind, source: ctx.source, provider: ctx.provider };
      return { title: "t" };
    },
  });
  const session = await core.client().createSession({ provider: "script", skills: { guidance: "g", tools: [tool] } });
  void session;
  core.event("tool_call", { toolRequestId: "r1", tool: "get_current_page", args: {}, timeoutMs: 1000, deadline: Date.now() + 1000, turnStartedAt: 5 }, { turnId: "t_1" });
  await until(() => core.sent("submit_tool_result").length === 1, "submit");
  assert.deepEqual(seen, { type: "tool_call", tool: "get_current_page", turnId: "t_1", kind: "user", source: "core", provider: "script" });
});
