import assert from "node:assert/strict";
import { test } from "node:test";
import { defineTool } from "../src/define-tool.js";
import { PedelecError } from "../src/errors.js";
import type { StatusEventContext } from "../src/types.js";
import { FakeCore, tick, until } from "./fake-core.js";

const noArgs = { type: "object" as const, properties: {}, required: [] };
const counter = { value: 0 };
const updateCounter = defineTool({
  name: "update_counter",
  description: "Increase or decrease the visible counter by a signed delta.",
  argsSchema: { type: "object", properties: { delta: { type: "integer" } }, required: ["delta"] },
  timeoutMs: 10_000,
  handler: (args: { delta: number }) => {
    counter.value += args.delta;
    return { value: counter.value };
  },
});
const getPage = defineTool({ name: "get_current_page", description: "Read the page.", argsSchema: noArgs });

async function setup() {
  const core = new FakeCore();
  const pedelec = core.client();
  const session = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [updateCounter, getPage] as const } });
  const statuses: StatusEventContext[] = [];
  const errors: PedelecError[] = [];
  session.onStatus((_status, ctx) => statuses.push(ctx));
  session.onError((e) => errors.push(e));
  return { core, pedelec, session, statuses, errors };
}

const toolCall = (id: string, tool: string, args: unknown, extra: Record<string, unknown> = {}) => ({
  toolRequestId: id,
  tool,
  args,
  timeoutMs: 10_000,
  deadline: Date.now() + 10_000,
  turnStartedAt: 1000,
  ...extra,
});

test("createSession sends the manifest without handlers", async () => {
  const { core, session } = await setup();
  const [req] = core.sent("create_session");
  const params = req!.params as { skills: { tools: Record<string, unknown>[] }; provider: string };
  assert.equal(params.provider, "script");
  assert.deepEqual(Object.keys(params.skills.tools[0]!), ["name", "description", "argsSchema", "timeoutMs"]);
  assert.equal(session.sessionId, "s_1");
  assert.equal(session.provider, "script");
  assert.equal(session.getStatus(), "idle");
});

test("invalid definitions reject with INVALID_INPUT before anything is sent", async () => {
  const core = new FakeCore();
  const pedelec = core.client();
  await assert.rejects(
    pedelec.createSession({ skills: { guidance: "g", tools: [{ name: "bad name", description: "", argsSchema: noArgs }] } }),
    (e: PedelecError) => e.code === "INVALID_INPUT" && (e.details as { problems: unknown[] }).problems.length === 2,
  );
  assert.equal(core.requests.length, 0);
});

test("sendText resolves on done with the turn's text; chat streams deltas", async () => {
  const { core, session, statuses } = await setup();
  const chats: string[] = [];
  session.onChat((_delta, ctx) => chats.push(ctx.text ?? ""));
  const p = session.sendTurn("hi");
  assert.equal(session.getStatus(), "running");
  await until(() => core.sent("send_text").length === 1, "send_text");
  await tick(5);
  core.event("status_changed", { status: "running", previousStatus: "idle" }, { turnId: "t_1" });
  core.event("chat_delta", { text: "Hel" }, { turnId: "t_1" });
  core.event("chat_delta", { text: "lo" }, { turnId: "t_1" });
  core.event("status_changed", { status: "idle", previousStatus: "running" }, { turnId: "t_1" });
  core.event("done", { ok: true }, { turnId: "t_1" });
  const r = await p;
  assert.deepEqual(r, { turnId: "t_1", startedAt: 1000, text: "Hello" });
  assert.deepEqual(chats, ["Hel", "Hello"]);
  // deduplicated: the SDK's running, then Core's idle; Core's running was a duplicate
  assert.deepEqual(statuses.map((s) => [s.previousStatus, s.status, s.source]), [
    ["idle", "running", "sdk"],
    ["running", "idle", "core"],
  ]);
});

test("SESSION_BUSY is raised locally while a turn runs; a failed turn rejects sendText", async () => {
  const { core, session } = await setup();
  const p = session.sendText("one");
  await assert.rejects(session.sendText("two"), (e: PedelecError) => e.code === "SESSION_BUSY");
  await until(() => core.sent("send_text").length === 1, "send_text");
  await tick(5);
  core.event("done", { ok: false, error: { code: "PROVIDER_ERROR", message: "model exploded" } }, { turnId: "t_1" });
  await assert.rejects(p, (e: PedelecError) => e.code === "PROVIDER_ERROR" && e.message === "model exploded");
  assert.equal(core.sent("send_text").length, 1);
});

test("a done that arrives before send_text's response still settles the turn", async () => {
  const { core, session } = await setup();
  core.handlers.send_text = () => undefined; // answer by hand
  const p = session.sendTurn("fast");
  await until(() => core.sent("send_text").length === 1, "send_text");
  core.event("chat_delta", { text: "quick" }, { turnId: "t_9" });
  core.event("done", { ok: true }, { turnId: "t_9" });
  core.socket.deliver({ type: "response", id: core.sent("send_text")[0]!.id, ok: true, result: { turnId: "t_9", startedAt: 5 } });
  assert.equal((await p).text, "quick");
});

test("events whose seq is not larger than the last one are dropped", async () => {
  const { core, session } = await setup();
  const chats: string[] = [];
  session.onChat((delta) => chats.push(delta));
  void session.sendText("x").catch(() => {});
  await until(() => core.sent("send_text").length === 1, "send_text");
  await tick(5);
  core.event("chat_delta", { text: "a" }, { turnId: "t_1", seq: 5 });
  core.event("chat_delta", { text: "again" }, { turnId: "t_1", seq: 5 });
  core.event("chat_delta", { text: "old" }, { turnId: "t_1", seq: 3 });
  core.event("chat_delta", { text: "b" }, { turnId: "t_1", seq: 6 });
  assert.deepEqual(chats, ["a", "b"]);
});

test("a tool call runs the handler with ctx, shows waiting_tool_result, and submits the result", async () => {
  const { core, session, statuses } = await setup();
  let seenCtx: Record<string, unknown> = {};
  session.onTool("update_counter", (args, ctx) => {
    seenCtx = { ...ctx };
    assert.equal(session.getStatus(), "waiting_tool_result");
    return { value: args.delta * 10 };
  });
  core.event("tool_call", toolCall("r1", "update_counter", { delta: 2 }), { turnId: "t_1" });
  await until(() => core.sent("submit_tool_result").length === 1, "submit");
  assert.deepEqual(core.sent("submit_tool_result")[0]!.params, { sessionId: "s_1", toolRequestId: "r1", result: { value: 20 } });
  assert.equal(seenCtx.turnId, "t_1");
  assert.equal(seenCtx.toolRequestId, "r1");
  assert.equal(seenCtx.tool, "update_counter");
  assert.equal(seenCtx.sessionId, "s_1");
  assert.equal(seenCtx.turnStartedAt, 1000);
  assert.equal(typeof seenCtx.eventReceivedAt, "number");
  assert.ok(seenCtx.signal instanceof AbortSignal);
  const st = statuses[0]!;
  assert.deepEqual(
    { status: st.status, previousStatus: st.previousStatus, source: st.source, type: st.type, waitingOn: st.waitingOn },
    { status: "waiting_tool_result", previousStatus: "idle", source: "sdk", type: "sdk_status_changed", waitingOn: [{ toolRequestId: "r1", tool: "update_counter" }] },
  );
  assert.equal(seenCtx.type, "tool_call");
  assert.equal(seenCtx.provider, "script");
});

test("a redelivered call that is still running here is not run twice", async () => {
  const { core, session } = await setup();
  let runs = 0;
  let release!: () => void;
  session.onTool("get_current_page", () => {
    runs++;
    return new Promise((r) => (release = () => r({ title: "t" })));
  });
  core.event("tool_call", toolCall("r1", "get_current_page", {}), { turnId: "t_1" });
  core.event("tool_call", toolCall("r1", "get_current_page", {}, { redelivered: true }), { turnId: "t_1" });
  await tick(5);
  release();
  await until(() => core.sent("submit_tool_result").length === 1, "submit");
  assert.equal(runs, 1);
});

test("a refused result is reported as SUBMIT_TOOL_RESULT_FAILED through onError", async () => {
  const { core, session, errors } = await setup();
  core.handlers.submit_tool_result = () => ({ error: { code: "TOOL_REQUEST_NOT_PENDING", message: "timed out" } });
  session.onTool("get_current_page", () => ({ title: "late" }));
  core.event("tool_call", toolCall("r7", "get_current_page", {}), { turnId: "t_1" });
  await until(() => errors.length === 1, "onError");
  assert.equal(errors[0]!.code, "SUBMIT_TOOL_RESULT_FAILED");
  assert.deepEqual((errors[0]!.details as { cause: { code: string } }).cause.code, "TOOL_REQUEST_NOT_PENDING");
  assert.equal((errors[0]!.details as { toolRequestId: string }).toolRequestId, "r7");
});

test("ctx.signal aborts at the deadline and when Core settles the call", async () => {
  const { core, session } = await setup();
  const reasons: string[] = [];
  session.onTool("get_current_page", (_a, ctx) =>
    new Promise((resolve) => ctx.signal?.addEventListener("abort", () => {
      reasons.push((ctx.signal?.reason as PedelecError).code);
      resolve({ cancelled: true });
    })),
  );
  core.event("tool_call", toolCall("r1", "get_current_page", {}, { deadline: Date.now() + 20 }), { turnId: "t_1" });
  core.event("tool_call", toolCall("r2", "get_current_page", {}), { turnId: "t_1" });
  core.event("tool_call_settled", { toolRequestId: "r2", tool: "get_current_page", outcome: "session_ended" }, { turnId: "t_1" });
  // Each way Core settles a call has its own code: the agent giving up is
  // not the session ending, nor Core stopping.
  core.event("tool_call", toolCall("r3", "get_current_page", {}), { turnId: "t_1" });
  core.event("tool_call_settled", { toolRequestId: "r3", tool: "get_current_page", outcome: "cancelled" }, { turnId: "t_1" });
  core.event("tool_call", toolCall("r4", "get_current_page", {}), { turnId: "t_1" });
  core.event("tool_call_settled", { toolRequestId: "r4", tool: "get_current_page", outcome: "interrupted" }, { turnId: "t_1" });
  await until(() => reasons.length === 4, "four aborts");
  assert.deepEqual(reasons.sort(), ["SESSION_ENDED", "TOOL_CALL_CANCELLED", "TOOL_TIMEOUT", "TURN_INTERRUPTED"]);
});

test("a missing handler answers TOOL_HANDLER_NOT_FOUND to the agent only, as the original (not onError)", async () => {
  const { core, errors } = await setup();
  core.event("tool_call", toolCall("r1", "get_current_page", {}), { turnId: "t_1" });
  await until(() => core.sent("submit_tool_result").length === 1, "submit");
  const result = (core.sent("submit_tool_result")[0]!.params as { result: { error: { code: string } } }).result;
  assert.equal(result.error.code, "TOOL_HANDLER_NOT_FOUND");
  await tick(5);
  assert.deepEqual(errors, []);
});

test("the session's end rejects the running turn with SESSION_ENDED and calls onEnded once", async () => {
  const { core, session } = await setup();
  const ended: string[] = [];
  session.onEnded((e) => ended.push(e.reason ?? ""));
  const p = session.sendText("x");
  await until(() => core.sent("send_text").length === 1, "send_text");
  await tick(5);
  core.event("ended", { reason: "shutdown" });
  await assert.rejects(p, (e: PedelecError) => e.code === "SESSION_ENDED");
  assert.equal(session.getStatus(), "ended");
  await assert.rejects(session.sendText("y"), (e: PedelecError) => e.code === "SESSION_ENDED");
  await session.end();
  assert.deepEqual(ended, ["shutdown"]);
});

test("a lost connection reconnects; an autoEndOnDisconnect session Core ended ends here too", async () => {
  const core = new FakeCore();
  core.handlers.resume_session = () => ({ error: { code: "SESSION_ENDED", message: "ended" } });
  const pedelec = new (core.client().constructor as typeof import("../src/client.js").Pedelec)({
    url: "ws://127.0.0.1:7077/ws", socketFactory: () => core.open(), probe: async () => false, reconnect: { initialDelayMs: 5, maxDelayMs: 10 },
  } as never);
  const session = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [] } });
  const errors: PedelecError[] = [];
  session.onError((e) => errors.push(e));
  core.socket.close(1006, "");
  await until(() => session.getStatus() === "ended", "ended");
  assert.equal(errors[0]?.code, "CORE_UNREACHABLE");
  assert.equal((errors[0]?.details as { reconnecting?: boolean })?.reconnecting, true);
});

test("a refused connection rejects with the reason Core gave", async () => {
  const core = new FakeCore();
  core.refuse = { code: 4003, reason: JSON.stringify({ code: "ORIGIN_NOT_ALLOWED", message: "origin http://evil.test is not allowed" }) };
  await assert.rejects(core.client().listProviders(), (e: PedelecError) => e.code === "ORIGIN_NOT_ALLOWED");
  core.refuse = { code: 1006, reason: "" };
  // Nothing answers at the address: the next step is starting Core, or
  // forwarding its port from where it runs.
  await assert.rejects(
    core.client().listProviders(),
    (e: PedelecError) => e.code === "CORE_UNREACHABLE" && /pedelec serve/.test(e.message) && /remote\.md/.test(e.message) && (e.details as { found?: string }).found === "nothing",
  );
  // Refused during the handshake (HTTP 403, which a browser hides), while Core answers HTTP.
  core.httpUp = true;
  await assert.rejects(core.client().listProviders(), (e: PedelecError) => e.code === "ORIGIN_NOT_ALLOWED" && /--allow-origin/.test(e.message));
  // Core refuses the name this page reached it by (a forward it was not told of).
  core.httpUp = "host_refused";
  await assert.rejects(core.client().listProviders(), (e: PedelecError) => e.code === "HOST_NOT_ALLOWED" && /--public-url/.test(e.message));
  // Something else answers there.
  core.httpUp = "not_core";
  await assert.rejects(
    core.client().listProviders(),
    (e: PedelecError) => e.code === "CORE_UNREACHABLE" && /not Pedelec Core/.test(e.message) && (e.details as { found?: string }).found === "not_pedelec",
  );
});

test("listProviderDetails returns Core's whole answer", async () => {
  const core = new FakeCore();
  assert.deepEqual(await core.client().listProviderDetails(), { providers: [{ name: "script", available: true }], defaultProvider: "script" });
});

test("a lost connection mid-turn reconnects with backoff, resumes from the last seq, and the turn ends with the replayed events", async () => {
  const core = new FakeCore();
  let up = false;
  core.handlers.resume_session = (p) =>
    up
      ? { result: { sessionId: p.sessionId, provider: "script", status: "running", seq: p.lastSeq, tools: [], autoEndOnDisconnect: false } }
      : { error: { code: "CORE_UNREACHABLE", message: "down" } };
  const pedelec = new (core.client().constructor as typeof import("../src/client.js").Pedelec)({
    url: "ws://127.0.0.1:7077/ws", socketFactory: () => core.open(), probe: async () => false, reconnect: { initialDelayMs: 5, maxDelayMs: 20 },
  } as never);
  const session = await pedelec.createSession({ provider: "script", autoEndOnDisconnect: false, skills: { guidance: "g", tools: [] } });
  const statuses: string[] = [];
  const deltas: string[] = [];
  session.onStatus((status, ctx) => statuses.push(`${status}/${ctx.source}`));
  session.onChat((delta) => deltas.push(delta));
  const turn = session.sendTurn("one");
  await until(() => core.sent("send_text").length === 1, "send_text");
  await tick(5);
  core.event("chat_delta", { text: "a" }, { turnId: "t_1", seq: 1 });
  core.event("chat_delta", { text: "b" }, { turnId: "t_1", seq: 2 });
  core.socket.close(1006, "");
  await until(() => session.isReconnecting(), "reconnecting");
  assert.equal(session.getStatus(), "error");
  await assert.rejects(session.sendTurn("meanwhile"), (e: PedelecError) => e.code === "SESSION_BUSY");
  await until(() => core.sent("resume_session").length >= 2, "a retry");
  up = true;
  await until(() => !session.isReconnecting(), "resumed");
  const resumes = core.sent("resume_session");
  assert.deepEqual(resumes[resumes.length - 1]?.params, { sessionId: "s_1", lastSeq: 2 });
  // Core replays from seq 3; a duplicate of seq 2 is dropped.
  core.event("chat_delta", { text: "b" }, { turnId: "t_1", seq: 2 });
  core.event("chat_delta", { text: "c" }, { turnId: "t_1", seq: 3 });
  core.event("done", { ok: true }, { turnId: "t_1", seq: 4 });
  assert.equal((await turn).text, "abc");
  assert.deepEqual(deltas, ["a", "b", "c"]);
  assert.ok(statuses.includes("error/sdk") && statuses.includes("running/core"), statuses.join(","));
  pedelec.close();
});

test("waiting_approval reaches onStatus as the detailed status; the original's status says waiting_tool_result", async () => {
  const { core, session, statuses } = await setup();
  const p = session.sendTurn("pay");
  await until(() => core.sent("send_text").length === 1, "send_text");
  await tick(5);
  const waiting = [{ toolRequestId: "r1", tool: "update_counter", approvalId: "ap_1" }];
  core.event("status_changed", { status: "waiting_approval", previousStatus: "running", waitingOn: waiting }, { turnId: "t_1" });
  await tick(5);
  assert.equal(session.getStatus(), "waiting_tool_result", "the original's five: the agent waits on a tool's result");
  assert.equal(session.getDetailedStatus(), "waiting_approval");
  assert.deepEqual(session.getWaitingOn(), waiting);
  const last = statuses[statuses.length - 1]!;
  assert.equal(last.status, "waiting_tool_result");
  assert.equal(last.previousStatus, "running");
  assert.equal(last.detailedStatus, "waiting_approval");
  assert.deepEqual(last.waitingOn, waiting);
  // Consent given, the page runs the call: only the detailed status changes, and it is told.
  core.event("status_changed", { status: "waiting_tool_result", previousStatus: "waiting_approval", waitingOn: [{ toolRequestId: "r1", tool: "update_counter" }] }, { turnId: "t_1" });
  await tick(5);
  const next = statuses[statuses.length - 1]!;
  assert.equal(next.status, "waiting_tool_result");
  assert.equal(next.previousStatus, "waiting_tool_result");
  assert.equal(next.detailedStatus, "waiting_tool_result");
  assert.equal(next.previousDetailedStatus, "waiting_approval");
  core.event("status_changed", { status: "running", previousStatus: "waiting_tool_result" }, { turnId: "t_1" });
  core.event("done", { ok: true }, { turnId: "t_1" });
  await p;
  assert.deepEqual(session.getWaitingOn(), []);
});
