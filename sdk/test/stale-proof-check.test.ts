// A socket of a page that trusts Core, closed before its proof was
// checked (an impostor that completes the upgrade and closes, a Core that
// died), must leave nothing armed that acts on the connection that comes
// after it (the fifth hostile review, last part: its hello timer fired
// later and cleared the next socket's opening, so a second socket was
// opened beside it, and dropped frames that socket had not handled yet).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SocketLike } from "../src/client/connection.js";
import { PedelecError } from "../src/errors.js";
import { FakeCore, tick } from "./fake-core.js";

const b64url = (b: ArrayBuffer) => Buffer.from(b).toString("base64url");

/** A socket the test opens, greets and closes by hand. */
class HandSocket implements SocketLike {
  readyState = 0;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  readonly sent: string[] = [];
  constructor(readonly url: string) {}
  send(data: string): void {
    this.sent.push(data);
  }
  close(code = 1000, reason = ""): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    setTimeout(() => this.onclose?.({ code, reason }), 0);
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
}

test("a socket closed before its hello leaves no timer that touches the next connection", async () => {
  const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"])) as CryptoKeyPair;
  const key = b64url(await crypto.subtle.exportKey("raw", pair.publicKey));
  const hello = async (url: string) => {
    const nonce = new URL(url).searchParams.get("proof") ?? "";
    const proof = b64url(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, pair.privateKey, new TextEncoder().encode("pedelec-core-proof/v1\n" + nonce)));
    return JSON.stringify({ type: "hello", batch: true, maxBatchFrames: 64, maxMessageBytes: 1 << 20, coreKey: key, coreProof: proof });
  };
  const sockets: HandSocket[] = [];
  const keys = new Map([["127.0.0.1:7077", key]]);
  const core = new FakeCore();
  const pedelec = core.client({
    bridgeTimeoutMs: 2000,
    socketFactory: (url: string) => {
      const s = new HandSocket(url);
      sockets.push(s);
      return s;
    },
    keyStore: { get: (k: string) => keys.get(k) ?? null, set: (k: string, v: string) => void keys.set(k, v), remove: (k: string) => void keys.delete(k) },
  });
  const settle = (p: Promise<unknown>) => p.then(() => "ok", (e: unknown) => e);
  // t=0: the first socket opens and closes before any hello.
  const first = settle(pedelec.listProviders());
  await tick(10);
  sockets[0]!.open();
  sockets[0]!.close(1006, "");
  const outcome = await first;
  assert.ok(outcome instanceof PedelecError, String(outcome));
  // t≈1000: the next socket opens; its Core greets it late (t≈2500),
  // within its own 2 s, but after the first socket's would-be hello limit.
  await tick(1000);
  const second = settle(pedelec.listProviders());
  await tick(10);
  assert.equal(sockets.length, 2);
  sockets[1]!.open();
  // t≈2200: another call while the second socket still waits for its hello.
  await tick(1200);
  const third = settle(pedelec.listProviders());
  await tick(300);
  sockets[1]!.onmessage?.({ data: await hello(sockets[1]!.url) });
  await tick(50);
  assert.equal(sockets.length, 2, "a second socket was opened beside the one still waiting for its hello");
  for (const s of sockets.slice(1)) for (const m of s.sent) {
    const req = JSON.parse(m) as { id: number };
    s.onmessage?.({ data: JSON.stringify({ type: "response", id: req.id, ok: true, result: { providers: [], defaultProvider: "" } }) });
  }
  void second;
  void third;
  pedelec.close();
});
