// ctx.progress (issue 26): a handler reports how far it is; the SDK sends
// Core at most four reports a second per call (the latest wins), shows
// each sent report to onStatus, and refuses a malformed report.
import assert from "node:assert/strict";
import { test } from "node:test";
import { defineTool } from "../src/define-tool.js";
import type { StatusEventContext, ToolProgress } from "../src/types.js";
import { FakeCore, tick, until } from "./fake-core.js";

let release: () => void = () => {};
let bad: unknown;
const upload = defineTool({
  name: "upload",
  description: "Upload a file, slowly.",
  argsSchema: { type: "object", properties: {}, required: [] },
  handler: async (_args: Record<string, never>, ctx) => {
    for (let i = 1; i <= 100; i++) ctx.progress!({ progress: i, total: 100, message: `chunk ${i}` });
    try {
      ctx.progress!({ progress: -1 } as ToolProgress);
    } catch (e) {
      bad = e;
    }
    await new Promise<void>((r) => (release = r));
    return { uploaded: true };
  },
});

test("a chatty handler's progress reaches Core coalesced, the latest last, and onStatus sees it", async () => {
  const core = new FakeCore();
  core.handlers.tool_progress = () => ({ result: null });
  const pedelec = core.client();
  const session = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [upload] as const } });
  const seen: StatusEventContext[] = [];
  session.onStatus((_s, ctx) => {
    if (ctx.progress) seen.push(ctx);
  });
  core.socket.deliver(core.eventFrame("tool_call", { toolRequestId: "r1", tool: "upload", args: {}, timeoutMs: 10_000, deadline: Date.now() + 10_000, turnStartedAt: 1000 }, { turnId: "t_1" }));
  await until(() => core.sent("tool_progress").length === 2, "the coalesced second report");
  const sent = core.sent("tool_progress").map((f) => f.params);
  assert.deepEqual(sent[0], { sessionId: "s_1", toolRequestId: "r1", progress: 1, total: 100, message: "chunk 1" });
  assert.deepEqual(sent[1], { sessionId: "s_1", toolRequestId: "r1", progress: 100, total: 100, message: "chunk 100" });
  assert.equal(seen.length, 2);
  assert.deepEqual(seen[1]!.progress, { progress: 100, total: 100, message: "chunk 100", toolRequestId: "r1", tool: "upload" });
  assert.equal(seen[1]!.type, "sdk_status_changed");
  assert.equal((bad as { code?: string }).code, "INVALID_INPUT");
  release();
  await until(() => core.sent("submit_tool_result").length === 1, "the result");
  await tick(300);
  assert.equal(core.sent("tool_progress").length, 2, "a report was sent after the result");
});
