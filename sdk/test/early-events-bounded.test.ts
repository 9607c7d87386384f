// Events for a session the page does not know yet wait for it, bounded
// (MAX_EARLY_EVENTS per session). What sends them may be another program
// on Core's port that a page with no key stored took for Core (trust on
// first use): sessions the page never heard of, each id new, must not grow
// the page's memory without bound (the fifth hostile review, last part:
// 8 s of such a flood kept 160,000 sessions' events, 70-110 MB, in Chromium).
import assert from "node:assert/strict";
import { test } from "node:test";
import { FakeCore, until } from "./fake-core.js";

test("events for ever new sessions the page does not know are kept bounded", async () => {
  const core = new FakeCore();
  const pedelec = core.client();
  const session = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [] } });
  for (let i = 0; i < 2000; i++) {
    core.socket.deliverBatch(Array.from({ length: 10 }, (_, j) => core.eventFrame("chat_delta", { text: "x" }, { sessionId: `s_flood_${i}_${j}`, turnId: "t" })));
  }
  const early = (pedelec as unknown as { connection: { early: Map<string, unknown[]> } }).connection.early;
  const kept = [...early.values()].reduce((n, q) => n + q.length, 0);
  assert.ok(early.size <= 64, `events of ${early.size} unknown sessions kept`);
  assert.ok(kept <= 64_000, `${kept} events kept`);
  // The page's own session still gets its events.
  const chats: string[] = [];
  session.onChat((delta) => chats.push(delta));
  core.event("turn_started", {}, { turnId: "t_1" });
  core.event("chat_delta", { text: "hi" }, { turnId: "t_1" });
  await until(() => chats.length === 1, "the page's own chat");
  pedelec.close();
});

// The oldest go first: the last events of sessions the page ended (which
// it will never subscribe again) do not keep a new session's early events
// out, however many sessions the page went through.
test("early events of a new session are kept after many ended sessions left theirs", async () => {
  const core = new FakeCore();
  const pedelec = core.client();
  await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [] } });
  for (let i = 0; i < 100; i++) core.socket.deliver(core.eventFrame("ended", { reason: "user" }, { sessionId: `s_old_${i}` }));
  core.handlers.create_session = () => {
    core.socket.deliver(core.eventFrame("ended", { reason: "early" }, { sessionId: "s_new" }));
    return { result: { sessionId: "s_new", provider: "script", model: "", status: "idle", seq: 0, tools: [], autoEndOnDisconnect: true } };
  };
  const early = (pedelec as unknown as { connection: { early: Map<string, unknown[]> } }).connection.early;
  const session = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [] } });
  assert.equal(early.has("s_new"), false, "the new session's early events were not handed to it");
  assert.equal(session.getStatus(), "ended", "the new session's early event was lost");
  assert.ok(early.size <= 64, `events of ${early.size} unknown sessions kept`);
  pedelec.close();
});
