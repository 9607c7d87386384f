// A page remembers the Core that approved it and refuses any other: the
// first connection is trust-on-first-use, the key is kept once a session
// is created, and from then on a Core that cannot sign the page's nonce
// with that key gets nothing, not even the tools of a createSession.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { KeyStore } from "../src/client/core-identity.js";
import { defineTool } from "../src/define-tool.js";
import { PedelecError } from "../src/errors.js";
import { FakeCore } from "./fake-core.js";
import { type CoreKey, MemoryStore, coreKey, signedHello } from "./core-keys.js";

const echo = defineTool({
  name: "echo",
  description: "Answer with the arguments.",
  argsSchema: { type: "object", properties: {} },
  handler: () => ({}),
});

/** A fake Core whose hello carries a proof of the socket's nonce by k, claiming proofKey. */
function coreWith(k: CoreKey, proofKey = k.key) {
  const core = new FakeCore();
  core.hello = signedHello(k, proofKey);
  return core;
}

function signingClient(core: FakeCore, _k: unknown, store: KeyStore) {
  return core.client({ keyStore: store });
}

test("first connection trusts on first use; the key is kept once Core approves the page", async () => {
  const real = await coreKey();
  const store = new MemoryStore();
  const core = coreWith(real);
  const pedelec = signingClient(core, real, store);
  // A check slower than Core's answer (a loaded machine): the proof is
  // checked beside the first requests, and the key is still kept by the
  // time createSession resolves.
  const subtle = globalThis.crypto.subtle;
  const verify = subtle.verify.bind(subtle);
  subtle.verify = (async (...args: Parameters<SubtleCrypto["verify"]>) => {
    await new Promise((r) => setTimeout(r, 200));
    return verify(...args);
  }) as SubtleCrypto["verify"];
  try {
    await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [echo] as const } });
  } finally {
    delete (subtle as { verify?: unknown }).verify;
  }
  assert.equal(store.get("127.0.0.1:7077"), real.key);
});

test("a Core with another key, or none, gets nothing of a page that trusts one", async () => {
  const real = await coreKey();
  const impostor = await coreKey();
  const store = new MemoryStore();
  store.set("127.0.0.1:7077", real.key);
  for (const [name, core, k] of [
    ["another key", coreWith(impostor), impostor],
    ["the real key claimed, signed by another", coreWith(impostor, real.key), impostor],
    ["no proof", (() => { const c = new FakeCore(); c.hello = { type: "hello", batch: true, maxBatchFrames: 64, maxMessageBytes: 1 << 20 }; return c; })(), impostor],
  ] as const) {
    const pedelec = signingClient(core, k, store);
    await assert.rejects(
      pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [echo] as const } }),
      (e: unknown) => e instanceof PedelecError && e.code === "CORE_NOT_AUTHENTIC" && e.message.includes("Nothing was sent"),
      name,
    );
    assert.deepEqual(core.requests, [], `${name}: the impostor received requests`);
    for (const s of core.sockets) assert.deepEqual(s.messages, [], `${name}: the impostor received messages`);
  }
  // The real one is let in, and forgetCore() lets the page trust anew.
  const core = coreWith(real);
  const pedelec = signingClient(core, real, store);
  await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [echo] as const } });
  pedelec.forgetCore();
  assert.equal(store.get("127.0.0.1:7077"), null);
});

test("a key store that throws on set does not fail a createSession Core already answered", async () => {
  const real = await coreKey();
  const store = new MemoryStore();
  store.set = () => {
    throw new Error("storage refused");
  };
  const core = coreWith(real);
  const pedelec = signingClient(core, real, store);
  const session = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [echo] as const } });
  assert.notEqual(session.getStatus(), "ended");
});
