// Issue 23, items 4, 5 and 7: where an app written for the original SDK
// (v0.1.23) met different behaviour at run time. Each test is one thing
// the original's reference documents, run against a fake Core.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { PedelecError } from "../src/errors.js";
import { FakeCore, tick, until } from "./fake-core.js";

async function started(core: FakeCore, autoEndOnDisconnect = true) {
  const pedelec = core.client({ reconnect: { initialDelayMs: 5, maxDelayMs: 20 } });
  const session = await pedelec.createSession({ provider: "codex", autoEndOnDisconnect });
  const errors: PedelecError[] = [];
  session.onError((e) => errors.push(e));
  return { pedelec, session, errors };
}

const call = (toolRequestId: string, tool: string) => ({ toolRequestId, tool, args: {}, timeoutMs: 1000, deadline: Date.now() + 1000, turnStartedAt: 5 });

test("resumeSession of a session this client holds returns the same handle, and its sendText settles (StrictMode)", async () => {
  const core = new FakeCore();
  core.handlers.resume_session = (p) => ({ result: { sessionId: p.sessionId, provider: "codex", status: "idle", seq: 0, tools: [], autoEndOnDisconnect: false } });
  const pedelec = core.client();
  // The effect runs twice before either resume answered.
  const [a, b] = await Promise.all([pedelec.resumeSession("s_1"), pedelec.resumeSession("s_1")]);
  assert.equal(a, b);
  assert.equal(core.sent("resume_session").length, 1);
  assert.equal(await pedelec.resumeSession("s_1"), a, "a later resume too");
  const turn = a.sendText("hi");
  await until(() => core.sent("send_text").length === 1, "send_text");
  await tick(5);
  core.event("done", { ok: true }, { turnId: "t_1" });
  await turn;
  // A session this client created is the same handle as well.
  core.handlers.create_session = () => ({ result: { sessionId: "s_2", provider: "codex", status: "idle", seq: 0, tools: [], autoEndOnDisconnect: true } });
  const created = await pedelec.createSession({ provider: "codex" });
  assert.equal(await pedelec.resumeSession(created.sessionId), created);
});

test('sendText("") is forwarded to Core, as the original does', async () => {
  const core = new FakeCore();
  const { session } = await started(core);
  const turn = session.sendText("");
  await until(() => core.sent("send_text").length === 1, "send_text");
  assert.deepEqual(core.sent("send_text")[0]!.params, { sessionId: "s_1", text: "" });
  await tick(5);
  core.event("done", { ok: true }, { turnId: "t_1" });
  await turn;
});

test("a handler that throws, or no handler, is told to the agent only: onError stays quiet", async () => {
  const core = new FakeCore();
  const { session, errors } = await started(core);
  session.onTool("broken" as never, () => {
    throw new Error("Database unavailable");
  });
  core.event("tool_call", call("r1", "broken"), { turnId: "t_1" });
  core.event("tool_call", call("r2", "unknown_tool"), { turnId: "t_1" });
  await until(() => core.sent("submit_tool_result").length === 2, "both results");
  const codes = core.sent("submit_tool_result").map((r) => (r.params as { result: { error: { code: string } } }).result.error.code);
  assert.deepEqual(codes.sort(), ["TOOL_HANDLER_ERROR", "TOOL_HANDLER_NOT_FOUND"]);
  await tick(5);
  assert.deepEqual(errors, []);
});

test("a result too large for Core is told to onError as SUBMIT_TOOL_RESULT_FAILED, and to the agent as MESSAGE_TOO_LARGE", async () => {
  const core = new FakeCore();
  const { session, errors } = await started(core);
  let first = true;
  core.handlers.submit_tool_result = () => {
    if (!first) return { result: {} };
    first = false;
    return { error: { code: "MESSAGE_TOO_LARGE", message: "too large" } };
  };
  session.onTool("big" as never, () => ({ rows: "x".repeat(10) }));
  core.event("tool_call", call("r1", "big"), { turnId: "t_1" });
  await until(() => core.sent("submit_tool_result").length === 2, "the error result");
  const second = core.sent("submit_tool_result")[1]!.params as { result: { error: { code: string } } };
  assert.equal(second.result.error.code, "MESSAGE_TOO_LARGE");
  assert.deepEqual(errors.map((e) => [e.code, (e.details as { cause: { code: string } }).cause.code]), [["SUBMIT_TOOL_RESULT_FAILED", "MESSAGE_TOO_LARGE"]]);
});

test("a pending sendText rejects when the connection drops (autoEndOnDisconnect)", async () => {
  const core = new FakeCore();
  const { session, pedelec } = await started(core);
  const turn = session.sendText("long");
  await until(() => core.sent("send_text").length === 1, "send_text");
  await tick(5);
  core.socket.close(1006, "");
  await assert.rejects(turn, (e: PedelecError) => e.code === "CORE_UNREACHABLE");
  pedelec.close();
});

test("prepare() during a user turn rejects with SESSION_BUSY, even once prepared", async () => {
  const core = new FakeCore();
  const { session } = await started(core);
  const prep = session.prepare();
  await until(() => core.sent("prepare").length === 1, "prepare");
  await tick(5);
  core.event("done", { ok: true }, { turnId: "t_1" });
  await prep;
  const turn = session.sendText("x");
  await until(() => core.sent("send_text").length === 1, "send_text");
  await assert.rejects(session.prepare(), (e: PedelecError) => e.code === "SESSION_BUSY");
  await tick(5);
  core.event("done", { ok: true }, { turnId: "t_2" });
  await turn;
  await session.prepare(); // idle again: idempotent
});

test("a second concurrent upload is SESSION_BUSY (Core's ASSET_UPLOAD_BUSY in details.coreCode)", async () => {
  const core = new FakeCore();
  const { session } = await started(core);
  core.handlers.asset_upload_ticket = (p) => ({ error: { code: "ASSET_UPLOAD_BUSY", message: "session s_1 is already uploading /a.txt; one upload at a time", details: { path: p.path, uploading: "/a.txt" } } });
  await assert.rejects(session.uploadAsset(new File(["x"], "b.txt")), (e: PedelecError) =>
    e.code === "SESSION_BUSY" && (e.details as { coreCode: string; uploading: string }).coreCode === "ASSET_UPLOAD_BUSY" && (e.details as { uploading: string }).uploading === "/a.txt");
});

test("readAsset with a type it cannot read is ASSET_PATH_INVALID, as the original", async () => {
  const core = new FakeCore();
  const { session } = await started(core);
  await assert.rejects(session.readAsset("/a.txt", "xml" as "text"), (e: PedelecError) => e.code === "ASSET_PATH_INVALID" && /"xml"/.test(e.message));
  assert.equal(core.sent("asset_read_ticket").length, 0);
});

test("request() answers the original's get_settings and get_approval_status", async () => {
  const core = new FakeCore();
  core.handlers.list_providers = () => ({ result: { providers: [{ name: "claude", available: true, defaultModel: "sonnet" }], defaultProvider: "claude" } });
  const pedelec = core.client();
  assert.deepEqual(await pedelec.request("get_settings"), { defaultProvider: "claude", defaultModels: { claude: "sonnet" } });
  const status = await pedelec.request<{ installed: boolean; approved: boolean; appConnected: boolean }>("get_approval_status");
  assert.deepEqual([status.installed, status.approved, status.appConnected], [true, true, true]);
});
