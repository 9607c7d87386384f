// A page's own key store that fails: the page cannot tell which Core it
// trusts, so it connects to none, and says so at once (the fifth hostile
// review; before it, createSession never settled).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { KeyStore } from "../src/client/core-identity.js";
import { PedelecError } from "../src/errors.js";
import { FakeCore, tick } from "./fake-core.js";
import { MemoryStore, coreKey, signedHello as hello } from "./core-keys.js";

const CORE = "127.0.0.1:7077";

// A page's own key store whose get throws: the page cannot tell which
// Core it trusts. It must fail at once with a code of its own, open no
// socket (nothing half-open), and work again once the store does.
for (const [name, fail] of [
  ["throws", () => { throw new Error("storage exploded"); }],
  ["rejects", () => Promise.reject(new Error("storage exploded"))],
] as const) {
  test(`a key store whose get ${name} fails createSession at once with CORE_KEY_STORE_FAILED, and nothing is opened`, async () => {
    const real = await coreKey();
    const store = new MemoryStore();
    store.set(CORE, real.key);
    const get = store.get;
    let broken = true;
    (store as { get: unknown }).get = (k: string) => (broken ? fail() : get(k));
    const core = new FakeCore();
    core.hello = hello(real);
    const pedelec = core.client({ keyStore: store });
    const settled = pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [] } }).then(
      () => "created",
      (e: unknown) => e,
    );
    const outcome = await Promise.race([settled, tick(2000).then(() => "still pending after 2 s")]);
    assert.ok(outcome instanceof PedelecError, `createSession: ${String(outcome)}`);
    assert.equal(outcome.code, "CORE_KEY_STORE_FAILED");
    assert.match(outcome.message, /storage exploded/);
    assert.equal((outcome.details as { coreUrl?: string }).coreUrl, "ws://127.0.0.1:7077/ws");
    assert.equal(core.sockets.length, 0, "a socket was opened although the page cannot tell which Core it trusts");
    // The store works again: the next call connects as usual.
    broken = false;
    const session = await pedelec.createSession({ provider: "script", skills: { guidance: "g", tools: [] } });
    assert.equal(session.getStatus(), "idle");
    pedelec.close();
  });
}

// A store that answers with a promise (a page keeping the key somewhere
// asynchronous) is read like any other: its key is the one expected.
test("a key store whose get resolves asynchronously is awaited", async () => {
  const real = await coreKey();
  const impostor = await coreKey();
  const map = new Map<string, string>([[CORE, real.key]]);
  const store = {
    get: async (k: string) => map.get(k) ?? null,
    set: (k: string, v: string) => void map.set(k, v),
    remove: (k: string) => void map.delete(k),
  } as unknown as KeyStore;
  const good = new FakeCore();
  good.hello = hello(real);
  await good.client({ keyStore: store }).createSession({ provider: "script", skills: { guidance: "g", tools: [] } });
  const bad = new FakeCore();
  bad.hello = hello(impostor);
  await assert.rejects(
    bad.client({ keyStore: store }).createSession({ provider: "script", skills: { guidance: "g", tools: [] } }),
    (e: unknown) => e instanceof PedelecError && e.code === "CORE_NOT_AUTHENTIC" && /another key/.test(e.message),
  );
  assert.deepEqual(bad.requests, []);
});
