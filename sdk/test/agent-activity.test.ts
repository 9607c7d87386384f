// agent_activity (issue 25): an ACP agent's own tool steps reach onStatus
// as a status_changed whose status stays, carrying the step; the page's
// status does not move, and a malformed event is ignored.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { StatusEventContext } from "../src/types.js";
import { FakeCore, until } from "./fake-core.js";

test("an agent's own tool activity shows in onStatus without changing the status", async () => {
  const core = new FakeCore();
  const pedelec = core.client();
  const session = await pedelec.createSession({ provider: "gemini", skills: { guidance: "g", tools: [] as const } });
  const seen: StatusEventContext[] = [];
  session.onStatus((_s, ctx) => {
    if (ctx.activity) seen.push(ctx);
  });
  core.socket.deliver(core.eventFrame("agent_activity", { nope: true }, { turnId: "t_1" }));
  core.socket.deliver(core.eventFrame("agent_activity", { toolCallId: "c1", title: "rm -rf x", kind: "execute", status: "rejected", reason: "not a page tool" }, { turnId: "t_1" }));
  await until(() => seen.length === 1, "the activity");
  const ctx = seen[0]!;
  assert.equal(ctx.type, "status_changed");
  assert.equal(ctx.status, ctx.previousStatus);
  assert.equal(ctx.turnId, "t_1");
  assert.deepEqual(ctx.activity, { toolCallId: "c1", title: "rm -rf x", kind: "execute", status: "rejected", reason: "not a page tool" });
  assert.equal(session.getStatus(), ctx.status);
});
