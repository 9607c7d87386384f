// What the SDK's tests of Core's identity share: a Core's key that signs
// a socket's nonce as Core does, the hello that carries the proof, and a
// key store in memory.
import type { KeyStore } from "../src/client/core-identity.js";

export const b64url = (b: ArrayBuffer) => Buffer.from(b).toString("base64url");

export type CoreKey = { key: string; sign: (nonce: string) => Promise<string> };

/** A Core's key: signs each socket's nonce, as Core does. */
export async function coreKey(): Promise<CoreKey> {
  const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"])) as CryptoKeyPair;
  const key = b64url(await crypto.subtle.exportKey("raw", pair.publicKey));
  const sign = async (nonce: string) =>
    b64url(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, pair.privateKey, new TextEncoder().encode("pedelec-core-proof/v1\n" + nonce)));
  return { key, sign };
}

/** A hello maker for FakeCore: the socket's nonce signed by k, claiming proofKey. */
export function signedHello(k: CoreKey, proofKey = k.key) {
  return async (url: string) => {
    const nonce = new URL(url).searchParams.get("proof") ?? "";
    return { type: "hello", batch: true, maxBatchFrames: 64, maxMessageBytes: 1 << 20, coreKey: proofKey, coreProof: await k.sign(nonce) };
  };
}

export class MemoryStore implements KeyStore {
  readonly map = new Map<string, string>();
  get = (k: string): string | null => this.map.get(k) ?? null;
  set = (k: string, v: string) => void this.map.set(k, v);
  remove = (k: string) => void this.map.delete(k);
}
