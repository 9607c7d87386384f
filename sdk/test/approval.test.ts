// Issue 22: an origin Core has not approved waits for the user.
import assert from "node:assert/strict";
import test from "node:test";

import type { ApprovalPending } from "../src/index.js";
import { Pedelec } from "../src/index.js";
import { FakeCore, until } from "./fake-core.js";

test("getApprovalStatus and checkAvailability report an origin waiting for approval", async () => {
  const core = new FakeCore();
  core.handlers.get_approval_status = () => ({ result: { approved: false, origin: "https://app.example" } });
  assert.deepEqual(await core.client().getApprovalStatus(), { installed: true, approved: false, origin: null, appConnected: true });
  const a = await core.client().checkAvailability();
  assert.deepEqual([a.available, a.extension.available, a.approval.approved, a.desktop.launchAttempted, a.error?.code], [false, true, false, false, "CREATE_SESSION_NOT_APPROVED"]);
  assert.equal(core.sent("request_approval").length, 0, "a status read never asks the user");
});

test("createSession waits for the approval, reports a blocked window, then continues", async () => {
  const core = new FakeCore();
  let release: (() => void) | undefined;
  core.handlers.request_approval = () => ({ result: { approved: false, origin: "https://app.example", requestId: "ap_1", url: "http://127.0.0.1:7077/console/approve/ap_1", timeoutMs: 1000 } });
  core.handlers.await_approval = () => new Promise((resolve) => (release = () => resolve({ result: { approved: true, origin: "https://app.example" } })));
  const told: ApprovalPending[] = [];
  const pedelec = new Pedelec({ url: "ws://127.0.0.1:7077/ws", socketFactory: (url: string) => core.open(url), onApprovalPending: (p: ApprovalPending) => told.push(p) } as never);
  const created = pedelec.createSession({ provider: "script" });
  while (!release) await new Promise((r) => setTimeout(r, 1));
  assert.equal(core.sent("create_session").length, 0, "nothing is created before the user decides");
  assert.equal(told.length, 1);
  assert.equal(told[0]!.error?.code, "OPEN_POPUP_FAILED", "no window here: the popup counts as blocked");
  assert.deepEqual(told[0]!.error?.details, { url: "http://127.0.0.1:7077/console/approve/ap_1", origin: "https://app.example", requestId: "ap_1" });
  release();
  const session = await created;
  assert.equal(session.sessionId, "s_1");
});

test("a rejection fails createSession with APPROVAL_REJECTED", async () => {
  const core = new FakeCore();
  core.handlers.request_approval = () => ({ result: { approved: false, origin: "https://app.example", requestId: "ap_1", url: "http://x/console/approve/ap_1" } });
  core.handlers.await_approval = () => ({ error: { code: "APPROVAL_REJECTED", message: "no", details: { origin: "https://app.example", reason: "no" } } });
  await assert.rejects(core.client().createSession({ provider: "script" }), (e: { code: string }) => e.code === "APPROVAL_REJECTED");
  assert.equal(core.sent("create_session").length, 0);
});

// A page left open while Core restarts without the --allow-origin that
// approved it: the reconnect's resume asks first, like resumeSession().
async function reconnectingSession(core: FakeCore, told: ApprovalPending[]) {
  let approved = true;
  core.handlers.request_approval = () =>
    approved
      ? { result: { approved: true, origin: "https://app.example" } }
      : { result: { approved: false, origin: "https://app.example", requestId: "ap_2", url: "http://127.0.0.1:7077/console/approve/ap_2", timeoutMs: 60_000 } };
  core.handlers.resume_session = (p) => ({ result: { sessionId: p.sessionId, provider: "script", status: "idle", seq: p.lastSeq, tools: [], autoEndOnDisconnect: false } });
  const pedelec = new Pedelec({
    url: "ws://127.0.0.1:7077/ws", socketFactory: () => core.open(), probe: async () => false, reconnect: { initialDelayMs: 5, maxDelayMs: 10 },
    bridgeTimeoutMs: 50, onApprovalPending: (p: ApprovalPending) => told.push(p),
  } as never);
  const session = await pedelec.createSession({ provider: "script", autoEndOnDisconnect: false, skills: { guidance: "g", tools: [] } });
  const statuses: { status: string; detailed?: string; url?: string }[] = [];
  session.onStatus((status, ctx) => statuses.push({ status, detailed: ctx.detailedStatus, url: ctx.originApproval?.url }));
  approved = false;
  core.socket.close(1006, "");
  return { pedelec, session, statuses };
}

test("a reconnect whose origin is no longer approved waits for the user, past the bridge timeout, then resumes", async () => {
  const core = new FakeCore();
  const told: ApprovalPending[] = [];
  let release: (() => void) | undefined;
  core.handlers.await_approval = () => new Promise((resolve) => (release = () => resolve({ result: { approved: true, origin: "https://app.example" } })));
  const { pedelec, session, statuses } = await reconnectingSession(core, told);
  await until(() => session.getDetailedStatus() === "waiting_approval", "waiting_approval");
  assert.equal(session.isReconnecting(), true);
  assert.deepEqual(session.getWaitingOn(), [], "no call waits: the origin does");
  assert.equal(session.getOriginApproval()?.url, "http://127.0.0.1:7077/console/approve/ap_2");
  assert.equal(told.at(-1)?.error?.code, "OPEN_POPUP_FAILED", "no click before a reconnect: the window counts as blocked");
  assert.ok(statuses.some((s) => s.detailed === "waiting_approval" && s.status === "error" && s.url === "http://127.0.0.1:7077/console/approve/ap_2"), JSON.stringify(statuses));
  const resumesBefore = core.sent("resume_session").length;
  await new Promise((r) => setTimeout(r, 150)); // three bridge timeouts
  assert.equal(session.getStatus(), "error", "the original's five: still reconnecting");
  assert.equal(session.getDetailedStatus(), "waiting_approval", "still waiting: the user's time, not the bridge timeout");
  assert.equal(core.sent("resume_session").length, resumesBefore, "nothing is resumed before the user decides");
  release!();
  await until(() => !session.isReconnecting(), "resumed");
  assert.equal(session.getStatus(), "idle");
  assert.equal(session.getOriginApproval(), null);
  assert.equal(core.sent("resume_session").length, resumesBefore + 1);
  pedelec.close();
});

for (const code of ["APPROVAL_REJECTED", "APPROVAL_TIMEOUT"]) {
  test(`a reconnect the user does not approve (${code}) ends the session with that error`, async () => {
    const core = new FakeCore();
    const told: ApprovalPending[] = [];
    let decide: (() => void) | undefined;
    core.handlers.await_approval = () => new Promise((resolve) => (decide = () => resolve({ error: { code, message: "no", details: { origin: "https://app.example" } } })));
    const { pedelec, session } = await reconnectingSession(core, told);
    const errors: string[] = [];
    const ended: string[] = [];
    session.onError((e) => errors.push(e.code));
    session.onEnded((ctx) => ended.push(ctx.reason ?? ""));
    await until(() => session.getDetailedStatus() === "waiting_approval", "waiting_approval");
    decide!();
    await until(() => session.getStatus() === "ended", "ended");
    assert.deepEqual(errors, ["CORE_UNREACHABLE", code], "the lost connection, then why the session ends");
    assert.deepEqual(ended, [code.toLowerCase()]);
    assert.equal(session.isReconnecting(), false);
    assert.equal(core.sent("resume_session").length, 0);
    pedelec.close();
  });
}

test("a reconnect retries while Core restarts, and takes real answers as answers", async () => {
  const { worthRetrying } = await import("../src/client/reconnect.js");
  // Core still away, or too busy to answer in time.
  assert.equal(worthRetrying({ code: "CORE_UNREACHABLE" }), true);
  assert.equal(worthRetrying({ code: "SDK_BRIDGE_TIMEOUT" }), true);
  // The socket failed while Core was down and the probe after it found the
  // new Core up: the connection infers a refusal, but Core only restarted.
  assert.equal(worthRetrying({ code: "ORIGIN_NOT_ALLOWED", details: { inferred: true } }), true);
  // Core's own answers end the attempt.
  assert.equal(worthRetrying({ code: "ORIGIN_NOT_ALLOWED", details: {} }), false);
  assert.equal(worthRetrying({ code: "APPROVAL_REJECTED" }), false);
  assert.equal(worthRetrying({ code: "SESSION_ENDED" }), false);
});
