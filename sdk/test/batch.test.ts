// Batched messages (docs/protocol.md): the SDK asks for them, handles an
// array from Core as its frames in order, and sends the requests it makes
// together as one array once Core's hello said it may.
import assert from "node:assert/strict";
import { test } from "node:test";
import { defineTool } from "../src/define-tool.js";
import type { PedelecError } from "../src/errors.js";
import type { PedelecSessionStatus } from "../src/types.js";
import { FakeCore, tick, until } from "./fake-core.js";

const echo = defineTool({
  name: "echo",
  description: "Answer with the arguments.",
  argsSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
  handler: (args: { n: number }) => args,
});

const HELLO = { type: "hello", batch: true, maxBatchFrames: 64, maxMessageBytes: 1 << 20 };

async function setup(hello: unknown = HELLO) {
  const core = new FakeCore();
  core.hello = hello;
  const pedelec = core.client();
  const session = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [echo] as const } });
  const statuses: PedelecSessionStatus[] = [];
  const errors: PedelecError[] = [];
  session.onStatus((s) => statuses.push(s));
  session.onError((e) => errors.push(e));
  return { core, session, statuses, errors };
}

const call = (id: string, n: number) => ({ toolRequestId: id, tool: "echo", args: { n }, timeoutMs: 10_000, deadline: Date.now() + 10_000, turnStartedAt: 1000 });

test("the SDK asks Core for batched messages", async () => {
  const { core } = await setup();
  assert.match(core.socket.url, /^ws:\/\/127\.0\.0\.1:7077\/ws\?batch=1&proof=[A-Za-z0-9_-]{43}$/);
});

test("an array message is its frames in order: events by seq, responses by id", async () => {
  const { core, session, statuses } = await setup();
  const submits = () => core.sent("submit_tool_result").length;
  core.socket.deliverBatch([
    core.eventFrame("status_changed", { status: "running", previousStatus: "idle" }, { turnId: "t_1" }),
    core.eventFrame("status_changed", { status: "waiting_tool_result", previousStatus: "running", waitingOn: [{ toolRequestId: "r1", tool: "echo" }] }, { turnId: "t_1" }),
    core.eventFrame("tool_call", call("r1", 7), { turnId: "t_1" }),
  ]);
  assert.deepEqual(statuses, ["running", "waiting_tool_result"]);
  await until(() => submits() === 1, "the submit");
  assert.deepEqual(core.sent("submit_tool_result")[0]!.params, { sessionId: "s_1", toolRequestId: "r1", result: { n: 7 } });
  // A replayed frame inside an array is dropped like a replayed message.
  core.socket.deliverBatch([
    core.eventFrame("tool_call", call("r1", 7), { turnId: "t_1", seq: 3 }),
    core.eventFrame("tool_call_settled", { toolRequestId: "r1", tool: "echo", outcome: "result" }, { turnId: "t_1" }),
    core.eventFrame("status_changed", { status: "running", previousStatus: "waiting_tool_result" }, { turnId: "t_1" }),
  ]);
  await tick(5);
  assert.equal(submits(), 1, "the replayed tool_call ran again");
  assert.equal(session.getStatus(), "running");
});

test("results of handlers that finish together leave as one array message", async () => {
  const { core } = await setup();
  const before = core.socket.messages.length;
  core.socket.deliverBatch(Array.from({ length: 8 }, (_, i) => core.eventFrame("tool_call", call(`r${i}`, i), { turnId: "t_1" })));
  await until(() => core.sent("submit_tool_result").length === 8, "8 submits");
  const sent = core.socket.messages.slice(before);
  assert.equal(sent.length, 1, `8 results in ${sent.length} messages`);
  const frames = JSON.parse(sent[0]!) as { id: number; params: { toolRequestId: string } }[];
  assert.deepEqual(frames.map((f) => f.params.toolRequestId), ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"]);
  assert.deepEqual(frames.map((f) => f.id), [...frames.map((f) => f.id)].sort((a, b) => a - b));
});

test("an array stays within the hello's limits", async () => {
  const { core } = await setup({ ...HELLO, maxBatchFrames: 3 });
  const before = core.socket.messages.length;
  core.socket.deliverBatch(Array.from({ length: 8 }, (_, i) => core.eventFrame("tool_call", call(`r${i}`, i), { turnId: "t_1" })));
  await until(() => core.sent("submit_tool_result").length === 8, "8 submits");
  const sizes = core.socket.messages.slice(before).map((m) => (m.startsWith("[") ? (JSON.parse(m) as unknown[]).length : 1));
  assert.deepEqual(sizes, [3, 3, 2]);
});

test("a request too large to share a message goes alone", async () => {
  const { core } = await setup({ ...HELLO, maxMessageBytes: 2000 });
  const before = core.socket.messages.length;
  core.socket.deliverBatch([
    core.eventFrame("tool_call", { ...call("big", 1), args: { n: 1, pad: "x".repeat(1000) } }, { turnId: "t_1" }),
    core.eventFrame("tool_call", call("r1", 1), { turnId: "t_1" }),
    core.eventFrame("tool_call", call("r2", 2), { turnId: "t_1" }),
  ]);
  await until(() => core.sent("submit_tool_result").length === 3, "3 submits");
  const sent = core.socket.messages.slice(before);
  for (const m of sent) assert.ok(!m.startsWith("[") || m.length <= 2000, `an array of ${m.length} bytes`);
  assert.ok(sent.some((m) => !m.startsWith("[") && m.includes('"big"')), "the large result was not sent alone");
});

test("without a hello (an older Core) every request goes alone", async () => {
  const { core } = await setup(null);
  const before = core.socket.messages.length;
  core.socket.deliverBatch(Array.from({ length: 4 }, (_, i) => core.eventFrame("tool_call", call(`r${i}`, i), { turnId: "t_1" })));
  await until(() => core.sent("submit_tool_result").length === 4, "4 submits");
  const sent = core.socket.messages.slice(before);
  assert.equal(sent.length, 4);
  for (const m of sent) assert.ok(m.startsWith("{"), m);
});

test("an error answer inside an array rejects only its own request", async () => {
  const { core, errors } = await setup();
  let n = 0;
  core.handlers.submit_tool_result = () => (n++ === 1 ? { error: { code: "TOOL_REQUEST_NOT_PENDING", message: "late" } } : { result: {} });
  core.socket.deliverBatch(Array.from({ length: 3 }, (_, i) => core.eventFrame("tool_call", call(`r${i}`, i), { turnId: "t_1" })));
  await until(() => errors.length === 1, "one SUBMIT_TOOL_RESULT_FAILED");
  await tick(5);
  assert.equal(errors.length, 1);
  assert.equal(errors[0]!.code, "SUBMIT_TOOL_RESULT_FAILED");
});

test("the code awaiting a response runs before the frames after it in the same array", async () => {
  const { core, session } = await setup();
  const seen: string[] = [];
  session.onStatus((status, ctx) => seen.push(`${status}:${ctx.source}`));
  session.onEnded((ctx) => seen.push(`ended:${ctx.type}`));
  core.handlers.end_session = () => undefined; // answered by hand below
  const ending = session.end();
  await until(() => core.sent("end_session").length === 1, "end_session");
  const id = core.sent("end_session")[0]!.id;
  core.socket.deliverBatch([
    { type: "response", id, ok: true, result: {} },
    core.eventFrame("status_changed", { status: "ended", previousStatus: "idle" }),
    core.eventFrame("ended", { reason: "end_session" }),
  ]);
  await ending;
  await tick(5);
  // As when each frame was a message of its own: end() marks the session
  // ended (source sdk) before Core's events arrive, which are then dropped.
  assert.deepEqual(seen, ["ended:sdk", "ended:sdk_ended"]);
});

test("frames queued behind a response keep their order with messages that arrive meanwhile", async () => {
  const { core, statuses } = await setup();
  core.socket.deliverBatch([
    { type: "response", id: 999, ok: true, result: {} }, // no one waits on it: still a response
    core.eventFrame("status_changed", { status: "running", previousStatus: "idle" }),
  ]);
  core.event("status_changed", { status: "waiting_tool_result", previousStatus: "running" });
  core.event("status_changed", { status: "running", previousStatus: "waiting_tool_result" });
  await tick(5);
  assert.deepEqual(statuses, ["running", "waiting_tool_result", "running"]);
});
