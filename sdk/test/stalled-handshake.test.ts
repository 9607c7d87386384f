// What holds Core's port while Core is down may accept the connection and
// never complete the WebSocket handshake (silent, or a byte at a time), or
// answer plain HTTP never: the page must still settle its calls within its
// time limit, and find the real Core when it is back (the fifth hostile
// review, last part; before it, createSession waited for the browser's own
// handshake limit, minutes, then for a probe with none at all).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SocketLike } from "../src/client/connection.js";
import { PedelecError } from "../src/errors.js";
import { FakeCore, tick, until } from "./fake-core.js";

/** A socket whose handshake never completes: it never opens, never closes on its own. */
class StalledSocket implements SocketLike {
  readyState = 0;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  closed = false;
  send(): void {
    throw new Error("send on a socket that is not open");
  }
  close(): void {
    this.closed = true;
    this.readyState = 3;
  }
}

const settle = (p: Promise<unknown>) => p.then(() => "created", (e: unknown) => e);

for (const trusted of [true, false]) {
  test(`a handshake that never completes fails createSession within the page's time limit (${trusted ? "a key stored" : "no key stored"})`, async () => {
    const stalled: StalledSocket[] = [];
    const keys = new Map<string, string>(trusted ? [["127.0.0.1:7077", "BKEY"]] : []);
    const core = new FakeCore();
    const pedelec = core.client({
      bridgeTimeoutMs: 300,
      socketFactory: () => {
        const s = new StalledSocket();
        stalled.push(s);
        return s;
      },
      keyStore: { get: (k: string) => keys.get(k) ?? null, set: (k: string, v: string) => void keys.set(k, v), remove: (k: string) => void keys.delete(k) },
    });
    const outcome = await Promise.race([settle(pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [] } })), tick(5000).then(() => "still pending after 5 s")]);
    assert.ok(outcome instanceof PedelecError, `createSession: ${String(outcome)}`);
    assert.equal(outcome.code, "CORE_UNREACHABLE");
    assert.match(outcome.message, /handshake/);
    assert.equal(stalled.length, 1);
    assert.ok(stalled[0]!.closed, "the stalled socket was left open");
    assert.equal(stalled[0]!.onopen, null, "the stalled socket could still open and be used");
    pedelec.close();
  });
}

// The probe that follows a socket that did not open (is it Core refusing
// this origin?) may reach the same silent program: it is bounded too.
test("a probe that never answers does not hold a failed connection's error", async () => {
  const core = new FakeCore();
  core.refuse = { code: 1006, reason: "" };
  const pedelec = core.client({ bridgeTimeoutMs: 300, probe: () => new Promise(() => {}) });
  const outcome = await Promise.race([settle(pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [] } })), tick(5000).then(() => "still pending after 5 s")]);
  assert.ok(outcome instanceof PedelecError, `createSession: ${String(outcome)}`);
  assert.equal(outcome.code, "CORE_UNREACHABLE");
  pedelec.close();
});

// A session's reconnect that meets a stalled handshake tries again, and
// resumes once the real Core answers.
test("a reconnect that meets a stalled handshake resumes once Core is back", async () => {
  const core = new FakeCore();
  core.handlers.resume_session = (p) => ({ result: { sessionId: p.sessionId, provider: "script", model: "", status: "idle", seq: p.lastSeq ?? 0, tools: [], autoEndOnDisconnect: false } });
  let stall = false;
  const stalled: StalledSocket[] = [];
  const pedelec = core.client({
    bridgeTimeoutMs: 300,
    reconnect: { initialDelayMs: 10, maxDelayMs: 50, giveUpAfterMs: 60_000 },
    socketFactory: (url: string) => {
      if (!stall) return core.open(url);
      const s = new StalledSocket();
      stalled.push(s);
      return s;
    },
  });
  const session = await pedelec.createSession({ provider: "script", autoEndOnDisconnect: false, skills: { guidance: "g", tools: [] } });
  stall = true;
  core.socket.close(1006, "");
  await until(() => stalled.length >= 1, "the reconnect to meet the stalled handshake", 5000);
  await tick(50);
  stall = false;
  await until(() => core.sent("resume_session").length >= 1, "the reconnect to reach Core again", 10_000);
  await until(() => session.getStatus() === "idle", "the session to be back", 5000);
  pedelec.close();
});
