// Issue 22: an origin Core has not approved waits for the user.
import assert from "node:assert/strict";
import test from "node:test";

import type { ApprovalPending } from "../src/index.js";
import { Pedelec } from "../src/index.js";
import { FakeCore } from "./fake-core.js";

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
