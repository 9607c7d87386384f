// A real Core on a loaded machine may greet a page later than the page's
// time limit (bridgeTimeoutMs): the page cannot tell it from a program on
// Core's port that stalls, and fails that attempt. It must not refuse that
// Core for good: the key it trusts is kept, the next call and a session's
// reconnect find the same Core once it answers in time. (review5e)
import assert from "node:assert/strict";
import { test } from "node:test";
import type { KeyStore } from "../src/client/core-identity.js";
import { PedelecError } from "../src/errors.js";
import { FakeCore, tick, until } from "./fake-core.js";

const b64url = (b: ArrayBuffer) => Buffer.from(b).toString("base64url");

async function coreKey() {
  const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"])) as CryptoKeyPair;
  const key = b64url(await crypto.subtle.exportKey("raw", pair.publicKey));
  const sign = async (nonce: string) =>
    b64url(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, pair.privateKey, new TextEncoder().encode("pedelec-core-proof/v1\n" + nonce)));
  return { key, sign };
}

class MemoryStore implements KeyStore {
  readonly map = new Map<string, string>();
  get = (k: string) => this.map.get(k) ?? null;
  set = (k: string, v: string) => void this.map.set(k, v);
  remove = (k: string) => void this.map.delete(k);
}

/** The real Core, whose hello comes `slow()` ms late (0: at once). */
function slowCore(k: Awaited<ReturnType<typeof coreKey>>, slow: () => number) {
  const core = new FakeCore();
  core.hello = async (url: string) => {
    const nonce = new URL(url).searchParams.get("proof") ?? "";
    const ms = slow();
    if (ms > 0) await tick(ms);
    return { type: "hello", batch: true, maxBatchFrames: 64, maxMessageBytes: 1 << 20, coreKey: k.key, coreProof: await k.sign(nonce) };
  };
  return core;
}

const TIMEOUT = 200;

test("a trusted Core whose hello comes after the page's time limit fails that call only; its key is kept and the next call finds it", async () => {
  const real = await coreKey();
  const store = new MemoryStore();
  store.set("127.0.0.1:7077", real.key);
  let late = 1; // the first greeting is late
  const core = slowCore(real, () => (late-- > 0 ? TIMEOUT * 3 : 0));
  const pedelec = core.client({ keyStore: store, bridgeTimeoutMs: TIMEOUT });
  const first = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [] } }).then(
    () => null,
    (e: PedelecError) => e,
  );
  assert.ok(first instanceof PedelecError, "the late hello was waited for past the page's limit");
  assert.ok(["CORE_NOT_AUTHENTIC", "CORE_UNREACHABLE"].includes(first.code), first.code);
  assert.equal(store.map.get("127.0.0.1:7077"), real.key, "the page forgot the Core it trusts");
  const s = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [] } });
  assert.equal(s.getStatus(), "idle");
  pedelec.close();
});

test("a session's reconnect through a Core slower than the page's limit for a while resumes once it answers in time", async () => {
  const real = await coreKey();
  const store = new MemoryStore();
  let late = 0;
  const core = slowCore(real, () => (late-- > 0 ? TIMEOUT * 3 : 0));
  core.handlers.resume_session = (p) => ({ result: { sessionId: p.sessionId, provider: "script", status: "idle", seq: p.lastSeq ?? 0, tools: [], autoEndOnDisconnect: true } });
  const pedelec = core.client({ keyStore: store, bridgeTimeoutMs: TIMEOUT, reconnect: { initialDelayMs: 5, maxDelayMs: 20 } });
  const s = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [] } });
  await until(() => store.map.get("127.0.0.1:7077") === real.key, "the key kept");
  late = 3; // three greetings late in a row: a loaded machine
  core.socket.close(1006, "");
  await until(() => core.sent("resume_session").length > 0, "the session resumed", 20_000);
  await tick(50);
  assert.ok(late <= 0 && core.sockets.length >= 5, `the late greetings were not met (${late} left, ${core.sockets.length} sockets)`);
  assert.notEqual(s.getStatus(), "ended");
  assert.equal(store.map.get("127.0.0.1:7077"), real.key);
  pedelec.close();
});
