// Which Core this page trusts. While Core is down, another local user's
// program can take its port; the page would then send it its tools and run
// whatever handler it asks for. So the page remembers, in its own storage,
// the public key of the Core that approved it (trust on first approval),
// and from then on every connection must carry Core's signature over a
// fresh nonce of the page's (docs/security.md, "Pages check that they talk
// to the Core that approved them"). Core signs with ECDSA P-256, which
// every browser's WebCrypto verifies.

import { PedelecError } from "../errors.js";

const STORAGE_PREFIX = "pedelec:core-key:";

/**
 * Where the remembered key lives: the page's localStorage; tests (and a
 * page keeping it elsewhere) pass their own, which may answer with a
 * promise. A get that throws or rejects fails the connection with
 * CORE_KEY_STORE_FAILED: the page cannot tell which Core it trusts.
 */
export interface KeyStore {
  get(core: string): string | null | undefined | Promise<string | null | undefined>;
  set(core: string, key: string): void | Promise<void>;
  remove(core: string): void;
}

export const pageStorage: KeyStore = {
  get: (core) => {
    try {
      return globalThis.localStorage?.getItem(STORAGE_PREFIX + core) ?? null;
    } catch {
      return null; // storage refused (a sandboxed frame): nothing remembered
    }
  },
  set: (core, key) => {
    try {
      globalThis.localStorage?.setItem(STORAGE_PREFIX + core, key);
    } catch {
      // nothing to remember it in: the next connection is trust-on-first-use again
    }
  },
  remove: (core) => {
    try {
      globalThis.localStorage?.removeItem(STORAGE_PREFIX + core);
    } catch {
      // nothing stored
    }
  },
};

/** What Core put in its hello for the page's nonce. */
export type Proof = { key: string; signature: string };

export class CoreIdentity {
  /** The key a proof on this connection showed, not yet remembered. */
  private proven: string | null = null;

  constructor(
    /** Core's host:port, what the key is remembered under. */
    readonly core: string,
    private readonly store: KeyStore = pageStorage,
  ) {}

  /**
   * The remembered key, if this page ever trusted this Core: null when
   * none, a promise when the store answers with one. Throws (or rejects)
   * what the store throws, and on an answer that is not a key.
   */
  expected(): string | null | Promise<string | null> {
    const got = this.store.get(this.core);
    return isThenable(got) ? Promise.resolve(got).then(asKey) : asKey(got);
  }

  /** The error of a key store that could not be read. */
  storeFailed(url: string, err: unknown): PedelecError {
    const reason = err instanceof Error ? err.message : String(err);
    return new PedelecError(
      "CORE_KEY_STORE_FAILED",
      `Could not read which Pedelec Core this page trusts from its keyStore (${reason}), so nothing was opened to ${url}: without it the page cannot tell Core from another program on its port. Fix the keyStore given to new Pedelec().`,
      { coreUrl: url, reason },
    );
  }

  /** A fresh nonce for the next connection's proof. */
  static nonce(): string {
    const bytes = new Uint8Array(32);
    globalThis.crypto.getRandomValues(bytes);
    return base64url(bytes);
  }

  /**
   * Checks a hello's proof for nonce. Resolves with nothing when this
   * connection may be used, rejects with CORE_NOT_AUTHENTIC when the page
   * trusts a Core and this is not it. With no key remembered it is
   * trust-on-first-use: a good proof is kept for remember().
   */
  async check(nonce: string, proof: Proof | null, url: string, want: string | null): Promise<void> {
    const ok = proof !== null && (await verify(proof, nonce));
    if (want === null) {
      this.proven = ok ? proof!.key : null;
      return;
    }
    if (ok && proof!.key === want) return;
    const found =
      proof === null
        ? "it sent no proof of Core's key"
        : !ok
          ? "its proof does not verify" + (subtleCrypto() ? "" : " (this page is not a secure context, so the browser cannot check signatures: serve it over https or from localhost)")
          : `it proves another key (${short(proof.key)})`;
    throw this.refusal(url, found, want, proof?.key);
  }

  /** The CORE_NOT_AUTHENTIC error, naming what answered; want is the key the page trusts. */
  refusal(url: string, found: string, want: string, key?: string): PedelecError {
    return new PedelecError(
      "CORE_NOT_AUTHENTIC",
      `What answers at ${url} is not the Pedelec Core this page trusts (key ${short(want)}): ${found}. Nothing was sent to it. ` +
        `If Core is down, another program may hold its port: start \`pedelec serve\`. If you reset Core's state directory on purpose, call forgetCore() on the Pedelec client and reconnect.`,
      { coreUrl: url, found, expectedKey: want, ...(key ? { key } : {}) },
    );
  }

  /**
   * Core approved this page: remember the key this connection proved, if
   * none is yet. A synchronous store is read and written in one step, so
   * of two connections that race here the first keeps its key.
   */
  remember(): void | Promise<void> {
    const proven = this.proven;
    if (!proven) return;
    const have = this.expected();
    if (isThenable(have)) return have.then((k) => (k === null ? this.store.set(this.core, proven) : undefined));
    if (have === null) return this.store.set(this.core, proven);
  }

  /** Forgets the remembered key: the next connection is trust-on-first-use. */
  forget(): void {
    this.proven = null;
    this.store.remove(this.core);
  }
}

function isThenable<T>(v: unknown): v is PromiseLike<T> {
  return typeof v === "object" && v !== null && typeof (v as { then?: unknown }).then === "function";
}

/** A store's answer as a key: none, or a string; anything else is a broken store. */
function asKey(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "string") return v;
  throw new Error(`it answered ${typeof v}, not a key`);
}

function subtleCrypto(): SubtleCrypto | null {
  return (globalThis.crypto as Crypto | undefined)?.subtle ?? null;
}

const encoder = new TextEncoder();

/** Core's signature (r||s) over "pedelec-core-proof/v1\n" + nonce, by proof.key (an uncompressed P-256 point). */
async function verify(proof: Proof, nonce: string): Promise<boolean> {
  const subtle = subtleCrypto();
  if (!subtle || typeof proof.key !== "string" || typeof proof.signature !== "string") return false;
  try {
    const key = await subtle.importKey("raw", fromBase64url(proof.key), { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
    return await subtle.verify({ name: "ECDSA", hash: "SHA-256" }, key, fromBase64url(proof.signature), encoder.encode("pedelec-core-proof/v1\n" + nonce));
  } catch {
    return false;
  }
}

function short(key: string): string {
  return key.length > 12 ? key.slice(0, 12) + "…" : key;
}

function base64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
