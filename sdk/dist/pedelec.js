// @kaoruisaac/pedelec: the Pedelec browser SDK. Generated from sdk/src by `npm run build`; do not edit.
var __defProp = Object.defineProperty;
var __defNormalProp = (obj, key2, value) => key2 in obj ? __defProp(obj, key2, { enumerable: true, configurable: true, writable: true, value }) : obj[key2] = value;
var __publicField = (obj, key2, value) => __defNormalProp(obj, typeof key2 !== "symbol" ? key2 + "" : key2, value);

// src/codes.gen.ts
var ERROR_CODES = [
  "INVALID_INPUT",
  "UNKNOWN_METHOD",
  "MESSAGE_TOO_LARGE",
  "ORIGIN_NOT_ALLOWED",
  "HOST_NOT_ALLOWED",
  "SESSION_BUSY",
  "SESSION_ENDED",
  "CORE_SHUTTING_DOWN",
  "THREAD_NOT_FOUND",
  "THREAD_ACCESS_DENIED",
  "PROVIDER_NOT_FOUND",
  "PROVIDER_UNAVAILABLE",
  "PROVIDER_ERROR",
  "PROVIDER_TIMEOUT",
  "MODEL_REQUIRED",
  "MODEL_NOT_FOUND",
  "ENDPOINT_UNREACHABLE",
  "AUTH_FAILED",
  "BAD_MODEL_RESPONSE",
  "STEP_LIMIT_REACHED",
  "OLLAMA_UNAVAILABLE",
  "OLLAMA_AUTH_FAILED",
  "TOOL_NOT_FOUND",
  "TOOL_ARGS_INVALID",
  "TOOL_TIMEOUT",
  "TOOL_CALL_CANCELLED",
  "TOOL_REQUEST_NOT_PENDING",
  "TOO_MANY_PENDING_CALLS",
  "NO_ACTIVE_TURN",
  "TOOL_HANDLER_NOT_FOUND",
  "TOOL_HANDLER_ERROR",
  "TOOL_RESULT_INVALID",
  "TOOL_REFUSED",
  "SUBMIT_TOOL_RESULT_FAILED",
  "TOOL_CALL_PENDING",
  "TOOL_CALL_NOT_WAITABLE",
  "CORE_UNREACHABLE",
  "CORE_NOT_AUTHENTIC",
  "CORE_KEY_STORE_FAILED",
  "NOT_IN_SESSION",
  "INTERNAL",
  "SEND_TEXT_NOT_SUPPORTED",
  "CORE_TOKEN_INVALID",
  "DEFAULT_PROVIDER_NOT_SET",
  "DEFAULT_PROVIDER_UNAVAILABLE",
  "SDK_BRIDGE_TIMEOUT",
  "SDK_PROTOCOL_ERROR",
  "PEER_NOT_ALLOWED",
  "INVALID_FRAME",
  "TOO_MANY_SESSIONS",
  "TOO_MANY_CONNECTION_SESSIONS",
  "TOO_MANY_TOOLS",
  "TOOL_NAME_TOO_LONG",
  "DESCRIPTION_TOO_LONG",
  "GUIDANCE_TOO_LONG",
  "SCHEMA_TOO_LARGE",
  "SCHEMA_TOO_DEEP",
  "ASSET_PATH_INVALID",
  "ASSET_NOT_FOUND",
  "ASSET_NOT_FILE",
  "ASSET_TOO_LARGE",
  "ASSET_QUOTA_EXCEEDED",
  "ASSET_READ_TOO_LARGE",
  "ASSET_UPLOAD_BUSY",
  "ASSET_UPLOAD_SERVER_UNAVAILABLE",
  "ASSET_UPLOAD_TICKET_EXPIRED",
  "ASSET_UPLOAD_UNAUTHORIZED",
  "ASSET_UPLOAD_SIZE_MISMATCH",
  "ASSET_UPLOAD_FAILED",
  "ASSET_LIST_FAILED",
  "ASSET_DOWNLOAD_TICKET_EXPIRED",
  "ASSET_DOWNLOAD_UNAUTHORIZED",
  "ASSET_READ_FAILED",
  "ASSET_TEXT_DECODE_FAILED",
  "ASSET_INVALID_JSON",
  "TURN_INTERRUPTED",
  "EVENTS_TRUNCATED",
  "BATCH_TOO_LARGE",
  "APPROVAL_REJECTED",
  "APPROVAL_TIMEOUT",
  "OPEN_POPUP_FAILED",
  "CREATE_SESSION_NOT_APPROVED",
  "APPROVAL_NOT_FOUND",
  "APPROVER_NOT_ALLOWED",
  "TOOL_CALL_DENIED",
  "TOOL_CONSENT_TIMEOUT",
  "ADDR_IN_USE"
];

// src/errors.ts
var PedelecSdkError = class _PedelecSdkError extends Error {
  constructor(code, message, details) {
    super(message);
    __publicField(this, "code");
    this.code = code;
    Object.defineProperty(this, "message", { value: message, writable: true, configurable: true, enumerable: true });
    if (details !== void 0) this.details = details;
    if (typeof this.stack === "string") {
      const nl = this.stack.indexOf("\n");
      Object.defineProperty(this, "stack", {
        value: `PedelecError: ${code}: ${message}` + (nl >= 0 ? this.stack.slice(nl) : ""),
        writable: true,
        configurable: true,
        enumerable: false
      });
    }
  }
  /** Builds a PedelecSdkError from a wire error object (or anything else). */
  static from(value) {
    if (value instanceof _PedelecSdkError) return value;
    if (isErrorData(value)) return new _PedelecSdkError(value.code, value.message, value.details);
    if (value instanceof Error) return new _PedelecSdkError("INTERNAL", value.message);
    return new _PedelecSdkError("INTERNAL", String(value));
  }
  /** The plain JSON form, as it travels on the wire. */
  toJSON() {
    const out = { code: this.code, message: this.message };
    if (this.details !== void 0) out.details = this.details;
    return out;
  }
  /** "PedelecError: CODE: message", as an Error prints. */
  toString() {
    return `PedelecError: ${this.code}: ${this.message}`;
  }
};
Object.defineProperty(PedelecSdkError.prototype, "name", { value: "PedelecError", writable: true, configurable: true, enumerable: false });
var PedelecError = PedelecSdkError;
function isErrorData(value) {
  return typeof value === "object" && value !== null && typeof value.code === "string" && typeof value.message === "string";
}
function toolErrorResult(code, message, details) {
  const error = { code, message };
  if (details !== void 0) error.details = details;
  return { error };
}

// src/client/core-identity.ts
var STORAGE_PREFIX = "pedelec:core-key:";
var pageStorage = {
  get: (core) => {
    try {
      return globalThis.localStorage?.getItem(STORAGE_PREFIX + core) ?? null;
    } catch {
      return null;
    }
  },
  set: (core, key2) => {
    try {
      globalThis.localStorage?.setItem(STORAGE_PREFIX + core, key2);
    } catch {
    }
  },
  remove: (core) => {
    try {
      globalThis.localStorage?.removeItem(STORAGE_PREFIX + core);
    } catch {
    }
  }
};
var CoreIdentity = class {
  constructor(core, store = pageStorage) {
    __publicField(this, "core", core);
    __publicField(this, "store", store);
    /** The key a proof on this connection showed, not yet remembered. */
    __publicField(this, "proven", null);
  }
  /**
   * The remembered key, if this page ever trusted this Core: null when
   * none, a promise when the store answers with one. Throws (or rejects)
   * what the store throws, and on an answer that is not a key.
   */
  expected() {
    const got = this.store.get(this.core);
    return isThenable(got) ? Promise.resolve(got).then(asKey) : asKey(got);
  }
  /** The error of a key store that could not be read. */
  storeFailed(url, err) {
    const reason = err instanceof Error ? err.message : String(err);
    return new PedelecError(
      "CORE_KEY_STORE_FAILED",
      `Could not read which Pedelec Core this page trusts from its keyStore (${reason}), so nothing was opened to ${url}: without it the page cannot tell Core from another program on its port. Fix the keyStore given to new Pedelec().`,
      { coreUrl: url, reason }
    );
  }
  /** A fresh nonce for the next connection's proof. */
  static nonce() {
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
  async check(nonce, proof, url, want) {
    const ok = proof !== null && await verify(proof, nonce);
    if (want === null) {
      this.proven = ok ? proof.key : null;
      return;
    }
    if (ok && proof.key === want) return;
    const found = proof === null ? "it sent no proof of Core's key" : !ok ? "its proof does not verify" + (subtleCrypto() ? "" : " (this page is not a secure context, so the browser cannot check signatures: serve it over https or from localhost)") : `it proves another key (${short(proof.key)})`;
    throw this.refusal(url, found, want, proof?.key);
  }
  /** The CORE_NOT_AUTHENTIC error, naming what answered; want is the key the page trusts. */
  refusal(url, found, want, key2) {
    return new PedelecError(
      "CORE_NOT_AUTHENTIC",
      `What answers at ${url} is not the Pedelec Core this page trusts (key ${short(want)}): ${found}. Nothing was sent to it. If Core is down, another program may hold its port: start \`pedelec serve\`. If you reset Core's state directory on purpose, call forgetCore() on the Pedelec client and reconnect.`,
      { coreUrl: url, found, expectedKey: want, ...key2 ? { key: key2 } : {} }
    );
  }
  /**
   * Core approved this page: remember the key this connection proved, if
   * none is yet. A synchronous store is read and written in one step, so
   * of two connections that race here the first keeps its key.
   */
  remember() {
    const proven = this.proven;
    if (!proven) return;
    const have = this.expected();
    if (isThenable(have)) return have.then((k) => k === null ? this.store.set(this.core, proven) : void 0);
    if (have === null) return this.store.set(this.core, proven);
  }
  /** Forgets the remembered key: the next connection is trust-on-first-use. */
  forget() {
    this.proven = null;
    this.store.remove(this.core);
  }
};
function isThenable(v) {
  return typeof v === "object" && v !== null && typeof v.then === "function";
}
function asKey(v) {
  if (v === null || v === void 0) return null;
  if (typeof v === "string") return v;
  throw new Error(`it answered ${typeof v}, not a key`);
}
function subtleCrypto() {
  return globalThis.crypto?.subtle ?? null;
}
var encoder = new TextEncoder();
async function verify(proof, nonce) {
  const subtle = subtleCrypto();
  if (!subtle || typeof proof.key !== "string" || typeof proof.signature !== "string") return false;
  try {
    const key2 = await subtle.importKey("raw", fromBase64url(proof.key), { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
    return await subtle.verify({ name: "ECDSA", hash: "SHA-256" }, key2, fromBase64url(proof.signature), encoder.encode("pedelec-core-proof/v1\n" + nonce));
  } catch {
    return false;
  }
}
function short(key2) {
  return key2.length > 12 ? key2.slice(0, 12) + "…" : key2;
}
function base64url(bytes) {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
function fromBase64url(s) {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

// src/client/connection.ts
var fetchProbe = async (base) => {
  if (typeof fetch !== "function") return "nothing";
  try {
    const res = await fetch(`${base}/healthz`, { mode: "cors", cache: "no-store", credentials: "omit" });
    const body = await res.json().catch(() => null);
    if (isObject(body) && body.service === "pedelec") return "core";
    if (isObject(body) && isObject(body.error) && body.error.code === "HOST_NOT_ALLOWED") return "host_refused";
    return "not_core";
  } catch {
    try {
      await fetch(`${base}/healthz`, { mode: "no-cors", cache: "no-store", credentials: "omit" });
      return "not_core";
    } catch {
      return "nothing";
    }
  }
};
function isObject(v) {
  return typeof v === "object" && v !== null;
}
function sighting(v) {
  return v === true ? "core" : v === false ? "nothing" : v;
}
var MAX_EARLY_EVENTS = 1e3;
var MAX_EARLY_SESSIONS = 32;
var OPEN = 1;
var DEFAULT_RESPONSE_TIMEOUT_MS = 3e4;
var BATCH_QUERY = "batch=1";
var Connection = class {
  constructor(url, factory, probe = fetchProbe, timeoutMs = DEFAULT_RESPONSE_TIMEOUT_MS, keys) {
    __publicField(this, "url", url);
    __publicField(this, "factory", factory);
    __publicField(this, "probe", probe);
    __publicField(this, "timeoutMs", timeoutMs);
    __publicField(this, "socket", null);
    __publicField(this, "opening", null);
    __publicField(this, "nextId", 1);
    // In the order requests were sent, so in the order of their deadlines:
    // one timer watches the oldest instead of one timer per request.
    __publicField(this, "pending", /* @__PURE__ */ new Map());
    __publicField(this, "deadlineTimer");
    __publicField(this, "batch", null);
    // Requests waiting for the end of the current task to leave as one message.
    __publicField(this, "outbox", []);
    __publicField(this, "outboxSocket", null);
    // Frames received and not handled yet (see drain), from drained on.
    __publicField(this, "backlog", []);
    __publicField(this, "drained", 0);
    __publicField(this, "resuming", false);
    __publicField(this, "sinks", /* @__PURE__ */ new Map());
    __publicField(this, "early", /* @__PURE__ */ new Map());
    __publicField(this, "closeListeners", /* @__PURE__ */ new Set());
    /** Which Core this page trusts (core-identity.ts). */
    __publicField(this, "identity");
    /** The open socket's check of Core's proof (its hello). */
    __publicField(this, "proofCheck", null);
    this.identity = new CoreIdentity(coreHost(url), keys);
  }
  /**
   * Core approved this page (a session was created or resumed): remember
   * the key this connection's Core proved, if the page trusts none yet.
   * Resolves once it is kept (a proof that failed keeps nothing), so a
   * createSession that resolved has the key stored. Never rejects: Core
   * has already made the session, and a key store that cannot keep the
   * key (the page's own keyStore throwing) leaves the next connection
   * trust-on-first-use, as the default store does.
   */
  trustCore() {
    return (this.proofCheck ?? Promise.resolve()).then(() => this.identity.remember()).then(
      () => {
      },
      () => {
      }
      // a proof that failed, or nothing to remember it in
    );
  }
  /** Opens the socket if it is not open: resolves once Core accepted this page, rejects as a request would. */
  async ready() {
    await this.open();
  }
  /** What answers at Core's address over plain HTTP (whatever it thinks of this page's origin). */
  look() {
    let timer;
    const silent = new Promise((r) => timer = setTimeout(() => r("not_core"), this.timeoutMs));
    return Promise.race([this.probe(httpBase(this.url)).then(sighting, () => "nothing"), silent]).finally(() => clearTimeout(timer));
  }
  /**
   * Sends one request and resolves with its result, or rejects with its
   * error; params and result are the method's (protocol.gen.ts, generated
   * from Core's own list).
   */
  request(method, params, timeoutMs) {
    return this.send(method, params, timeoutMs);
  }
  /**
   * request for any method name: Pedelec.request, the original's untyped
   * escape hatch, sends what the page names. T is not checked.
   */
  async send(method, params, timeoutMs) {
    const socket = this.socket && this.socket.readyState === OPEN ? this.socket : await this.open();
    const id = this.nextId++;
    const frame = { type: "request", id, method, params };
    return new Promise((resolve2, reject) => {
      this.pending.set(id, { resolve: resolve2, reject, method, deadline: Date.now() + (timeoutMs ?? this.timeoutMs) });
      this.watchDeadlines();
      let text;
      try {
        text = JSON.stringify(frame);
      } catch (err) {
        this.pending.delete(id);
        reject(new PedelecError("INVALID_INPUT", `Could not encode ${method} as JSON: ${String(err)}`));
        return;
      }
      if (this.batch && socket === this.socket) return this.queue(socket, id, text);
      this.sendNow(socket, id, text);
    });
  }
  /** Sends one message; a socket that throws fails the requests in it. */
  sendNow(socket, ids, text) {
    try {
      socket.send(text);
    } catch (err) {
      for (const id of typeof ids === "number" ? [ids] : ids) {
        const p = this.pending.get(id);
        if (!p) continue;
        this.pending.delete(id);
        p.reject(new PedelecError("CORE_UNREACHABLE", `Could not send ${p.method} to Pedelec Core: ${String(err)}`));
      }
    }
  }
  /** Holds a request until the end of this task, so requests made together leave as one message. */
  queue(socket, id, text) {
    if (this.outbox.length === 0) {
      this.outboxSocket = socket;
      queueMicrotask(() => this.flush());
    }
    this.outbox.push({ id, text });
  }
  /** Sends the held requests: alone, or as arrays within the hello's limits. */
  flush() {
    const queued = this.outbox;
    const socket = this.outboxSocket;
    this.outbox = [];
    this.outboxSocket = null;
    const limits = this.batch;
    if (!socket || socket !== this.socket || !limits) return;
    let i = 0;
    while (i < queued.length) {
      let bytes = 1 + byteLength(queued[i].text) + 1;
      let j = i + 1;
      while (j < queued.length && j - i < limits.maxFrames) {
        const next = byteLength(queued[j].text) + 1;
        if (bytes + next > limits.maxBytes) break;
        bytes += next;
        j++;
      }
      const group = queued.slice(i, j);
      if (group.length === 1) this.sendNow(socket, group[0].id, group[0].text);
      else this.sendNow(socket, group.map((q) => q.id), `[${group.map((q) => q.text).join(",")}]`);
      i = j;
    }
  }
  /** Keeps one timer armed for the oldest request's deadline. */
  watchDeadlines() {
    if (this.deadlineTimer !== void 0) return keepAlive(this.deadlineTimer, true);
    const oldest = this.pending.values().next();
    if (oldest.done) return;
    this.deadlineTimer = setTimeout(() => {
      this.deadlineTimer = void 0;
      const now = Date.now();
      for (const [id, p] of this.pending) {
        if (p.deadline > now) break;
        this.pending.delete(id);
        p.reject(new PedelecError("SDK_BRIDGE_TIMEOUT", `Pedelec Core did not answer ${p.method} within ${this.timeoutMs} ms`, { method: p.method, id, timeoutMs: this.timeoutMs }));
      }
      this.watchDeadlines();
    }, Math.max(0, oldest.value.deadline - Date.now()));
  }
  /** Routes a session's events to sink, first replaying any that came early. */
  subscribe(sessionId, sink) {
    this.sinks.set(sessionId, sink);
    const waiting = this.early.get(sessionId);
    this.early.delete(sessionId);
    for (const ev of waiting ?? []) sink(ev);
    return () => {
      if (this.sinks.get(sessionId) === sink) this.sinks.delete(sessionId);
    };
  }
  /** Called with the reason whenever an open socket closes. */
  onClose(listener) {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }
  close() {
    this.socket?.close(1e3, "closed by the page");
  }
  open() {
    if (this.socket && this.socket.readyState === OPEN) return Promise.resolve(this.socket);
    if (this.opening) return this.opening;
    let trusted;
    try {
      trusted = Promise.resolve(this.identity.expected());
    } catch (err) {
      trusted = Promise.reject(err);
    }
    this.opening = trusted.then(
      (expected) => this.connect(expected),
      (err) => {
        this.opening = null;
        throw this.identity.storeFailed(this.url, err);
      }
    );
    return this.opening;
  }
  /** Opens a socket to Core; expected is the key the page trusts, if any. */
  connect(expected) {
    return new Promise((resolve2, reject) => {
      let socket;
      const nonce = CoreIdentity.nonce();
      try {
        socket = this.factory(withProof(withBatch(this.url), nonce));
      } catch (err) {
        this.opening = null;
        reject(new PedelecError("CORE_UNREACHABLE", `Could not open a WebSocket to ${this.url}: ${String(err)}`));
        return;
      }
      let opened = false;
      let settled = false;
      let noHelloTimer;
      const handshake = setTimeout(() => {
        settled = true;
        socket.onopen = null;
        socket.onmessage = null;
        socket.onclose = null;
        held = null;
        this.opening = null;
        try {
          socket.close(1e3, "no WebSocket handshake in time");
        } catch {
        }
        reject(
          new PedelecError(
            "CORE_UNREACHABLE",
            `Something accepted the connection at ${httpBase(this.url)} but did not complete the WebSocket handshake within ${this.timeoutMs} ms: a Core too busy to answer, or another program holding its port while Core is down. Nothing was sent to it; is \`pedelec serve\` running?`,
            { url: this.url, found: "no_handshake", timeoutMs: this.timeoutMs }
          )
        );
      }, this.timeoutMs);
      const accept = () => {
        opened = true;
        this.batch = null;
        this.socket = socket;
        this.opening = null;
        resolve2(socket);
      };
      let helloArrived = () => {
      };
      const hello = new Promise((r) => helloArrived = r);
      let first = true;
      let held = null;
      socket.onmessage = (ev) => {
        if (first) {
          first = false;
          const check = this.identity.check(nonce, proofIn(ev.data), this.url, expected);
          this.proofCheck = check;
          check.catch(() => {
          });
          helloArrived(check);
        }
        if (held) held.push(ev.data);
        else this.receive(ev.data);
      };
      socket.onopen = () => {
        clearTimeout(handshake);
        this.proofCheck = null;
        if (expected === null) return accept();
        held = [];
        const noHello = new Promise((_, rej) => {
          noHelloTimer = setTimeout(() => rej(this.identity.refusal(this.url, "it sent no hello within " + this.timeoutMs + " ms", expected ?? "")), this.timeoutMs);
        });
        Promise.race([hello.then((check) => check), noHello]).then(
          () => {
            clearTimeout(noHelloTimer);
            if (settled) return;
            settled = true;
            const proven = held ?? [];
            held = null;
            accept();
            for (const data of proven) this.receive(data);
          },
          (err) => {
            clearTimeout(noHelloTimer);
            if (settled) return;
            settled = true;
            held = null;
            socket.onclose = null;
            socket.onmessage = null;
            this.opening = null;
            try {
              socket.close(1e3, "not the Core this page trusts");
            } catch {
            }
            reject(err);
          }
        );
      };
      socket.onerror = () => {
      };
      socket.onclose = (ev) => {
        clearTimeout(handshake);
        clearTimeout(noHelloTimer);
        held = null;
        const err = closeError(this.url, ev.code, ev.reason, opened);
        if (!opened) {
          if (settled) return;
          settled = true;
          this.opening = null;
          if (err.code !== "CORE_UNREACHABLE") return reject(err);
          void this.look().then((seen) => reject(seenError(this.url, seen, err)));
          return;
        }
        if (this.socket === socket) {
          this.socket = null;
          this.batch = null;
        }
        this.drainNow();
        this.failPending(err);
        for (const listener of [...this.closeListeners]) listener(err);
      };
    });
  }
  failPending(err) {
    const pending = [...this.pending.values()];
    this.pending.clear();
    keepAlive(this.deadlineTimer, false);
    this.outbox = [];
    this.outboxSocket = null;
    for (const p of pending) p.reject(err);
  }
  receive(data) {
    if (typeof data !== "string") return;
    let parsed;
    try {
      parsed = JSON.parse(data);
    } catch {
      return;
    }
    for (const frame of Array.isArray(parsed) ? parsed : [parsed]) if (isFrame(frame)) this.backlog.push(frame);
    if (!this.resuming) this.drain();
  }
  /**
   * Handles the frames received, in order. Sent alone, a response is a
   * message of its own, so the code awaiting it runs (its microtasks)
   * before the next frame is handled: end() marks its session ended before
   * Core's ended event comes in, send_text's caller knows its turn id
   * before the turn's events. Frames after a response in an array keep
   * that: they wait for a task of their own, and whatever arrives
   * meanwhile queues behind them. A response last in its array, as in a
   * one-caller tool call, costs nothing.
   */
  drain() {
    while (this.drained < this.backlog.length) {
      const frame = this.backlog[this.drained++];
      this.handle(frame);
      if (frame?.type === "response" && this.drained < this.backlog.length) {
        this.resuming = true;
        nextTask(() => {
          this.resuming = false;
          this.drain();
        });
        return;
      }
    }
    this.backlog = [];
    this.drained = 0;
  }
  /** Handles what is left of the backlog at once (the socket closed after it arrived). */
  drainNow() {
    while (this.drained < this.backlog.length) this.handle(this.backlog[this.drained++]);
    this.backlog = [];
    this.drained = 0;
  }
  handle(frame) {
    if (frame.type === "response") {
      const p = this.pending.get(frame.id);
      if (!p) return;
      this.pending.delete(frame.id);
      if (this.pending.size === 0) keepAlive(this.deadlineTimer, false);
      if (frame.ok) p.resolve(frame.result ?? {});
      else p.reject(PedelecError.from(isErrorData(frame.error) ? frame.error : { code: "INTERNAL", message: `${p.method} failed` }));
      return;
    }
    if (frame.type === "event" && typeof frame.sessionId === "string") {
      const sink = this.sinks.get(frame.sessionId);
      if (sink) return sink(frame);
      const queue = this.early.get(frame.sessionId);
      if (queue) {
        if (queue.length < MAX_EARLY_EVENTS) queue.push(frame);
      } else {
        if (this.early.size >= MAX_EARLY_SESSIONS) this.early.delete(this.early.keys().next().value);
        this.early.set(frame.sessionId, [frame]);
      }
      return;
    }
    if (frame.type === "hello" && frame.batch === true) {
      const maxFrames = Number(frame.maxBatchFrames);
      const maxBytes = Number(frame.maxMessageBytes);
      if (maxFrames >= 2 && maxBytes > 0) this.batch = { maxFrames, maxBytes };
    }
  }
};
function isFrame(v) {
  return typeof v === "object" && v !== null && "type" in v && typeof v.type === "string";
}
function keepAlive(timer, on) {
  const t = timer;
  if (on) t?.ref?.();
  else t?.unref?.();
}
var nextTask = (() => {
  const g = globalThis;
  if (typeof g.setImmediate === "function") return (fn) => void g.setImmediate(fn);
  if (typeof MessageChannel !== "function") return (fn) => void setTimeout(fn, 0);
  const queue = [];
  let channel = null;
  return (fn) => {
    if (!channel) {
      channel = new MessageChannel();
      channel.port1.onmessage = () => queue.shift()?.();
    }
    queue.push(fn);
    channel.port2.postMessage(null);
  };
})();
function withProof(url, nonce) {
  return url + (url.includes("?") ? "&" : "?") + "proof=" + nonce;
}
function proofIn(data) {
  if (typeof data !== "string") return null;
  try {
    const frame = JSON.parse(data);
    if (frame?.type === "hello" && typeof frame.coreKey === "string" && typeof frame.coreProof === "string") {
      return { key: frame.coreKey, signature: frame.coreProof };
    }
  } catch {
  }
  return null;
}
function coreHost(url) {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
function withBatch(url) {
  return url + (url.includes("?") ? "&" : "?") + BATCH_QUERY;
}
var encoder2 = typeof TextEncoder !== "undefined" ? new TextEncoder() : null;
function byteLength(s) {
  if (s.length < 4096 || !encoder2) return s.length * 3;
  return encoder2.encode(s).length;
}
function httpBase(wsUrl) {
  const u = new URL(wsUrl);
  return `${u.protocol === "wss:" ? "https:" : "http:"}//${u.host}`;
}
function pageOrigin() {
  const own = globalThis.origin;
  if (typeof own === "string" && own !== "") return own;
  if (typeof location === "undefined") return "this page's origin";
  return location.origin;
}
var OPAQUE_ORIGIN = `this page's origin is opaque ("null": a frame sandboxed without allow-same-origin, or a data: or file: page), and Core allows no such page whatever --allow-origin says. Use the SDK from a page with an http(s) origin (sandbox the frame with allow-same-origin too, or load it from its own URL) and allow that origin with --allow-origin`;
function seenError(url, seen, err) {
  const base = httpBase(url);
  switch (seen) {
    case "core":
      return refusedError(url);
    case "host_refused":
      return new PedelecError(
        "HOST_NOT_ALLOWED",
        `Pedelec Core answers at ${base} but refuses that name: it accepts only loopback names unless it is told the address you reach it at. Behind a port forward with a name of its own, start it with pedelec serve --public-url ${base} (docs/remote.md).`,
        { url, found: "core_refused_host" }
      );
    case "not_core":
      return new PedelecError(
        "CORE_UNREACHABLE",
        `Something answers at ${base}, but it is not Pedelec Core: check the port (pedelec serve prints its address) and the url you gave new Pedelec({ url }). A forwarded port may point at another service.`,
        { url, found: "not_pedelec" }
      );
  }
  return new PedelecError(
    "CORE_UNREACHABLE",
    `Nothing answers at ${base}: is \`pedelec serve\` running? If it runs on another machine (a dev box, a container, Codespaces), forward its port and pass the address your browser reaches as new Pedelec({ url }) (docs/remote.md).`,
    { ...isObject(err.details) ? err.details : {}, url, found: "nothing" }
  );
}
function refusedError(url) {
  const origin = pageOrigin();
  if (origin === "null") {
    return new PedelecError("ORIGIN_NOT_ALLOWED", `Pedelec Core at ${url} is running but refused this page's connection: ${OPAQUE_ORIGIN}.`, {
      url,
      origin,
      inferred: true
    });
  }
  return new PedelecError(
    "ORIGIN_NOT_ALLOWED",
    `Pedelec Core at ${url} is running but refused this page's connection: its origin ${origin} is not allowed. Start Core with --allow-origin ${origin} (or PEDELEC_ALLOW_ORIGIN=${origin}); Core's log names the reason.`,
    { url, origin, inferred: true }
  );
}
function closeError(url, code, reason, opened) {
  if (reason) {
    try {
      const parsed = JSON.parse(reason);
      if (isErrorData(parsed)) return PedelecError.from(parsed);
    } catch {
    }
  }
  if (code === 1009) return new PedelecError("MESSAGE_TOO_LARGE", `Pedelec Core closed the connection: a message was too large${reason ? ` (${reason})` : ""}`);
  if (!opened) {
    const origin = pageOrigin();
    if (origin === "null") {
      return new PedelecError("CORE_UNREACHABLE", `Could not connect to Pedelec Core at ${url}${reason ? `: ${reason}` : ""}. Is \`pedelec serve\` running? Besides, ${OPAQUE_ORIGIN}.`, {
        url,
        closeCode: code
      });
    }
    return new PedelecError(
      "CORE_UNREACHABLE",
      `Could not connect to Pedelec Core at ${url}${reason ? `: ${reason}` : ""}. Is \`pedelec serve\` running, and is ${origin} allowed (pedelec serve --allow-origin ${origin})?`,
      { url, closeCode: code }
    );
  }
  return new PedelecError("CORE_UNREACHABLE", `The connection to Pedelec Core at ${url} closed (code ${code}${reason ? `: ${reason}` : ""})`, { url, closeCode: code });
}

// src/client/reconnect.ts
var DEFAULT_RECONNECT = { initialDelayMs: 250, maxDelayMs: 5e3, giveUpAfterMs: 10 * 6e4 };
function worthRetrying(e) {
  if (e.code === "CORE_UNREACHABLE" || e.code === "SDK_BRIDGE_TIMEOUT" || e.code === "CORE_NOT_AUTHENTIC") return true;
  const details = e.details;
  return e.code === "ORIGIN_NOT_ALLOWED" && details?.inferred === true;
}
var Reconnector = class {
  constructor(tryOnce, onGiveUp, opts = DEFAULT_RECONNECT) {
    __publicField(this, "tryOnce", tryOnce);
    __publicField(this, "onGiveUp", onGiveUp);
    __publicField(this, "opts", opts);
    __publicField(this, "timer");
    __publicField(this, "running", false);
    __publicField(this, "startedAt", 0);
    __publicField(this, "attempt", 0);
  }
  /** Starts retrying unless already retrying. */
  start() {
    if (this.running) return;
    this.running = true;
    this.startedAt = Date.now();
    this.attempt = 0;
    this.schedule();
  }
  /** The delay before the next try. */
  nextDelay() {
    const base = Math.min(this.opts.maxDelayMs, this.opts.initialDelayMs * 2 ** Math.min(this.attempt, 16));
    return Math.round(base * (0.75 + Math.random() * 0.5));
  }
  stop() {
    clearTimeout(this.timer);
    this.timer = void 0;
    this.running = false;
  }
  schedule() {
    const delay = this.nextDelay();
    this.timer = setTimeout(() => void this.run(), delay);
  }
  async run() {
    if (!this.running) return;
    this.attempt++;
    let outcome = "retry";
    try {
      outcome = await this.tryOnce(this.attempt);
    } catch {
      outcome = "retry";
    }
    if (!this.running) return;
    if (outcome === "done") {
      this.running = false;
      return;
    }
    if (Date.now() - this.startedAt >= this.opts.giveUpAfterMs) {
      this.running = false;
      this.onGiveUp();
      return;
    }
    this.schedule();
  }
};

// src/client/url.ts
var DEFAULT_URL = "ws://127.0.0.1:7077/ws";
function resolveUrl(url, moduleUrl) {
  if (url === void 0 || url === "") return defaultUrl(moduleUrl);
  let parsed;
  try {
    parsed = new URL(url, typeof location !== "undefined" ? location.href : void 0);
  } catch {
    throw new TypeError(`Pedelec: ${JSON.stringify(url)} is not a URL; pass something like ${DEFAULT_URL}`);
  }
  if (parsed.protocol === "http:") parsed.protocol = "ws:";
  else if (parsed.protocol === "https:") parsed.protocol = "wss:";
  else if (parsed.protocol !== "ws:" && parsed.protocol !== "wss:") {
    throw new TypeError(`Pedelec: ${JSON.stringify(url)} must be a ws://, wss://, http:// or https:// URL`);
  }
  if (parsed.pathname === "" || parsed.pathname === "/") parsed.pathname = "/ws";
  parsed.hash = "";
  return parsed.toString();
}
function defaultUrl(moduleUrl) {
  if (moduleUrl) {
    try {
      const u = new URL(moduleUrl);
      if ((u.protocol === "http:" || u.protocol === "https:") && /\/sdk\/pedelec(\.min)?\.js$/.test(u.pathname)) {
        return `${u.protocol === "https:" ? "wss:" : "ws:"}//${u.host}/ws`;
      }
    } catch {
    }
  }
  return DEFAULT_URL;
}

// src/standard-schema.ts
function isStandardSchema(v) {
  if (typeof v !== "object" && typeof v !== "function" || v === null) return false;
  const s = v["~standard"];
  return typeof s === "object" && s !== null && s.version === 1;
}
function standardToJsonSchema(s, tool) {
  const std = s["~standard"];
  const convert2 = std.jsonSchema?.input;
  if (typeof convert2 !== "function") {
    throw new PedelecError(
      "INVALID_INPUT",
      `tool ${JSON.stringify(tool)}: its inputSchema is a Standard Schema of ${std.vendor} without a JSON Schema export ("~standard".jsonSchema); convert it with the library's own JSON Schema export and pass the result as inputSchema`,
      { tool, vendor: std.vendor }
    );
  }
  let schema;
  try {
    schema = convert2({ target: "draft-2020-12" });
  } catch (err) {
    throw new PedelecError(
      "INVALID_INPUT",
      `tool ${JSON.stringify(tool)}: ${std.vendor} cannot write its inputSchema as JSON Schema (${err instanceof Error ? err.message : String(err)}); change the schema to one JSON Schema can express`,
      { tool, vendor: std.vendor }
    );
  }
  return withoutStandard(JSON.parse(JSON.stringify(schema)));
}
function withoutStandard(v) {
  if (Array.isArray(v)) return v.map(withoutStandard);
  if (typeof v !== "object" || v === null) return v;
  const out = {};
  for (const [k, val] of Object.entries(v)) if (k !== "~standard") out[k] = withoutStandard(val);
  return out;
}

// src/json-safety.ts
var IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
function childPath(path, key2) {
  if (typeof key2 === "number") return `${path}[${key2}]`;
  return IDENT.test(key2) ? `${path}.${key2}` : `${path}[${JSON.stringify(key2)}]`;
}
function unsendable(value) {
  if (typeof Node !== "undefined" && value instanceof Node) {
    return `a DOM node (${value.nodeName}); return the data you need from it (text, ids, attributes) instead`;
  }
  if (typeof Promise !== "undefined" && value instanceof Promise) {
    return "a Promise nested inside the result; await it before returning";
  }
  if (typeof Window !== "undefined" && value instanceof Window) return "a window object";
  return null;
}
function describe(value) {
  const never = unsendable(value);
  if (never) return never;
  if (value instanceof Date) return "a Date; convert it explicitly, for example date.toISOString()";
  if (value instanceof Map) return "a Map; convert it explicitly, for example Object.fromEntries(map)";
  if (value instanceof Set) return "a Set; convert it explicitly, for example Array.from(set)";
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
    return "binary data (ArrayBuffer / typed array); convert it explicitly, for example Array.from(bytes)";
  }
  if (value instanceof RegExp) return "a RegExp; return its source string instead";
  if (value instanceof Error) return `an Error (${value.message}); return {error: {code, message}} or throw it`;
  return null;
}
function checkJson(value) {
  const ancestors = [];
  let problem = null;
  const fail = (path, text) => {
    problem ?? (problem = { path, problem: text });
    return void 0;
  };
  const walk2 = (v, path) => {
    switch (typeof v) {
      case "string":
      case "boolean":
        return v;
      case "number":
        return Number.isFinite(v) ? v : fail(path, `${String(v)}, which JSON cannot represent; return a finite number or null`);
      case "bigint":
        return fail(path, "a BigInt; convert it explicitly, for example String(n) or Number(n)");
      case "undefined":
        return fail(path, "undefined; return null or leave the property out");
      case "function":
        return fail(path, `a function${v.name ? ` (${v.name})` : ""}; functions never leave the page`);
      case "symbol":
        return fail(path, "a symbol; return a string instead");
    }
    if (v === null) return null;
    const obj = v;
    if (ancestors.includes(obj)) {
      return fail(path, "a cycle: this value contains itself; return a copy without the back reference");
    }
    if (Array.isArray(obj)) {
      ancestors.push(obj);
      const out2 = [];
      for (let i = 0; i < obj.length && !problem; i++) {
        const item = obj[i];
        if (item === void 0) {
          fail(childPath(path, i), "undefined inside an array (JSON would turn it into null); use null");
          break;
        }
        const c = walk2(item, childPath(path, i));
        if (c !== void 0) out2.push(c);
      }
      ancestors.pop();
      return problem ? void 0 : out2;
    }
    const rich = describe(obj);
    if (rich) return fail(path, rich);
    const proto = Object.getPrototypeOf(obj);
    if (proto !== Object.prototype && proto !== null) {
      const name = proto?.constructor?.name || "an unknown class";
      return fail(
        path,
        `an instance of ${name}; class instances can hide state, so return a plain object with the fields you mean`
      );
    }
    ancestors.push(obj);
    const out = {};
    for (const key2 of Object.keys(obj)) {
      if (problem) break;
      let item;
      try {
        item = obj[key2];
      } catch (err) {
        fail(childPath(path, key2), `a getter that threw: ${err instanceof Error ? err.message : String(err)}`);
        break;
      }
      if (item === void 0) continue;
      const c = walk2(item, childPath(path, key2));
      if (c !== void 0) out[key2] = c;
    }
    ancestors.pop();
    return problem ? void 0 : out;
  };
  const clean = walk2(value, "$");
  if (problem) return { ok: false, problem };
  return { ok: true, value: clean };
}
function toJsonResult(value) {
  const ancestors = [];
  let problem = null;
  const fail = (path, text) => {
    problem ?? (problem = { path, problem: text });
    return void 0;
  };
  const SKIP = /* @__PURE__ */ Symbol("skip");
  const walk2 = (input, key2, path) => {
    let v = input;
    if (typeof v === "object" && v !== null || typeof v === "bigint") {
      const toJSON = v.toJSON;
      if (typeof toJSON === "function") {
        try {
          v = toJSON.call(v, key2);
        } catch (err) {
          return fail(path, `a value whose toJSON() threw: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    }
    if (v instanceof Number || v instanceof String || v instanceof Boolean) v = v.valueOf();
    switch (typeof v) {
      case "string":
      case "boolean":
        return v;
      case "number":
        return Number.isFinite(v) ? v : null;
      case "bigint":
        return fail(path, "a BigInt, which JSON cannot hold; convert it explicitly, for example String(n) or Number(n)");
      case "undefined":
        return SKIP;
      case "function":
        return fail(path, `a function${v.name ? ` (${v.name})` : ""}; functions never leave the page`);
      case "symbol":
        return fail(path, "a symbol; return a string instead");
    }
    if (v === null) return null;
    const obj = v;
    const never = unsendable(obj);
    if (never) return fail(path, never);
    if (ancestors.includes(obj)) return fail(path, "a cycle: this value contains itself; return a copy without the back reference");
    ancestors.push(obj);
    try {
      if (Array.isArray(obj)) {
        const out2 = [];
        for (let i = 0; i < obj.length && !problem; i++) {
          const c = walk2(obj[i], String(i), childPath(path, i));
          out2.push(c === SKIP || c === void 0 ? null : c);
        }
        return problem ? void 0 : out2;
      }
      const out = {};
      for (const k of Object.keys(obj)) {
        if (problem) break;
        let item;
        try {
          item = obj[k];
        } catch (err) {
          return fail(childPath(path, k), `a getter that threw: ${err instanceof Error ? err.message : String(err)}`);
        }
        const c = walk2(item, k, childPath(path, k));
        if (c !== SKIP && c !== void 0) out[k] = c;
      }
      return problem ? void 0 : out;
    } finally {
      ancestors.pop();
    }
  };
  const clean = walk2(value, "", "$");
  if (problem) return { ok: false, problem };
  return { ok: true, value: clean === SKIP || clean === void 0 ? null : clean };
}

// src/standard-rules.ts
var DRAFT_2020_URL = "https://json-schema.org/draft/2020-12/schema";
var DRAFT_07_URL = "http://json-schema.org/draft-07/schema#";
var ACCEPTED_SCHEMAS = `"${DRAFT_2020_URL}" (the default when $schema is absent) or "${DRAFT_07_URL}"`;
var BASE = "https://pedelec.invalid/schema.json";
var MAX_DEPTH = 32;
var DRAFT_2020 = {
  name: "draft 2020-12",
  draft07: false,
  keywords: /* @__PURE__ */ new Set([
    "$schema",
    "$id",
    "$ref",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "$comment",
    "$defs",
    "prefixItems",
    "items",
    "contains",
    "additionalProperties",
    "properties",
    "patternProperties",
    "dependentSchemas",
    "propertyNames",
    "if",
    "then",
    "else",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "unevaluatedItems",
    "unevaluatedProperties",
    "type",
    "const",
    "enum",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "definitions",
    "dependencies"
  ])
};
var DRAFT_07 = {
  name: "draft-07",
  draft07: true,
  keywords: /* @__PURE__ */ new Set([
    "$schema",
    "$id",
    "$ref",
    "$comment",
    "definitions",
    "title",
    "description",
    "default",
    "readOnly",
    "writeOnly",
    "examples",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "additionalItems",
    "items",
    "maxItems",
    "minItems",
    "uniqueItems",
    "contains",
    "maxProperties",
    "minProperties",
    "required",
    "additionalProperties",
    "properties",
    "patternProperties",
    "dependencies",
    "propertyNames",
    "const",
    "enum",
    "type",
    "format",
    "contentMediaType",
    "contentEncoding",
    "if",
    "then",
    "else",
    "allOf",
    "anyOf",
    "oneOf",
    "not"
  ])
};
var BESIDE_07_REF = /* @__PURE__ */ new Set(["$ref", "$schema", "$comment", "definitions", "title", "description", "default", "examples", "readOnly", "writeOnly"]);
var ONE_SUBSCHEMA = /* @__PURE__ */ new Set(["not", "if", "then", "else", "contains", "additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "additionalItems", "items"]);
var SUBSCHEMA_ARRAY = /* @__PURE__ */ new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
var SUBSCHEMA_MAP = /* @__PURE__ */ new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"]);
var KNOWN_FORMATS = [
  "date-time",
  "date",
  "time",
  "duration",
  "period",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uri",
  "uri-reference",
  "iri",
  "iri-reference",
  "uri-template",
  "uuid",
  "json-pointer",
  "relative-json-pointer",
  "regex",
  "semver"
];
var isObject2 = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
var has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
function dialectOf(s) {
  const u = s.replace(/#$/, "").replace(/^https?:\/\//, "");
  if (u === "json-schema.org/draft/2020-12/schema") return DRAFT_2020;
  if (u === "json-schema.org/draft-07/schema") return DRAFT_07;
  return void 0;
}
function resolve(base, ref) {
  try {
    const u = new URL(ref, base);
    u.hash = "";
    return u.href;
  } catch {
    return void 0;
  }
}
function checkStandardSchema(w, v, p, field, why) {
  if (!isObject2(v)) {
    w.add(p, `${field} must be a JSON Schema object such as {"type": "object", "properties": {...}}; got ${w.describe(v)}`);
    return;
  }
  if (!has(v, "type")) w.add(w.key(p, "type"), `the ${field} root must have "type": "object" (${why}); add it`);
  else if (v.type !== "object") w.add(w.key(p, "type"), `the ${field} root must have "type": "object" (${why}); got ${w.describe(v.type)}`);
  let d = DRAFT_2020;
  if (has(v, "$schema")) {
    const s = v.$schema;
    const known = typeof s === "string" ? dialectOf(s) : void 0;
    if (!known) {
      w.add(w.key(p, "$schema"), `$schema must name a dialect Core validates: ${ACCEPTED_SCHEMAS}; got ${w.describe(s)}`);
      return;
    }
    d = known;
  }
  const ids = /* @__PURE__ */ new Set([BASE]);
  walk(w, d, ids, v, p, BASE, 0, true);
  walk(w, d, ids, v, p, BASE, 0, false);
}
function walk(w, d, ids, v, p, base, depth, collect) {
  if (typeof v === "boolean") return;
  if (!isObject2(v)) {
    if (!collect) w.add(p, `a schema must be an object or true or false; got ${w.describe(v)}`);
    return;
  }
  if (depth > MAX_DEPTH) {
    if (!collect) w.add(p, `schemas nested more than ${MAX_DEPTH} levels deep are not supported; flatten the arguments`);
    return;
  }
  const id = v.$id;
  if (typeof id === "string" && !(d.draft07 && id.startsWith("#"))) {
    const u = resolve(base, id);
    if (u !== void 0) {
      base = u;
      ids.add(u);
    }
  }
  const hasRef = has(v, "$ref");
  for (const k of Object.keys(v)) {
    const val = v[k];
    const kp = w.key(p, k);
    if (!collect && !keyword(w, d, ids, v, k, val, kp, base, hasRef)) continue;
    if (ONE_SUBSCHEMA.has(k)) {
      if (k === "items" && Array.isArray(val) && d.draft07) val.forEach((e, i) => walk(w, d, ids, e, w.index(kp, i), base, depth + 1, collect));
      else walk(w, d, ids, val, kp, base, depth + 1, collect);
    } else if (SUBSCHEMA_ARRAY.has(k)) {
      if (Array.isArray(val)) val.forEach((e, i) => walk(w, d, ids, e, w.index(kp, i), base, depth + 1, collect));
    } else if (SUBSCHEMA_MAP.has(k) && isObject2(val)) {
      for (const name of Object.keys(val)) {
        const e = val[name];
        if (k === "dependencies" && Array.isArray(e)) continue;
        walk(w, d, ids, e, w.key(kp, name), base, depth + 1, collect);
      }
    }
  }
}
function keyword(w, d, ids, n, k, val, kp, base, hasRef) {
  if (!d.keywords.has(k)) {
    w.add(kp, `${w.quoteShort(k)} is not a keyword of JSON Schema ${d.name}, so nothing would check it; remove it (notes belong in "description" or "$comment")`);
    return false;
  }
  if (hasRef && d.draft07 && !BESIDE_07_REF.has(k)) {
    w.add(kp, `draft-07 ignores every keyword beside "$ref", so ${k} would not be checked; put the $ref and ${k} in an "allOf", or use draft 2020-12 (leave "$schema" out)`);
    return false;
  }
  const checked = has(n, "pattern");
  switch (k) {
    case "$ref":
    case "$dynamicRef": {
      if (typeof val !== "string") return true;
      const u = resolve(base, val);
      if (u !== void 0 && !ids.has(u)) {
        w.add(kp, `${k} ${w.quoteShort(val)} refers outside this schema, and Core never fetches schemas; copy the definition into "$defs" and refer to it as "#/$defs/Name"`);
        return false;
      }
      return true;
    }
    case "format":
      if (typeof val === "string" && !KNOWN_FORMATS.includes(val) && !checked) {
        w.add(kp, `format ${w.quoteShort(val)} is not one Core checks, so it would be ignored; use one of ${KNOWN_FORMATS.join(", ")}, or add a "pattern" that checks it`);
        return false;
      }
      return true;
    case "contentEncoding":
      if (typeof val === "string" && val !== "base64" && !checked) {
        w.add(kp, `contentEncoding ${w.quoteShort(val)} is not one Core decodes, so it would be ignored; use "base64", add a "pattern" that checks it, or remove it`);
        return false;
      }
      return true;
    case "contentMediaType":
      if (typeof val === "string" && val !== "application/json") {
        w.add(kp, `contentMediaType ${w.quoteShort(val)} is not one Core checks, so it would be ignored; use "application/json", or remove it`);
        return false;
      }
      return true;
  }
  return true;
}

// src/validate.ts
var ROOT_PATH = "(root)";
var TOOL_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_.-]*$/;
var MAX_SAFE_INTEGER = 2 ** 53 - 1;
var MAX_SCHEMA_DEPTH = 32;
var isObject3 = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
var IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
var key = (p, k) => IDENTIFIER.test(k) ? p === "" ? k : `${p}.${k}` : `${p}[${quoteJSON(k)}]`;
var index = (p, i) => `${p}[${i}]`;
var show = (p) => p === "" ? ROOT_PATH : p;
function quoteJSON(s) {
  return JSON.stringify(s).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}
function quoteShort(s) {
  const runes = Array.from(s);
  return quoteJSON(runes.length > 60 ? runes.slice(0, 60).join("") + "…" : s);
}
var num = (n) => JSON.stringify(n);
function describe2(v) {
  if (v === null || v === void 0) return "null";
  if (Array.isArray(v)) return "an array";
  switch (typeof v) {
    case "string":
      return `the string ${quoteShort(v)}`;
    case "number":
      return `the number ${num(v)}`;
    case "boolean":
      return `${String(v)} (a boolean)`;
    default:
      return "an object";
  }
}
var NODE_TYPES = ["string", "number", "integer", "boolean", "array", "object"];
var ANY_NODE_KEYWORDS = ["description", "default", "examples", "type", "oneOf"];
var TYPE_KEYWORDS = {
  string: ["enum", "minLength", "maxLength", "pattern"],
  number: ["enum", "minimum", "maximum"],
  integer: ["enum", "minimum", "maximum"],
  boolean: ["enum"],
  array: ["items", "minItems", "maxItems", "uniqueItems"],
  object: ["properties", "required"]
};
var KEYWORD_TYPES = {};
for (const t of NODE_TYPES) for (const k of TYPE_KEYWORDS[t] ?? []) (KEYWORD_TYPES[k] ?? (KEYWORD_TYPES[k] = [])).push(t);
var UNSUPPORTED = {
  $ref: "inline the referenced schema where it is used",
  $defs: "inline each definition where it is used",
  definitions: "inline each definition where it is used",
  $schema: "remove it; the dialect is fixed",
  $id: "remove it",
  $anchor: "remove it and inline the schema",
  $comment: 'remove it, or move the text into "description"',
  title: 'use "description"',
  additionalProperties: "remove it; undeclared properties are accepted and the handler should ignore them",
  patternProperties: 'declare each property in "properties"',
  propertyNames: "check property names in the handler",
  minProperties: 'list the needed properties in "required"',
  maxProperties: "check it in the handler",
  dependentRequired: "check it in the handler",
  dependentSchemas: "check it in the handler",
  unevaluatedProperties: "remove it; undeclared properties are accepted and the handler should ignore them",
  unevaluatedItems: "remove it",
  prefixItems: 'use one "items" schema (with "oneOf" if items differ)',
  additionalItems: 'use one "items" schema',
  contains: "check it in the handler",
  minContains: "check it in the handler",
  maxContains: "check it in the handler",
  format: 'use "pattern", or describe the format in "description" and check it in the handler',
  exclusiveMinimum: 'use "minimum" (for an integer, the bound plus one)',
  exclusiveMaximum: 'use "maximum" (for an integer, the bound minus one)',
  multipleOf: 'describe it in "description" and check it in the handler',
  const: 'use "enum" with one value',
  allOf: "merge the schemas into one node",
  anyOf: 'use "oneOf" with options that do not overlap',
  not: "check it in the handler",
  if: 'use "oneOf", or check it in the handler',
  then: 'use "oneOf", or check it in the handler',
  else: 'use "oneOf", or check it in the handler',
  nullable: 'leave the property out of "required" instead of allowing null',
  contentEncoding: "check it in the handler",
  contentMediaType: "check it in the handler",
  contentSchema: "check it in the handler",
  readOnly: "remove it",
  writeOnly: "remove it",
  deprecated: 'remove it, or say so in "description"'
};
var TOOL_FIELD_HINTS = {
  parameters: "argsSchema",
  input_schema: "inputSchema",
  inputschema: "inputSchema",
  schema: "argsSchema",
  args: "argsSchema",
  args_schema: "argsSchema",
  argsschema: "argsSchema",
  arguments: "argsSchema",
  timeout: "timeoutMs",
  timeout_ms: "timeoutMs",
  timeoutMS: "timeoutMs",
  desc: "description",
  title: "description",
  toolName: "name",
  needs_approval: "needsApproval",
  requiresApproval: "needsApproval",
  requireApproval: "needsApproval",
  needsConsent: "needsApproval",
  approval: "needsApproval",
  hints: "annotations",
  annotation: "annotations",
  output_schema: "outputSchema",
  outputschema: "outputSchema",
  resultSchema: "outputSchema",
  returns: "outputSchema"
};
var TOOL_FIELDS = "name, description, argsSchema (or inputSchema), timeoutMs, annotations, needsApproval and outputSchema";
var HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "consequentialHint", "untrustedContentHint"];
var ANNOTATION_FIELDS = "title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint, consequentialHint and untrustedContentHint";
function annotationHint(k) {
  const norm = k.replace(/_/g, "").toLowerCase();
  return HINTS.find((h) => norm === h.toLowerCase() || norm + "hint" === h.toLowerCase()) ?? "";
}
var orList = (names) => names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
var has2 = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
var get = (o, k) => has2(o, k) ? o[k] : void 0;
var LOOKAROUND = "lookahead and lookbehind ((?=, (?!, (?<=, (?<!) are not supported because patterns run on RE2, which matches in linear time; rewrite the pattern without them, or check the rule in the handler";
var BACKREF = "backreferences (\\1, \\k<name>) are not supported because patterns run on RE2, which matches in linear time; rewrite the pattern without them, or check the rule in the handler";
var SYNTAX = "check its syntax (patterns are JavaScript regular expressions without lookaround or backreferences, run on RE2)";
function patternProblem(pattern) {
  const plain = pattern.split("\\\\").join("");
  if (/\(\?(=|!|<=|<!)/.test(plain)) return LOOKAROUND;
  if (/\\[1-9]|\\k</.test(plain)) return BACKREF;
  try {
    new RegExp(pattern);
  } catch {
    return SYNTAX;
  }
  return null;
}
var Checker = class {
  constructor() {
    __publicField(this, "problems", []);
  }
  add(p, message) {
    this.problems.push({ path: show(p), message });
  }
  skills(v) {
    if (!isObject3(v)) {
      this.add("", `skills must be an object {"guidance": "...", "tools": [...]}; got ${describe2(v)}`);
      return;
    }
    let sawTools = false;
    for (const k of Object.keys(v)) {
      const val = v[k];
      if (k === "guidance") {
        if (typeof val !== "string") this.add(key("", "guidance"), `guidance must be a string of instructions for the agent; got ${describe2(val)}`);
      } else if (k === "tools") {
        sawTools = true;
        this.tools(val, key("", "tools"));
      } else {
        this.add(key("", k), `unknown field ${quoteShort(k)} in skills; skills has only guidance and tools, so remove it`);
      }
    }
    if (!sawTools) this.add(key("", "tools"), 'tools is missing; add "tools": [...] with the tool definitions ([] for a session without tools)');
  }
  tools(v, p) {
    if (!Array.isArray(v)) {
      this.add(p, `tools must be an array of tool definitions; got ${describe2(v)}`);
      return;
    }
    const firstUse = /* @__PURE__ */ new Map();
    v.forEach((e, i) => this.tool(e, index(p, i), i, firstUse));
  }
  tool(v, p, i, firstUse) {
    if (!isObject3(v)) {
      this.add(p, `a tool definition must be an object {name, description, argsSchema, timeoutMs?}; got ${describe2(v)}`);
      return;
    }
    let sawName = false, sawDescription = false, sawArgs = false, sawInput = false, sawStandard = false;
    const standard = has2(v, "inputSchema");
    for (const k of Object.keys(v)) {
      const val = v[k];
      const fp = key(p, k);
      switch (k) {
        case "name":
          sawName = true;
          this.name(val, fp, i, firstUse);
          break;
        case "description":
          sawDescription = true;
          if (typeof val !== "string") this.add(fp, `description must be a string; got ${describe2(val)}`);
          else if (val.trim() === "") this.add(fp, "description is empty; say what the tool does, what it reads or changes, and when to prefer another tool");
          break;
        case "timeoutMs":
          this.timeout(val, fp);
          break;
        case "annotations":
          this.annotations(val, fp);
          break;
        case "needsApproval":
          this.flag(val, fp, "needsApproval", "true asks the user before every call");
          break;
        case "argsSchema":
          sawArgs = true;
          this.argsSchema(val, fp);
          break;
        case "inputSchema":
          sawStandard = true;
          this.standardSchema(val, fp, "inputSchema", "arguments are always a JSON object");
          break;
        case "outputSchema":
          if (standard) this.standardSchema(val, fp, "outputSchema", "a declared result is a JSON object, as MCP's structuredContent is");
          else this.outputSchema(val, fp);
          break;
        case "input":
          sawInput = true;
          this.add(fp, 'the legacy "input" shorthand is not supported; rename it to "argsSchema" and write an object schema: {"type": "object", "properties": {...}, "required": [...]}');
          break;
        case "handler":
          this.add(fp, "handler cannot be part of the manifest: handlers stay in the browser (the SDK removes them before sending the definitions); remove it from the JSON");
          break;
        default: {
          const want = has2(TOOL_FIELD_HINTS, k) ? TOOL_FIELD_HINTS[k] : void 0;
          if (want) this.add(fp, `unknown field ${quoteShort(k)} in a tool definition; did you mean ${quoteJSON(want)}? A definition has only ${TOOL_FIELDS}`);
          else this.add(fp, `unknown field ${quoteShort(k)} in a tool definition; a definition has only ${TOOL_FIELDS}, so remove it`);
        }
      }
    }
    if (!sawName) this.add(key(p, "name"), 'name is missing; add a name such as "update_counter" (an ASCII letter, then letters, digits, _, . or -)');
    if (!sawDescription) this.add(key(p, "description"), "description is missing; say what the tool does, what it reads or changes, and when to prefer another tool");
    if (sawArgs && sawStandard) {
      this.add(key(p, "inputSchema"), "a tool gives argsSchema or inputSchema, not both; keep inputSchema for standard JSON Schema, argsSchema for Pedelec's subset");
    }
    if (!sawArgs && !sawInput && !sawStandard) {
      this.add(key(p, "argsSchema"), 'argsSchema is missing; every tool needs an object schema, for a tool without arguments {"type": "object", "properties": {}, "required": []}');
    }
  }
  name(v, p, i, firstUse) {
    if (typeof v !== "string") {
      this.add(p, `name must be a string such as "update_counter"; got ${describe2(v)}`);
      return;
    }
    if (v === "") {
      this.add(p, 'name is empty; use an ASCII letter, then letters, digits, _, . or - (for example "update_counter")');
    } else if (!TOOL_NAME_PATTERN.test(v)) {
      if (!/^[a-zA-Z]/.test(v)) {
        this.add(p, `name ${quoteShort(v)} must start with an ASCII letter (the pattern is ^[a-zA-Z][a-zA-Z0-9_.-]*$); for example "update_counter"`);
      } else {
        const bad = Array.from(v).find((r) => !/^[a-zA-Z0-9_.-]$/.test(r)) ?? "";
        this.add(p, `name ${quoteShort(v)} contains ${quoteJSON(bad)}, which is not allowed; use only ASCII letters, digits, _, . and - (the pattern is ^[a-zA-Z][a-zA-Z0-9_.-]*$)`);
      }
    }
    if (v !== "") {
      const first = firstUse.get(v);
      if (first !== void 0) this.add(p, `name ${quoteShort(v)} is already used by tools[${first}]; tool names must be unique, so rename one of them`);
      else firstUse.set(v, i);
    }
  }
  annotations(v, p) {
    if (!isObject3(v)) {
      this.add(p, `annotations must be an object such as {"destructiveHint": true}; got ${describe2(v)}`);
      return;
    }
    for (const k of Object.keys(v)) {
      const val = v[k];
      const fp = key(p, k);
      if (k === "title") {
        if (typeof val !== "string") this.add(fp, `title must be a string; got ${describe2(val)}`);
      } else if (HINTS.includes(k)) {
        this.flag(val, fp, k, "a hint is a boolean; remove it to leave it unsaid");
      } else {
        const want = annotationHint(k);
        if (want) this.add(fp, `unknown annotation ${quoteShort(k)}; did you mean ${quoteJSON(want)}? annotations has only ${ANNOTATION_FIELDS}`);
        else this.add(fp, `unknown annotation ${quoteShort(k)}; annotations has only ${ANNOTATION_FIELDS}, so remove it`);
      }
    }
  }
  flag(v, p, name, hint) {
    if (typeof v !== "boolean") this.add(p, `${name} must be true or false; got ${describe2(v)} (${hint})`);
  }
  timeout(v, p) {
    const fix = "remove timeoutMs to use the default of 60000";
    if (typeof v === "string") {
      this.add(p, `timeoutMs must be a number of milliseconds, not a string; got ${describe2(v)} (write it without quotes, or ${fix})`);
    } else if (typeof v !== "number") {
      this.add(p, `timeoutMs must be a positive integer number of milliseconds; got ${describe2(v)} (${fix})`);
    } else if (v !== Math.trunc(v)) {
      this.add(p, `timeoutMs must be a whole number of milliseconds; got ${num(v)}`);
    } else if (v <= 0) {
      this.add(p, `timeoutMs must be positive; got ${num(v)} (${fix})`);
    } else if (v > MAX_SAFE_INTEGER) {
      this.add(p, `timeoutMs ${num(v)} is too large; use at most ${MAX_SAFE_INTEGER} milliseconds`);
    }
  }
  argsSchema(v, p) {
    if (!isObject3(v)) {
      this.add(p, `argsSchema must be an object schema such as {"type": "object", "properties": {...}, "required": [...]}; got ${describe2(v)}`);
      return;
    }
    const t = get(v, "type");
    if (!has2(v, "type")) {
      this.add(key(p, "type"), 'the argsSchema root must have "type": "object" (arguments are always a JSON object); add it, with {"type": "object", "properties": {}, "required": []} for a tool without arguments');
    } else if (typeof t === "string" && t !== "object") {
      this.add(key(p, "type"), `the argsSchema root must have "type": "object" (arguments are always a JSON object); got ${quoteShort(t)} — wrap the value in a property`);
    }
    this.node(v, p, 0, "object");
  }
  // Standard JSON Schema (standard-rules.ts): what the page can check
  // without a validator; what only the validator finds is Core's.
  standardSchema(v, p, field, why) {
    checkStandardSchema({ add: (path, message) => this.add(path, message), key, index, describe: describe2, quoteShort }, v, p, field, why);
  }
  // Like argsSchema: a declared result is an object, as MCP's structuredContent is.
  outputSchema(v, p) {
    if (!isObject3(v)) {
      this.add(p, `outputSchema must be an object schema such as {"type": "object", "properties": {...}, "required": [...]}; got ${describe2(v)}`);
      return;
    }
    const t = get(v, "type");
    if (!has2(v, "type")) {
      this.add(key(p, "type"), `the outputSchema root must have "type": "object" (a declared result is a JSON object, as MCP's structuredContent is); add it`);
    } else if (typeof t === "string" && t !== "object") {
      this.add(key(p, "type"), `the outputSchema root must have "type": "object" (a declared result is a JSON object, as MCP's structuredContent is); got ${quoteShort(t)} — return an object with the value in a property`);
    }
    this.node(v, p, 0, "object");
  }
  node(v, p, depth, assume) {
    if (!isObject3(v)) {
      if (typeof v === "boolean") this.add(p, 'boolean schemas are not supported; write an object schema such as {"type": "string"}');
      else this.add(p, `a schema must be an object such as {"type": "string"}; got ${describe2(v)}`);
      return;
    }
    if (depth > MAX_SCHEMA_DEPTH) {
      this.add(p, `schemas nested more than ${MAX_SCHEMA_DEPTH} levels deep are not supported; flatten the arguments`);
      return;
    }
    const [typ, typeOK] = this.nodeType(v, p, assume);
    for (const k of Object.keys(v)) {
      const val = v[k];
      const kp = key(p, k);
      const unsupported = has2(UNSUPPORTED, k) ? UNSUPPORTED[k] : void 0;
      const applies = has2(KEYWORD_TYPES, k) ? KEYWORD_TYPES[k] : void 0;
      if (ANY_NODE_KEYWORDS.includes(k)) {
        this.anyNodeKeyword(k, val, kp, depth);
      } else if (unsupported) {
        this.add(kp, `${k} is not supported by Pedelec's schema subset; ${unsupported}`);
      } else if (applies) {
        if (typeOK && (TYPE_KEYWORDS[typ] ?? []).includes(k)) this.typeKeyword(v, typ, k, val, kp, depth);
        else if (typeOK) this.add(kp, `${k} applies to ${orList(applies)} schemas, not ${typ}; remove it or change the type`);
        else if (typ === "") this.add(kp, `${k} needs a "type" (it applies to ${orList(applies)} schemas); add the type, or move ${k} into each oneOf option`);
      } else {
        this.add(kp, `${quoteShort(k)} is not a keyword of Pedelec's schema subset; ${supportedHint(typ, typeOK)}`);
      }
    }
    if (typeOK) this.pairs(v, p, typ);
  }
  nodeType(v, p, assume) {
    if (!has2(v, "type")) {
      if (assume !== "") return [assume, true];
      if (!["oneOf", "$ref", "allOf", "anyOf"].some((k) => has2(v, k))) {
        this.add(p, `the schema has no "type"; add "type" (one of ${orList(NODE_TYPES)}), or "oneOf" with the allowed forms`);
      }
      return ["", false];
    }
    const t = v.type;
    if (Array.isArray(t)) this.add(key(p, "type"), 'type must be one string; a list of types is not supported, so use "oneOf" with one schema per type');
    else if (typeof t !== "string") this.add(key(p, "type"), `type must be a string, one of ${orList(NODE_TYPES)}; got ${describe2(t)}`);
    else if (t === "null") this.add(key(p, "type"), 'type "null" is not supported; to make a value optional, leave it out of "required"');
    else if (!NODE_TYPES.includes(t)) this.add(key(p, "type"), `type ${quoteShort(t)} is not supported; use one of ${orList(NODE_TYPES)}`);
    else return [t, true];
    return ["invalid", false];
  }
  anyNodeKeyword(k, v, p, depth) {
    if (k === "description" && typeof v !== "string") this.add(p, `description must be a string; got ${describe2(v)}`);
    if (k === "examples" && !Array.isArray(v)) this.add(p, `examples must be an array of example values; got ${describe2(v)} (wrap it in [ ])`);
    if (k === "oneOf") {
      if (!Array.isArray(v)) this.add(p, `oneOf must be an array of schemas; got ${describe2(v)}`);
      else if (v.length === 0) this.add(p, "oneOf is empty, so no value could ever match; list at least one schema, or remove oneOf");
      else v.forEach((e, i) => this.node(e, index(p, i), depth + 1, ""));
    }
  }
  typeKeyword(n, typ, k, v, p, depth) {
    switch (k) {
      case "enum":
        return this.enum(typ, v, p);
      case "minLength":
      case "maxLength":
      case "minItems":
      case "maxItems":
        if (typeof v !== "number") this.add(p, `${k} must be a non-negative integer; got ${describe2(v)}`);
        else if (v !== Math.trunc(v) || v < 0) this.add(p, `${k} must be a non-negative integer; got ${num(v)}`);
        return;
      case "minimum":
      case "maximum":
        if (typeof v !== "number") this.add(p, `${k} must be a number; got ${describe2(v)}`);
        return;
      case "pattern":
        if (typeof v !== "string") this.add(p, `pattern must be a string holding a regular expression; got ${describe2(v)}`);
        else {
          const why = patternProblem(v);
          if (why) this.add(p, `pattern ${quoteShort(v)} is not a regular expression Pedelec can run; ${why}`);
        }
        return;
      case "uniqueItems":
        if (typeof v !== "boolean") this.add(p, `uniqueItems must be true or false; got ${describe2(v)}`);
        return;
      case "items":
        if (Array.isArray(v)) {
          this.add(p, 'items must be one schema; a list of schemas (tuple form) is not supported, so use one schema, with "oneOf" if items differ');
          return;
        }
        return this.node(v, p, depth + 1, "");
      case "properties":
        if (!isObject3(v)) {
          this.add(p, `properties must be an object mapping each property name to its schema; got ${describe2(v)}`);
          return;
        }
        for (const name of Object.keys(v)) this.node(v[name], key(p, name), depth + 1, "");
        return;
      case "required":
        return this.required(n, v, p);
    }
  }
  enum(typ, v, p) {
    if (!Array.isArray(v)) {
      this.add(p, `enum must be an array of the allowed ${typ} values; got ${describe2(v)}`);
      return;
    }
    if (v.length === 0) {
      this.add(p, `enum is empty, so no value could ever match; list the allowed ${typ} values, or remove enum`);
      return;
    }
    v.forEach((e, i) => {
      if (!matchesType(typ, e)) this.add(index(p, i), `enum values must be of the schema's type ${typ}; got ${describe2(e)}`);
    });
  }
  required(n, v, p) {
    if (!Array.isArray(v)) {
      this.add(p, `required must be an array of property names; got ${describe2(v)}`);
      return;
    }
    const props = get(n, "properties");
    v.forEach((e, i) => {
      if (typeof e !== "string") this.add(index(p, i), `required must list property names as strings; got ${describe2(e)}`);
      else if (!isObject3(props)) this.add(index(p, i), `required names ${quoteShort(e)}, but the schema has no properties; declare it in "properties" or remove it from required`);
      else if (!has2(props, e)) this.add(index(p, i), `required names ${quoteShort(e)}, which is not in properties; declare it in "properties" or remove it from required`);
    });
  }
  pairs(v, p, typ) {
    for (const [lo, hi] of [["minLength", "maxLength"], ["minimum", "maximum"], ["minItems", "maxItems"]]) {
      if (!(TYPE_KEYWORDS[typ] ?? []).includes(lo)) continue;
      const l = get(v, lo);
      const h = get(v, hi);
      if (typeof l === "number" && typeof h === "number" && l > h) {
        this.add(key(p, lo), `${lo} (${num(l)}) is greater than ${hi} (${num(h)}), so no value could match; lower ${lo} or raise ${hi}`);
      }
    }
  }
};
function matchesType(typ, v) {
  switch (typ) {
    case "string":
      return typeof v === "string";
    case "number":
      return typeof v === "number";
    case "integer":
      return typeof v === "number" && v === Math.trunc(v);
    case "boolean":
      return typeof v === "boolean";
    case "array":
      return Array.isArray(v);
    case "object":
      return isObject3(v);
  }
  return false;
}
function supportedHint(typ, typeOK) {
  if (typeOK) return `a ${typ} schema may use ${[...ANY_NODE_KEYWORDS, ...TYPE_KEYWORDS[typ] ?? []].join(", ")}`;
  return `every schema may use ${ANY_NODE_KEYWORDS.join(", ")}, plus the keywords of its type`;
}
function validateManifest(manifest) {
  const c = new Checker();
  c.skills(manifest);
  return c.problems;
}
function plainJsonProblem(value) {
  const checked = checkJson(value);
  if (checked.ok) return null;
  const { path, problem } = checked.problem;
  return { path: path === "$" ? ROOT_PATH : path.replace(/^\$\.?/, ""), message: `skills must be plain JSON, but this is ${problem}` };
}

// src/manifest.ts
function stripHandlers(skills) {
  if (typeof skills !== "object" || skills === null || Array.isArray(skills)) return skills;
  const tools = skills.tools;
  if (!Array.isArray(tools)) return skills;
  return {
    ...skills,
    tools: tools.map((tool) => {
      if (typeof tool !== "object" || tool === null || Array.isArray(tool)) return tool;
      const t = tool;
      const withSchema = isStandardSchema(t.inputSchema) ? { ...t, inputSchema: standardToJsonSchema(t.inputSchema, String(t.name)) } : t;
      if (typeof withSchema.handler !== "function") return withSchema;
      const { handler: _handler, ...def } = withSchema;
      return def;
    })
  };
}
function toManifest(skills) {
  const stripped = stripHandlers(skills);
  const problem = plainJsonProblem(stripped);
  if (problem) throw invalidInput([problem]);
  return JSON.parse(JSON.stringify(stripped));
}
function checkedManifest(skills) {
  const stripped = stripHandlers(skills);
  const jsonProblem = plainJsonProblem(stripped);
  if (jsonProblem) throw invalidInput([jsonProblem]);
  const clean = JSON.parse(JSON.stringify(stripped ?? null));
  const problems = validateManifest(clean);
  if (problems.length > 0) throw invalidInput(problems);
  return clean;
}
function invalidInput(problems) {
  const n = problems.length === 1 ? "1 problem" : `${problems.length} problems`;
  const parts = problems.map((p) => `${p.path}: ${p.message}`).join("; ");
  return new PedelecError("INVALID_INPUT", `${n} in the tool definitions: ${parts}`, { problems });
}

// src/providers.gen.ts
var ORIGINAL_PROVIDER_CODES = ["codex", "antigravity", "opencode", "cursor", "claude", "ollama"];
var PROVIDER_TITLES = {
  codex: "Codex",
  claude: "Claude Code",
  gemini: "Gemini CLI",
  opencode: "opencode",
  copilot: "GitHub Copilot CLI",
  openai: "OpenAI-compatible endpoint",
  ollama: "Ollama",
  qwen: "Qwen Code",
  "claude-acp": "Claude Code (ACP)",
  "codex-acp": "Codex (ACP)",
  script: "Script (deterministic, built in)",
  mcp: "MCP client",
  cursor: "Cursor",
  antigravity: "Antigravity"
};

// src/providers.ts
function isOriginalProvider(code) {
  return ORIGINAL_PROVIDER_CODES.includes(code);
}
function displayName(code) {
  return Object.prototype.hasOwnProperty.call(PROVIDER_TITLES, code) ? PROVIDER_TITLES[code] : code;
}
function providerInfo(p) {
  return {
    name: displayName(p.name),
    code: p.name,
    available: p.available === true,
    error: p.available ? null : p.reason || "not available"
  };
}
function unapprovedProviders(origin) {
  const reason = `this site${origin ? ` (${origin})` : ""} is not approved to use Pedelec Core yet: createSession() asks the user, and once approved listProviders() says which providers run here`;
  return { providers: Object.keys(PROVIDER_TITLES).map((name) => ({ name, available: false, reason })), defaultProvider: "" };
}
function settingsFrom(list, all) {
  const keep = (code) => all || isOriginalProvider(code);
  const defaultModels = {};
  for (const p of list.providers) {
    if (p.defaultModel && keep(p.name)) defaultModels[p.name] = p.defaultModel;
  }
  const def = list.defaultProvider && keep(list.defaultProvider) ? list.defaultProvider : null;
  return { defaultProvider: def, defaultModels };
}

// src/assets.ts
var MAX_ASSET_BYTES = 100 * 1024 * 1024;
var HEADER_NAME = "X-Pedelec-Asset-Name";
var HEADER_MODIFIED = "X-Pedelec-Asset-Modified-At";
function assetPathError(path) {
  const invalid2 = (why) => new PedelecError("ASSET_PATH_INVALID", `asset path ${JSON.stringify(path)} is invalid: ${why}`, { path });
  if (typeof path !== "string" || path === "") return invalid2("use a path like /report.json");
  if (!path.startsWith("/")) return invalid2("it must start with / (the assets directory is its root)");
  if (path.includes("\\")) return invalid2("it contains a backslash; separate segments with /");
  if (path.includes("\0")) return invalid2("it contains a NUL character");
  const unsafe = unsafeChar(path);
  if (unsafe) {
    const { at, code, kind } = unsafe;
    const hex = code.toString(16).toUpperCase().padStart(4, "0");
    return new PedelecError(
      "ASSET_PATH_INVALID",
      `asset path ${shown(path)} is invalid: it contains U+${hex} at byte ${at} (${kind}); names may not hold control or bidirectional formatting characters`,
      { path, character: `U+${hex}`, offset: at }
    );
  }
  for (const seg of path.slice(1).split("/")) {
    const decoded = seg.toLowerCase().replaceAll("%2e", ".");
    if (seg === "") return invalid2("it has an empty segment (a double or trailing /)");
    if (seg === "." || seg === "..") return invalid2(`it has a ${seg} segment`);
    if (decoded === "." || decoded === "..") return invalid2(`it has a percent-encoded ${decoded} segment`);
    if (seg.startsWith(".pedelec-")) return invalid2("segments starting with .pedelec- are reserved for Pedelec");
  }
  return null;
}
function unsafeChar(path) {
  let at = 0;
  for (const ch of path) {
    const code = ch.codePointAt(0);
    if (code < 32 || code === 127 || code >= 128 && code <= 159) return { at, code, kind: "a control character" };
    if (code >= 8234 && code <= 8238 || code >= 8294 && code <= 8297 || code === 8206 || code === 8207 || code === 1564) {
      return { at, code, kind: "a bidirectional formatting character" };
    }
    at += new TextEncoder().encode(ch).length;
  }
  return null;
}
function shown(path) {
  return JSON.stringify(path).replace(/[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c]/g, (c) => {
    return "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");
  });
}
function checkLive(s) {
  if (s.ended()) throw new PedelecError("SESSION_ENDED", `Session ${s.sessionId} has ended; its assets are gone`);
}
function transferUrl(s, relative) {
  const base = new URL(s.connection.url);
  base.protocol = base.protocol === "wss:" ? "https:" : "http:";
  return new URL(relative, base).toString();
}
async function httpError(resp, fallback, what, path) {
  try {
    const body = await resp.json();
    if (body && typeof body === "object" && body.error) return PedelecError.from(body.error);
  } catch {
  }
  return new PedelecError(fallback, `${what} ${path} failed with HTTP ${resp.status}`, { path, status: resp.status });
}
async function uploadAsset(s, file, targetPath) {
  checkLive(s);
  if (typeof Blob === "undefined" || !(file instanceof Blob)) {
    throw new PedelecError("INVALID_INPUT", "uploadAsset(file, targetPath?): file must be a File or Blob");
  }
  const name = typeof File !== "undefined" && file instanceof File ? file.name : "";
  const path = targetPath ?? `/${name}`;
  if (targetPath === void 0 && !name) {
    throw new PedelecError("ASSET_PATH_INVALID", "uploadAsset(blob) needs a targetPath: a Blob has no file name", { path: null });
  }
  const bad = assetPathError(path);
  if (bad) throw bad;
  if (file.size > MAX_ASSET_BYTES) {
    throw new PedelecError("ASSET_TOO_LARGE", `${path} is ${file.size} bytes; an asset may be at most ${MAX_ASSET_BYTES} bytes (100 MiB)`, {
      path,
      sizeBytes: file.size,
      limit: MAX_ASSET_BYTES
    });
  }
  let ticket;
  try {
    ticket = await s.connection.request("asset_upload_ticket", { sessionId: s.sessionId, path, sizeBytes: file.size });
  } catch (err) {
    throw asOriginalBusy(PedelecError.from(err));
  }
  const url = transferUrl(s, ticket.url);
  let resp;
  try {
    resp = await fetch(url, {
      method: "PUT",
      body: file,
      headers: { "Content-Type": "application/octet-stream" },
      credentials: "omit",
      cache: "no-store"
    });
  } catch (err) {
    checkLive(s);
    throw new PedelecError("ASSET_UPLOAD_SERVER_UNAVAILABLE", `Could not upload ${path} to Pedelec Core at ${new URL(url).origin}: ${String(err)}`, {
      path,
      url: new URL(url).origin
    });
  }
  if (!resp.ok) throw asOriginalBusy(await httpError(resp, "ASSET_UPLOAD_FAILED", "upload of", path));
  try {
    const body = await resp.json();
    return body.asset?.path ?? path;
  } catch (err) {
    throw new PedelecError("ASSET_UPLOAD_FAILED", `upload of ${path}: Core's answer was not readable: ${String(err)}`, { path });
  }
}
function asOriginalBusy(e) {
  if (e.code !== "ASSET_UPLOAD_BUSY") return e;
  const details = typeof e.details === "object" && e.details !== null ? e.details : {};
  return new PedelecError("SESSION_BUSY", e.message, { ...details, coreCode: e.code });
}
async function listAssets(s) {
  checkLive(s);
  const r = await s.connection.request("list_assets", { sessionId: s.sessionId });
  return (r.assets ?? []).map((a) => ({ ...a, path: a.path.startsWith("/") ? a.path : `/${a.path}` }));
}
async function readAsset(s, path, type) {
  checkLive(s);
  if (type !== "text" && type !== "json" && type !== "file") {
    throw new PedelecError("ASSET_PATH_INVALID", `readAsset(path, type): type must be "text", "json" or "file", not ${JSON.stringify(type)}`, { path, type: String(type) });
  }
  const bad = assetPathError(path);
  if (bad) throw bad;
  const ticket = await s.connection.request("asset_read_ticket", { sessionId: s.sessionId, path });
  const url = transferUrl(s, ticket.url);
  const failed = (why) => new PedelecError("ASSET_READ_FAILED", `read of ${path} failed: ${why}`, { path });
  let resp;
  try {
    resp = await fetch(url, { method: "GET", credentials: "omit", cache: "no-store" });
  } catch (err) {
    checkLive(s);
    throw failed(`Pedelec Core at ${new URL(url).origin} did not answer (${String(err)})`);
  }
  if (!resp.ok) throw await httpError(resp, "ASSET_READ_FAILED", "read of", path);
  let bytes;
  try {
    bytes = await resp.arrayBuffer();
  } catch (err) {
    checkLive(s);
    throw failed(`the transfer was cut short (${String(err)})`);
  }
  if (type === "file") {
    const name = decodeName(resp.headers.get(HEADER_NAME)) ?? ticket.asset?.name ?? path.slice(path.lastIndexOf("/") + 1);
    const modified = Number(resp.headers.get(HEADER_MODIFIED) ?? ticket.asset?.modifiedAt ?? Date.now());
    const mime = resp.headers.get("Content-Type") ?? ticket.mimeType ?? "application/octet-stream";
    return new File([bytes], name, { type: mime, lastModified: modified });
  }
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new PedelecError("ASSET_TEXT_DECODE_FAILED", `${path} is not valid UTF-8 text; read it as "file" instead`, { path });
  }
  if (type === "text") return text;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new PedelecError("ASSET_INVALID_JSON", `${path} is not valid JSON: ${err.message}`, {
      path,
      message: err.message
    });
  }
}
function decodeName(header) {
  if (!header) return null;
  try {
    return decodeURIComponent(header);
  } catch {
    return null;
  }
}

// src/seq.ts
var SeqGate = class {
  constructor(last = 0) {
    __publicField(this, "last", last);
  }
  /** True when the event is new; it then becomes the last one seen. */
  admit(seq) {
    if (typeof seq !== "number" || !Number.isFinite(seq) || seq <= this.last) return false;
    this.last = seq;
    return true;
  }
  get lastSeq() {
    return this.last;
  }
  /** Moves forward without handling (after a resume told us the current seq). */
  advanceTo(seq) {
    if (seq > this.last) this.last = seq;
  }
};

// src/mcp-result.ts
var BRAND = /* @__PURE__ */ Symbol.for("pedelec.mcpResult");
function mcpResult(result) {
  if (!isCallToolResult(result)) {
    throw new PedelecError("INVALID_INPUT", "mcpResult() takes {content: [blocks, each with a type], structuredContent?, isError?: boolean}");
  }
  return Object.defineProperty({ ...result }, BRAND, { value: true });
}
function isMcpResult(value) {
  return typeof value === "object" && value !== null && value[BRAND] === true;
}
function isCallToolResult(value) {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const v = value;
  if (!Array.isArray(v.content)) return false;
  if (v.isError !== void 0 && typeof v.isError !== "boolean") return false;
  return v.content.every((b) => typeof b === "object" && b !== null && typeof b.type === "string");
}
function readCallToolResult(value) {
  if (!isCallToolResult(value)) return { result: value };
  const texts = value.content.filter((b) => b.type === "text" && typeof b.text === "string").map((b) => b.text);
  if (value.isError === true) {
    return { error: texts.join("\n") || "the tool reported an error (isError: true) without a text content block" };
  }
  if (value.structuredContent !== void 0) return { result: value.structuredContent };
  if (texts.length === value.content.length) return { result: texts.length === 1 ? texts[0] : texts.join("\n") };
  return { result: value.content };
}

// src/refuse.ts
var CODE = /^[A-Z][A-Z0-9_]{0,63}$/;
var MAX_MESSAGE = 2e3;
var BRAND2 = /* @__PURE__ */ Symbol.for("pedelec.refusal");
var _a, _b;
var ToolRefusal = class extends (_b = Error, _a = BRAND2, _b) {
  constructor(input) {
    super(input.message);
    __publicField(this, "code");
    __publicField(this, "retryable");
    __publicField(this, _a, true);
    this.name = "ToolRefusal";
    this.code = input.code;
    this.retryable = input.retryable === true;
  }
  toJSON() {
    return { code: this.code, message: this.message, retryable: this.retryable };
  }
};
function refuse(input) {
  if (typeof input !== "object" || input === null) {
    throw new PedelecError("INVALID_INPUT", "refuse() takes {code, message, retryable?}");
  }
  if (typeof input.code !== "string" || !CODE.test(input.code)) {
    throw new PedelecError("INVALID_INPUT", `refuse(): code must be an upper-snake code such as "OUT_OF_STOCK" (A-Z, 0-9, _; at most 64); got ${JSON.stringify(input.code)}`, { path: "code" });
  }
  if (typeof input.message !== "string" || input.message.trim() === "") {
    throw new PedelecError("INVALID_INPUT", "refuse(): message is empty; say why the call was refused, for the agent to act on", { path: "message" });
  }
  if ([...input.message].length > MAX_MESSAGE) {
    throw new PedelecError("INVALID_INPUT", `refuse(): message is longer than ${MAX_MESSAGE} characters`, { path: "message" });
  }
  if (input.retryable !== void 0 && typeof input.retryable !== "boolean") {
    throw new PedelecError("INVALID_INPUT", "refuse(): retryable must be true or false", { path: "retryable" });
  }
  return new ToolRefusal(input);
}
function isRefusal(value) {
  return typeof value === "object" && value !== null && value[BRAND2] === true;
}

// src/handlers.ts
var HandlerRegistry = class {
  constructor(tools = []) {
    __publicField(this, "named", /* @__PURE__ */ new Map());
    __publicField(this, "inline", /* @__PURE__ */ new Map());
    __publicField(this, "fallback", null);
    /** The page's WebMCP tools' handlers, which change while the session lives (webmcp/link.ts). */
    __publicField(this, "dynamic", null);
    for (const tool of tools) {
      if (typeof tool?.handler === "function") this.inline.set(tool.name, tool.handler);
    }
  }
  /** Registers a named handler, replacing any earlier one for the name. */
  setNamed(name, handler) {
    this.named.set(name, handler);
    return () => {
      if (this.named.get(name) === handler) this.named.delete(name);
    };
  }
  /** Sets the one generic fallback, replacing the previous one. */
  setFallback(handler) {
    this.fallback = handler;
    return () => {
      if (this.fallback === handler) this.fallback = null;
    };
  }
  /** Sets where WebMCP tools' handlers are found: after named and inline ones, before the fallback. */
  setDynamic(lookup) {
    this.dynamic = lookup;
  }
  select(tool) {
    const named = this.named.get(tool);
    if (named) return { source: "named", run: named };
    const inline = this.inline.get(tool) ?? this.dynamic?.(tool);
    if (inline) return { source: "inline", run: inline };
    const fallback = this.fallback;
    if (fallback) return { source: "fallback", run: (args, ctx) => fallback(tool, args, ctx) };
    return { source: "none" };
  }
  /**
   * Runs the selected handler and turns whatever happens into a result.
   * It never throws: a throw, a rejected promise or a non-JSON value all
   * become error results, so the agent always gets an answer.
   */
  async run(tool, args, ctx, override) {
    const selected = override ? { source: "named", run: override } : this.select(tool);
    if (selected.source === "none") {
      const message = `No handler is registered in the page for tool "${tool}". Register one with session.onTool("${tool}", handler), give its definition an inline handler, or add a fallback with session.onTool((tool, args, ctx) => ...).`;
      return sdkFailure("none", "TOOL_HANDLER_NOT_FOUND", message, { tool });
    }
    let value;
    try {
      value = await selected.run(args, ctx);
    } catch (err) {
      if (isRefusal(err)) {
        return { result: null, source: selected.source, refusal: { code: err.code, message: err.message, retryable: err.retryable } };
      }
      const message = err instanceof Error ? err.message : typeof err === "string" ? err : safeString(err);
      return sdkFailure(selected.source, "TOOL_HANDLER_ERROR", message || `The handler for ${tool} threw.`, void 0);
    }
    const checked = toJsonResult(value);
    if (!checked.ok) {
      const { path, problem } = checked.problem;
      const message = `The handler for ${tool} returned a value that cannot be sent as JSON: ${path} is ${problem}.`;
      return sdkFailure(selected.source, "TOOL_RESULT_INVALID", message, { path });
    }
    if (!isMcpResult(value)) return { result: checked.value, source: selected.source };
    const content = checked.value.content;
    const read2 = readCallToolResult(checked.value);
    if ("error" in read2) return { ...sdkFailure(selected.source, "TOOL_HANDLER_ERROR", read2.error, void 0), content };
    return { result: read2.result, source: selected.source, content };
  }
};
function sdkFailure(source, code, message, details) {
  const result = toolErrorResult(code, message, details);
  return { result, source, failure: { code, message } };
}
function safeString(value) {
  try {
    return String(value);
  } catch {
    return "a value that cannot be printed";
  }
}

// src/progress.ts
var PROGRESS_EVERY_MS = 250;
function progressReporter(send) {
  let last = -Infinity;
  let waiting;
  let timer;
  let stopped = false;
  const flush = () => {
    timer = void 0;
    if (stopped || !waiting) return;
    const p = waiting;
    waiting = void 0;
    last = Date.now();
    send(p);
  };
  return {
    report(p) {
      const checked = checkProgress(p);
      if (stopped) return;
      waiting = checked;
      const wait = last + PROGRESS_EVERY_MS - Date.now();
      if (wait <= 0) flush();
      else if (timer === void 0) timer = setTimeout(flush, wait);
    },
    stop() {
      stopped = true;
      waiting = void 0;
      if (timer !== void 0) clearTimeout(timer);
      timer = void 0;
    }
  };
}
function checkProgress(p) {
  if (p === null || typeof p !== "object") throw new PedelecError("INVALID_INPUT", "ctx.progress takes an object: { progress, total?, message? }");
  const { progress, total, message } = p;
  if (typeof progress !== "number" || !Number.isFinite(progress) || progress < 0) {
    throw new PedelecError("INVALID_INPUT", `ctx.progress: progress must be a finite number >= 0, got ${String(progress)}`, { path: "progress" });
  }
  if (total !== void 0 && (typeof total !== "number" || !Number.isFinite(total) || total < 0)) {
    throw new PedelecError("INVALID_INPUT", `ctx.progress: total must be a finite number >= 0 or absent, got ${String(total)}`, { path: "total" });
  }
  if (message !== void 0 && typeof message !== "string") {
    throw new PedelecError("INVALID_INPUT", "ctx.progress: message must be a string", { path: "message" });
  }
  const out = { progress };
  if (total !== void 0) out.total = total;
  if (message !== void 0) out.message = message.length > 300 ? message.slice(0, 299) + "…" : message;
  return out;
}

// src/session/calls.ts
var Calls = class {
  constructor(s, tools, router) {
    __publicField(this, "s", s);
    __publicField(this, "router", router);
    __publicField(this, "registry");
    __publicField(this, "calls", /* @__PURE__ */ new Map());
    // One timer for the running calls' deadlines, armed for the earliest and
    // left armed when calls finish early (it then finds nothing to abort and
    // re-arms for the next), instead of a timer set and cleared per call.
    __publicField(this, "deadlineTimer");
    __publicField(this, "deadlineAt", Infinity);
    __publicField(this, "browserCalls", 0);
    /**
     * Set as a page that follows its session unloads (follow.ts): a call
     * that arrives now is the next page's, which gets it from Core after
     * the last event recorded for it. Run here too, it would run twice.
     */
    __publicField(this, "unloading", false);
    this.registry = new HandlerRegistry(tools);
    s.onEnd((ended) => {
      for (const [, call] of this.calls) abortCall(call, ended);
      this.calls.clear();
      clearTimeout(this.deadlineTimer);
      this.deadlineTimer = void 0;
    });
  }
  /** The calls this page runs now, oldest first. */
  running() {
    return [...this.calls].map(([toolRequestId, call]) => ({ toolRequestId, tool: call.tool }));
  }
  /** waiting plus the calls this page runs that it does not name. */
  withRunning(waiting) {
    const out = [...waiting];
    for (const [toolRequestId, call] of this.calls) {
      if (!out.some((p) => p.toolRequestId === toolRequestId)) out.push({ toolRequestId, tool: call.tool });
    }
    return out;
  }
  onTool(nameOrFallback, handler) {
    if (typeof nameOrFallback === "function") return this.registry.setFallback(nameOrFallback);
    if (typeof nameOrFallback !== "string") {
      throw new PedelecError("INVALID_INPUT", "onTool: pass a tool name and a handler, or one fallback function (tool, args, ctx) => result");
    }
    if (!TOOL_NAME_PATTERN.test(nameOrFallback)) {
      throw new PedelecError(
        "INVALID_INPUT",
        `onTool: ${JSON.stringify(nameOrFallback)} is not a tool name: it must start with a letter and contain only letters, digits, "_", "." and "-" (the pattern is ^[a-zA-Z][a-zA-Z0-9_.-]*$)`,
        { tool: nameOrFallback }
      );
    }
    if (typeof handler !== "function") {
      throw new PedelecError("INVALID_INPUT", `onTool(${JSON.stringify(nameOrFallback)}, handler): handler must be a function`, { tool: nameOrFallback });
    }
    return this.registry.setNamed(nameOrFallback, handler);
  }
  setDynamicHandlers(lookup) {
    this.registry.setDynamic(lookup);
  }
  /** Sends Core the session's whole new tool list; resolves with the names now in force. */
  async updateTools(tools) {
    const s = this.s;
    try {
      if (s.reconnected) await s.reconnected;
      const res = await s.connection.request("update_tools", { sessionId: s.sessionId, tools });
      return Array.isArray(res?.tools) ? res.tools : void 0;
    } catch (err) {
      const e = PedelecError.from(err);
      if (!s.ended) s.emitError(new PedelecError(e.code, `Core refused the page's new tool list: ${e.message}`, e.details), "sdk");
      throw e;
    }
  }
  /** Runs a tool's handler for the browser's own agent: no Core turn is behind it. */
  async runForBrowser(tool, input, signal) {
    const now = Date.now();
    const ctx = {
      ...this.s.context("sdk"),
      type: "tool_call",
      toolRequestId: `webmcp_${++this.browserCalls}`,
      tool,
      turnId: "",
      turnStartedAt: now,
      eventReceivedAt: now,
      deadline: Number.MAX_SAFE_INTEGER,
      timeoutMs: 0,
      redelivered: false,
      signal
    };
    const outcome = await this.registry.run(tool, input ?? {}, ctx);
    if (outcome.failure) throw new PedelecError(outcome.failure.code, outcome.failure.message, { tool });
    return outcome.result;
  }
  /** tool_call_settled: the call no longer waits for this page. */
  settled(data) {
    const s = this.s;
    s.waitingOn = s.waitingOn.filter((p) => p.toolRequestId !== data.toolRequestId);
    const call = this.calls.get(data.toolRequestId);
    if (!call || data.outcome === "result") return;
    abortCall(call, settledReason(data));
  }
  /** tool_call: runs the call's handler and submits its outcome. */
  async dispatch(turnId, data, eventReceivedAt) {
    const s = this.s;
    const { toolRequestId, tool } = data;
    if (this.unloading) return;
    if (this.calls.has(toolRequestId)) return;
    const controller = new AbortController();
    const deadline = typeof data.deadline === "number" ? data.deadline : eventReceivedAt + (data.timeoutMs ?? 6e4);
    const call = { tool, controller, deadline };
    this.calls.set(toolRequestId, call);
    if (deadline < this.deadlineAt) this.watchDeadlines(deadline);
    else keepAlive(this.deadlineTimer, true);
    const waiting = s.waitingOn.some((p) => p.toolRequestId === toolRequestId) ? s.waitingOn : [...s.waitingOn, { toolRequestId, tool }];
    s.setStatus("waiting_tool_result", "sdk", waiting);
    const ctx = {
      ...s.context("core", eventReceivedAt, turnId || void 0),
      type: "tool_call",
      toolRequestId,
      tool,
      turnId,
      turnStartedAt: data.turnStartedAt,
      eventReceivedAt,
      deadline,
      timeoutMs: data.timeoutMs,
      redelivered: data.redelivered === true,
      signal: controller.signal
    };
    const reporter = progressReporter((p) => this.sendProgress(toolRequestId, tool, p, turnId));
    ctx.progress = reporter.report;
    const outcome = await this.registry.run(tool, data.args, ctx, this.router?.(toolRequestId, tool)).finally(reporter.stop);
    if (this.calls.get(toolRequestId) === call) this.calls.delete(toolRequestId);
    if (this.calls.size === 0) keepAlive(this.deadlineTimer, false);
    s.waitingOn = s.waitingOn.filter((p) => p.toolRequestId !== toolRequestId);
    if (outcome.failure?.code === "TOOL_RESULT_INVALID") {
      const cause = { code: outcome.failure.code, message: outcome.failure.message };
      s.emitError(new PedelecError("SUBMIT_TOOL_RESULT_FAILED", outcome.failure.message, { tool, toolRequestId, cause }), "sdk", void 0, turnId);
    }
    if (s.ended) return;
    await this.submit(toolRequestId, tool, outcome.result, turnId, outcome.refusal, outcome.content);
  }
  /** Sends one (rate-limited) progress report to Core and shows it to onStatus. */
  sendProgress(toolRequestId, tool, p, turnId) {
    const s = this.s;
    if (s.ended || !this.calls.has(toolRequestId)) return;
    s.connection.request("tool_progress", { sessionId: s.sessionId, toolRequestId, ...p }).catch(() => {
    });
    s.emitStatusDetail("sdk", { progress: { ...p, toolRequestId, tool } }, void 0, turnId || void 0);
  }
  /** Arms the deadline timer for at, the earliest deadline of a running call. */
  watchDeadlines(at) {
    clearTimeout(this.deadlineTimer);
    this.deadlineAt = at;
    this.deadlineTimer = setTimeout(() => {
      this.deadlineTimer = void 0;
      this.deadlineAt = Infinity;
      const now = Date.now();
      let next = Infinity;
      for (const call of this.calls.values()) {
        if (call.deadline <= now) {
          if (!call.controller.signal.aborted) {
            call.controller.abort(new PedelecError("TOOL_TIMEOUT", `The deadline for ${call.tool} passed; Core no longer waits for its result`));
          }
        } else if (call.deadline < next) next = call.deadline;
      }
      if (next !== Infinity && !this.s.ended) this.watchDeadlines(next);
    }, Math.max(0, at - Date.now()));
  }
  async submit(toolRequestId, tool, result, turnId, refusal, mcpContent) {
    const s = this.s;
    try {
      if (s.reconnected) await s.reconnected;
      const params = refusal ? { sessionId: s.sessionId, toolRequestId, refusal } : mcpContent ? { sessionId: s.sessionId, toolRequestId, mcpContent, result } : { sessionId: s.sessionId, toolRequestId, result };
      await s.connection.request("submit_tool_result", params);
    } catch (err) {
      const cause = PedelecError.from(err);
      if (cause.code === "CORE_UNREACHABLE" && !s.ended && s.reconnected) {
        await s.reconnected;
        if (!s.ended) return this.submit(toolRequestId, tool, result, turnId, refusal, mcpContent);
        return;
      }
      if (cause.code === "TOOL_RESULT_INVALID") {
        s.emitError(new PedelecError("TOOL_RESULT_INVALID", cause.message, { ...cause.details, tool, toolRequestId }), "sdk", void 0, turnId);
        return;
      }
      if (cause.code === "MESSAGE_TOO_LARGE") {
        const message = `The result of ${tool} is larger than Core accepts; return less data (page through it, or summarize)`;
        s.emitError(new PedelecError("SUBMIT_TOOL_RESULT_FAILED", message, { tool, toolRequestId, cause: { code: "MESSAGE_TOO_LARGE", message } }), "sdk", void 0, turnId);
        return this.submit(toolRequestId, tool, { error: { code: "MESSAGE_TOO_LARGE", message } }, turnId);
      }
      if (s.ended) return;
      s.emitError(
        new PedelecError(
          "SUBMIT_TOOL_RESULT_FAILED",
          `Core refused the result of ${tool} (${toolRequestId}): ${cause.code}: ${cause.message}`,
          { tool, toolRequestId, cause: cause.toJSON() }
        ),
        "sdk",
        void 0,
        turnId
      );
    }
  }
};
function abortCall(call, reason) {
  if (!call.controller.signal.aborted) call.controller.abort(reason);
}
function settledReason(data) {
  switch (data.outcome) {
    case "timeout":
      return new PedelecError("TOOL_TIMEOUT", `Core stopped waiting for ${data.tool}: its timeout passed`);
    case "cancelled":
      return new PedelecError("TOOL_CALL_CANCELLED", `The agent cancelled its call to ${data.tool}`);
    case "interrupted":
      return new PedelecError("TURN_INTERRUPTED", `Core stopped while ${data.tool} ran; the call was not answered`);
    default:
      return new PedelecError("SESSION_ENDED", `The call to ${data.tool} was settled by Core (${data.outcome})`);
  }
}

// src/listeners.ts
var Emitter = class {
  constructor() {
    __publicField(this, "listeners", /* @__PURE__ */ new Set());
  }
  add(listener) {
    if (typeof listener !== "function") throw new TypeError("Pedelec: a listener must be a function");
    const entry = (...args) => listener(...args);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }
  emit(...args) {
    for (const listener of [...this.listeners]) {
      try {
        listener(...args);
      } catch (err) {
        reportListenerError(err);
      }
    }
  }
  get size() {
    return this.listeners.size;
  }
};
function reportListenerError(err) {
  setTimeout(() => {
    throw err;
  }, 0);
}

// src/session/state.ts
var STATUSES = ["idle", "running", "waiting_tool_result", "waiting_approval", "ended", "error"];
function sessionStatusOf(status, originApproval) {
  if (status !== "waiting_approval") return status;
  return originApproval ? "error" : "waiting_tool_result";
}
var SessionState = class {
  constructor(id, connection, seq, status, onForget) {
    __publicField(this, "id", id);
    __publicField(this, "connection", connection);
    __publicField(this, "seq", seq);
    __publicField(this, "onForget", onForget);
    /** The detailed status (waiting_approval included); getStatus() maps it to the original's five. */
    __publicField(this, "status");
    __publicField(this, "waitingOn", []);
    /** The origin approval a reconnect waits for (status waiting_approval with no calls). */
    __publicField(this, "originApproval");
    __publicField(this, "ended", false);
    /** Core's status as of the last resume, to know whether a turn can still end. */
    __publicField(this, "coreStatus", "idle");
    /** The connection dropped and the session has not been resumed yet. */
    __publicField(this, "reconnecting", false);
    /** Settles when the session is resumed (or given up on); null while connected. */
    __publicField(this, "reconnected", null);
    __publicField(this, "markReconnected", null);
    __publicField(this, "chat", new Emitter());
    __publicField(this, "statusEmitter", new Emitter());
    __publicField(this, "errors", new Emitter());
    __publicField(this, "endedEmitter", new Emitter());
    /** The turn a listener's context names (set by turns.ts). */
    __publicField(this, "turnRef", () => void 0);
    /** Stops routing Core's events here (set once subscribed). */
    __publicField(this, "unsubscribe", () => {
    });
    /** Run in order when the session ends, with the error pending work fails with. */
    __publicField(this, "endHooks", []);
    /** Run once when the session ends (webmcp/: stop following the page's tools, unregister from the browser). */
    __publicField(this, "cleanups", []);
    this.status = status;
    if (status === "ended") this.ended = true;
  }
  get sessionId() {
    return this.id.sessionId;
  }
  sessionStatus() {
    return sessionStatusOf(this.status, this.originApproval);
  }
  getWaitingOn() {
    return this.waitingOn.map((p) => ({ ...p }));
  }
  endedError() {
    return new PedelecError("SESSION_ENDED", `Session ${this.sessionId} has ended`);
  }
  /** fn runs when the session ends, before its listeners hear it. */
  onEnd(fn) {
    this.endHooks.push(fn);
  }
  /** Runs fn when the session ends (at once if it has). */
  onCleanup(fn) {
    if (this.ended) fn();
    else this.cleanups.push(fn);
  }
  /** The context fields every listener gets. */
  context(source, eventReceivedAt, turnId) {
    const ctx = {
      sessionId: this.sessionId,
      provider: this.id.provider,
      sessionCreatedAt: this.id.sessionCreatedAt,
      eventEmittedAt: Date.now(),
      source
    };
    if (this.id.model !== void 0) ctx.model = this.id.model;
    if (eventReceivedAt !== void 0) ctx.eventReceivedAt = eventReceivedAt;
    const turn = this.turnRef(turnId);
    if (turn) {
      if (turn.turnId) ctx.turnId = turn.turnId;
      if (turn.turnStartedAt) ctx.turnStartedAt = turn.turnStartedAt;
      ctx.turnKind = turn.turnKind;
    }
    return ctx;
  }
  emitError(error, source, eventReceivedAt, turnId) {
    const ctx = { ...this.context(source, eventReceivedAt, turnId), type: source === "core" ? "error" : "sdk_error" };
    this.errors.emit(error, ctx);
  }
  setStatus(status, source, waitingOn, receivedAt, originApproval) {
    if (this.ended && status !== "ended") return;
    this.waitingOn = status === "waiting_tool_result" || status === "waiting_approval" ? waitingOn.map((p) => ({ ...p })) : [];
    const previousStatus = this.sessionStatus();
    this.originApproval = originApproval;
    if (status === this.status) return;
    const previousDetailedStatus = this.status;
    this.status = status;
    if (this.statusEmitter.size === 0) return;
    const ctx = {
      ...this.context(source, receivedAt),
      type: source === "core" ? "status_changed" : "sdk_status_changed",
      status: this.sessionStatus(),
      previousStatus,
      detailedStatus: status,
      previousDetailedStatus,
      waitingOn: this.getWaitingOn()
    };
    if (originApproval) ctx.originApproval = { ...originApproval };
    this.statusEmitter.emit(ctx.status, ctx);
  }
  /** Shows something that changes no status (a step, a progress report) to onStatus. */
  emitStatusDetail(source, detail, receivedAt, turnId) {
    if (this.statusEmitter.size === 0) return;
    const ctx = {
      ...this.context(source, receivedAt, turnId),
      type: source === "core" ? "status_changed" : "sdk_status_changed",
      status: this.sessionStatus(),
      previousStatus: this.sessionStatus(),
      detailedStatus: this.status,
      previousDetailedStatus: this.status,
      waitingOn: this.getWaitingOn(),
      ...detail
    };
    this.statusEmitter.emit(ctx.status, ctx);
  }
  markEnded(reason, source, receivedAt) {
    if (this.ended) return;
    this.setStatus("ended", source, [], receivedAt);
    this.ended = true;
    const ctx = { ...this.context(source, receivedAt), type: source === "core" ? "ended" : "sdk_ended", reason };
    const ended = new PedelecError("SESSION_ENDED", `Session ${this.sessionId} ended (${reason})`, { reason });
    for (const fn of this.endHooks) fn(ended);
    this.unsubscribe();
    for (const fn of this.cleanups.splice(0)) {
      try {
        fn();
      } catch {
      }
    }
    this.onForget?.();
    this.endedEmitter.emit(ctx);
  }
  startReconnect() {
    this.reconnecting = true;
    this.reconnected = new Promise((resolve2) => this.markReconnected = resolve2);
  }
  finishReconnect() {
    this.reconnecting = false;
    this.markReconnected?.();
    this.markReconnected = null;
    this.reconnected = null;
  }
};

// src/session/events.ts
function routeEvent(s, turns, calls, ev) {
  if (s.ended || !s.seq.admit(ev.seq)) return;
  const receivedAt = Date.now();
  switch (ev.event) {
    case "status_changed": {
      const d = ev.data;
      if (!STATUSES.includes(d.status)) return;
      const waiting = d.status === "waiting_approval" ? [...d.waitingOn ?? []] : calls.withRunning(d.waitingOn ?? []);
      s.setStatus(d.status, "core", waiting, receivedAt);
      return;
    }
    case "agent_activity": {
      const a = ev.data;
      if (!a || typeof a.toolCallId !== "string") return;
      return s.emitStatusDetail("core", { activity: { ...a } }, receivedAt, ev.turnId);
    }
    case "chat_delta":
      return turns.delta(ev.turnId, ev.data?.text, receivedAt);
    case "tool_call":
      void calls.dispatch(ev.turnId ?? "", ev.data, receivedAt);
      return;
    case "tool_call_settled":
      return calls.settled(ev.data);
    case "error": {
      const d = ev.data;
      s.emitError(PedelecError.from(d.error), "core", receivedAt, ev.turnId);
      return;
    }
    case "done":
      return turns.done(ev.turnId, ev.data);
    case "ended":
      return s.markEnded(ev.data?.reason ?? "ended", "core", receivedAt);
    case "events_truncated": {
      const d = ev.data;
      const err = PedelecError.from(d?.error ?? { code: "EVENTS_TRUNCATED", message: "Some of this session's events were lost while the page was away" });
      s.emitError(err, "core", receivedAt);
      turns.truncated(err);
      return;
    }
  }
}

// src/session/reconnect.ts
var Reconnect = class {
  constructor(s, turns, calls) {
    __publicField(this, "s", s);
    __publicField(this, "turns", turns);
    __publicField(this, "calls", calls);
  }
  /** The connection closed; running turns and handlers are kept unless the session ends with its page. */
  connectionLost(err) {
    const s = this.s;
    if (s.ended || s.reconnecting) return;
    s.startReconnect();
    s.setStatus("error", "sdk", []);
    const lost = new PedelecError("CORE_UNREACHABLE", `${err.message}; reconnecting`, { reconnecting: true, cause: PedelecError.from(err).toJSON() });
    this.turns.connectionLost(lost);
    s.emitError(lost, "sdk");
  }
  /** One attempt: resume with the last seq handled, so Core replays every event after it, once and in order. */
  async resume() {
    const s = this.s;
    if (s.ended || !s.reconnecting) return "done";
    let info;
    try {
      info = await s.connection.request("resume_session", { sessionId: s.sessionId, lastSeq: s.seq.lastSeq });
    } catch (err) {
      const e = PedelecError.from(err);
      if (worthRetrying(e)) return "retry";
      s.finishReconnect();
      s.markEnded(e.code === "SESSION_ENDED" ? "disconnect" : e.code.toLowerCase(), "core");
      return "done";
    }
    s.finishReconnect();
    s.coreStatus = STATUSES.includes(info.status) ? info.status : "idle";
    s.setStatus(s.coreStatus, "core", this.calls.running());
    return "done";
  }
  /** Core no longer approves this origin and the user is being asked: status waiting_approval with no calls. */
  approvalPending(pending) {
    const s = this.s;
    if (s.ended || !s.reconnecting) return;
    s.setStatus("waiting_approval", "sdk", [], void 0, { ...pending });
  }
  /** Core went away again while the user decided: back to plain reconnecting. */
  approvalInterrupted() {
    const s = this.s;
    if (s.ended || !s.reconnecting || !s.originApproval) return;
    s.setStatus("error", "sdk", []);
  }
  /** The user rejected the origin (or did not decide in time) while the session waited to resume. */
  approvalFailed(err) {
    const s = this.s;
    if (s.ended) return;
    s.finishReconnect();
    s.emitError(err, "sdk");
    s.markEnded(err.code.toLowerCase(), "sdk");
  }
  /** The page closed the client: Core ends autoEndOnDisconnect sessions. */
  clientClosed() {
    this.s.finishReconnect();
    if (this.s.id.autoEndOnDisconnect) this.s.markEnded("disconnect", "sdk");
  }
  /** Reconnecting failed for good. */
  failed(err) {
    const s = this.s;
    if (s.ended) return;
    s.finishReconnect();
    s.emitError(err, "sdk");
    s.markEnded("core_unreachable", "sdk");
  }
};

// src/session/turns.ts
var Turns = class {
  constructor(s) {
    __publicField(this, "s", s);
    __publicField(this, "turn", null);
    __publicField(this, "preparing", null);
    __publicField(this, "prepared", false);
    __publicField(this, "earlyDone", /* @__PURE__ */ new Map());
    __publicField(this, "otherTurns", /* @__PURE__ */ new Map());
    s.turnRef = (turnId) => this.ref(turnId);
    s.onEnd((ended) => {
      const turn = this.turn;
      this.turn = null;
      turn?.reject(ended);
    });
  }
  async sendTurn(text) {
    if (typeof text !== "string") {
      throw new PedelecError("INVALID_INPUT", "sendText(text): text must be a string");
    }
    if (this.preparing) await this.preparing.catch(() => {
    });
    return this.start((s) => s.connection.request("send_text", { sessionId: s.sessionId, text }), "user");
  }
  prepare() {
    if (this.s.ended) return Promise.reject(this.s.endedError());
    if (this.turn?.kind === "user") {
      return Promise.reject(new PedelecError("SESSION_BUSY", "prepare() during a user turn: the session is already running one; prepare before the first sendText", { turnId: this.turn.turnId }));
    }
    if (this.prepared) return Promise.resolve();
    if (this.preparing) return this.preparing;
    const p = this.start((s) => s.connection.request("prepare", { sessionId: s.sessionId }), "prepare").then(() => {
      this.prepared = true;
    });
    this.preparing = p;
    const clear = () => {
      if (this.preparing === p) this.preparing = null;
    };
    p.then(clear, clear);
    return p;
  }
  /** The turn a listener's context names: this page's, or one it did not start. */
  ref(turnId) {
    const turn = this.turn;
    if (turn && (turnId === void 0 || turn.turnId === null || turn.turnId === turnId)) {
      const ref2 = { turnKind: turn.kind };
      if (turn.turnId) ref2.turnId = turn.turnId;
      if (turn.startedAt) ref2.turnStartedAt = turn.startedAt;
      return ref2;
    }
    if (!turnId) return void 0;
    const ref = { turnId, turnKind: "user" };
    const other = this.otherTurns.get(turnId);
    if (other) ref.turnStartedAt = other.startedAt;
    return ref;
  }
  async start(send, kind) {
    const s = this.s;
    if (s.ended) throw s.endedError();
    if (this.turn) {
      throw new PedelecError(
        "SESSION_BUSY",
        "A turn is already running in this session; wait for it to finish (its sendText promise settles) before sending another",
        { turnId: this.turn.turnId }
      );
    }
    let resolve2;
    let reject;
    const done = new Promise((res, rej) => {
      resolve2 = res;
      reject = rej;
    });
    if (s.reconnecting) {
      throw new PedelecError("CORE_UNREACHABLE", "The connection to Pedelec Core is lost; the session reconnects by itself. Send again once its status changes.", { reconnecting: true });
    }
    const turn = { turnId: null, startedAt: Date.now(), kind, text: "", resolve: resolve2, reject };
    this.turn = turn;
    const before = s.status;
    s.setStatus("running", "sdk", []);
    try {
      const started = await send(s);
      turn.turnId = started.turnId;
      if (typeof started.startedAt === "number") turn.startedAt = started.startedAt;
    } catch (err) {
      const e = PedelecError.from(err);
      if (this.turn === turn) this.turn = null;
      if (e.code === "SESSION_ENDED" || e.code === "THREAD_NOT_FOUND") s.markEnded("end_session", "sdk");
      else if (s.status === "running" && !s.ended) s.setStatus(before, "sdk", s.waitingOn);
      throw e;
    }
    const early = turn.turnId ? this.earlyDone.get(turn.turnId) : void 0;
    if (early && turn.turnId) {
      this.earlyDone.delete(turn.turnId);
      this.finish(turn, early);
    }
    return done;
  }
  finish(turn, data) {
    const s = this.s;
    if (this.turn === turn) this.turn = null;
    if (s.status === "running" && !s.ended) s.setStatus(data.ok ? "idle" : "error", "sdk", []);
    if (data.ok) {
      turn.resolve({ turnId: turn.turnId ?? "", startedAt: turn.startedAt, text: turn.text });
    } else {
      turn.reject(PedelecError.from(data.error ?? { code: "PROVIDER_ERROR", message: "The turn failed" }));
    }
  }
  /** chat_delta: the assistant's text, this page's turn's or another's. */
  delta(turnId, text, receivedAt) {
    if (typeof text !== "string") return;
    const s = this.s;
    const turn = this.turn;
    const mine = turn && (turn.turnId === null || !turnId || turn.turnId === turnId) ? turn : null;
    if (mine) {
      mine.text += text;
      if (mine.kind === "prepare") return;
      const id = turnId ?? mine.turnId ?? "";
      const base2 = s.context("core", receivedAt, turnId);
      s.chat.emit(text, { ...base2, type: "chat_delta", turnId: id, turnStartedAt: mine.startedAt, eventReceivedAt: receivedAt, text: mine.text });
      return;
    }
    if (!turnId) return;
    const other = this.otherTurns.get(turnId) ?? { text: "", startedAt: receivedAt };
    other.text += text;
    this.otherTurns.set(turnId, other);
    const base = s.context("core", receivedAt, turnId);
    s.chat.emit(text, { ...base, type: "chat_delta", turnId, turnStartedAt: other.startedAt, eventReceivedAt: receivedAt, text: other.text });
  }
  /** done: a turn is over. */
  done(turnId, data) {
    if (turnId) this.otherTurns.delete(turnId);
    const turn = this.turn;
    if (turn && (turn.turnId === turnId || !turnId)) return this.finish(turn, data ?? { ok: true });
    if (turn && turn.turnId === null && turnId && data) this.earlyDone.set(turnId, data);
  }
  /**
   * Events were lost for good: the turn's done may be among them. If Core
   * is no longer running the turn, it will not come.
   */
  truncated(err) {
    const s = this.s;
    const turn = this.turn;
    if (turn && s.coreStatus !== "running" && s.coreStatus !== "waiting_tool_result" && s.coreStatus !== "waiting_approval") {
      this.turn = null;
      turn.reject(err);
    }
  }
  /**
   * The connection dropped. Core ends an autoEndOnDisconnect session when
   * its page goes: its turn cannot finish, so the pending sendText rejects
   * now, as the original's did on a disconnect. A session that outlives
   * its page keeps its turn across the reconnect (Core replays what
   * happened meanwhile).
   */
  connectionLost(lost) {
    const turn = this.turn;
    if (turn && this.s.id.autoEndOnDisconnect && this.s.id.disconnectGraceMs === 0) {
      this.turn = null;
      turn.reject(lost);
    }
  }
};

// src/session.ts
var PedelecSession = class {
  /** @internal Sessions come from Pedelec.createSession / resumeSession. */
  constructor(init) {
    /** Core's id for this session; keep it to resumeSession() after a reload. */
    __publicField(this, "sessionId");
    /** The provider running the agent (codex, claude, openai, script, ...). */
    __publicField(this, "provider");
    /** The model, when one was chosen (explicitly or by Core's configuration). */
    __publicField(this, "model");
    /** When this session object was constructed (browser Date.now()). */
    __publicField(this, "sessionCreatedAt");
    /** Pedelec Core addition: the tool names Core registered for this session. */
    __publicField(this, "tools");
    /** Pedelec Core addition: whether Core ends the session when this page disconnects. */
    __publicField(this, "autoEndOnDisconnect");
    /** Pedelec Core addition: how long Core waits for the next page before a disconnect ends the session (followPage); 0 without. */
    __publicField(this, "disconnectGraceMs");
    __publicField(this, "state");
    __publicField(this, "turns");
    __publicField(this, "calls");
    __publicField(this, "reconnect");
    if (!init?.info || !init.connection) {
      throw new TypeError("Pedelec: sessions come from pedelec.createSession() or pedelec.resumeSession()");
    }
    const { info } = init;
    this.sessionId = info.sessionId;
    this.provider = info.provider ?? "";
    if (info.model) this.model = info.model;
    this.sessionCreatedAt = Date.now();
    this.tools = Object.freeze([...info.tools ?? []]);
    this.autoEndOnDisconnect = info.autoEndOnDisconnect !== false;
    this.disconnectGraceMs = typeof info.disconnectGraceMs === "number" ? info.disconnectGraceMs : 0;
    const id = {
      sessionId: this.sessionId,
      provider: this.provider,
      sessionCreatedAt: this.sessionCreatedAt,
      autoEndOnDisconnect: this.autoEndOnDisconnect,
      disconnectGraceMs: this.disconnectGraceMs
    };
    const status = STATUSES.includes(info.status) ? info.status : "idle";
    const s = new SessionState(this.model === void 0 ? id : { ...id, model: this.model }, init.connection, new SeqGate(info.seq ?? 0), status, init.onForget);
    this.state = s;
    this.turns = new Turns(s);
    this.calls = new Calls(s, init.tools, init.router);
    this.reconnect = new Reconnect(s, this.turns, this.calls);
    s.unsubscribe = s.connection.subscribe(this.sessionId, (ev) => routeEvent(s, this.turns, this.calls, ev));
  }
  // ---- turns ----
  /**
   * Starts one user turn. Resolves when the turn is over; rejects with the
   * turn's error, SESSION_BUSY when a turn is already running (one at a
   * time), or SESSION_ENDED when the session ends first. The text arrives
   * through onChat; sendTurn() also resolves with it.
   */
  async sendText(text) {
    await this.turns.sendTurn(text);
  }
  /**
   * Pedelec Core addition: sendText that resolves with the turn's record,
   * {turnId, startedAt, text}, text being the whole assistant message.
   */
  sendTurn(text) {
    return this.turns.sendTurn(text);
  }
  /**
   * Warms the provider up before the first user turn; its chat is not
   * delivered. Idempotent once it succeeded; concurrent callers share one
   * promise. SESSION_BUSY during a user turn, SESSION_ENDED after end.
   */
  prepare() {
    return this.turns.prepare();
  }
  /**
   * Ends the session: Core stops its provider and fails its pending calls.
   * Resolves at once on an ended session. When Core cannot be told, it
   * reports the error through onError, rejects, and the session stays as it was.
   */
  async end() {
    const s = this.state;
    if (s.ended) return;
    try {
      await s.connection.request("end_session", { sessionId: this.sessionId });
    } catch (err) {
      const e = PedelecError.from(err);
      if (e.code !== "THREAD_NOT_FOUND" && e.code !== "SESSION_ENDED") {
        s.emitError(e, "sdk");
        throw e;
      }
    }
    s.markEnded("end_session", "sdk");
  }
  /**
   * True while the connection to Core is lost and the SDK is reconnecting
   * (status "error", an onError CORE_UNREACHABLE with details.reconnecting).
   * When Core is back the session is resumed by itself, the events it
   * missed are replayed, and the status becomes Core's again.
   */
  isReconnecting() {
    return this.state.reconnecting;
  }
  /**
   * The current status, one of the original's five: idle, running,
   * waiting_tool_result (a call waiting for the user's consent included),
   * ended or error (reconnecting included). getDetailedStatus() tells more.
   */
  getStatus() {
    return this.state.sessionStatus();
  }
  /**
   * Pedelec Core addition: the status with Core's consent state:
   * "waiting_approval" while a call waits for the user's consent
   * (getWaitingOn() lists it with its approvalId), or while a reconnect
   * waits for this origin's approval (getOriginApproval()).
   */
  getDetailedStatus() {
    return this.state.status;
  }
  /**
   * Pedelec Core addition: the origin approval this session waits for
   * while it reconnects ({origin, requestId, url, error?}; error is
   * OPEN_POPUP_FAILED when the window was blocked), or null.
   */
  getOriginApproval() {
    const pending = this.state.originApproval;
    return pending ? { ...pending } : null;
  }
  /**
   * Pedelec Core addition: the calls the agent waits on right now (while
   * waiting_tool_result), oldest first; each with its approvalId while it
   * waits for the user's consent (detailed status waiting_approval).
   */
  getWaitingOn() {
    return this.state.getWaitingOn();
  }
  // ---- listeners ----
  /** Streams the assistant's text of user turns: (delta, ctx); ctx.text is the turn's message so far. */
  onChat(handler) {
    return this.state.chat.add(handler);
  }
  /** Status changes, deduplicated; not called with the initial status (use getStatus()). */
  onStatus(handler) {
    return this.state.statusEmitter.add(handler);
  }
  /**
   * Errors that belong to no promise: Core's error events (ctx.source
   * "core"), a result that could not be submitted (SUBMIT_TOOL_RESULT_FAILED:
   * Core refused it, or it is not JSON), a lost connection, a failed end().
   * A handler that throws, or no handler, is told to the agent only.
   */
  onError(handler) {
    return this.state.errors.add(handler);
  }
  /** Called once when the session first becomes ended. */
  onEnded(handler) {
    return this.state.endedEmitter.add(handler);
  }
  onTool(nameOrFallback, handler) {
    return this.calls.onTool(nameOrFallback, handler);
  }
  uploadAsset(file, targetPath) {
    return uploadAsset(this.assetSession(), file, targetPath);
  }
  /** Every regular file in assets/, at every level, newest first, then by name. */
  listAssets() {
    return listAssets(this.assetSession());
  }
  readAsset(path, type) {
    return readAsset(this.assetSession(), path, type);
  }
  assetSession() {
    const s = this.state;
    return { connection: s.connection, sessionId: s.sessionId, ended: () => s.ended };
  }
  // ---- hooks for the client and webmcp/ ----
  /** @internal Where the page's WebMCP tools' handlers are looked up. */
  setDynamicHandlers(lookup) {
    this.calls.setDynamicHandlers(lookup);
  }
  /** @internal The calls whose handlers run now in this page (follow.ts records them when the page goes). */
  runningCalls() {
    return this.calls.running();
  }
  /** @internal The seq of the last event this page handled. */
  lastSeq() {
    return this.state.seq.lastSeq;
  }
  /**
   * @internal The seq of the last event this page handled, as the page
   * unloads (follow.ts leaves it to the next page); from then on calls are
   * the next page's to run.
   */
  unloadingAt() {
    this.calls.unloading = true;
    return this.state.seq.lastSeq;
  }
  /** @internal Runs fn when the session ends (at once if it has). */
  onCleanup(fn) {
    this.state.onCleanup(fn);
  }
  /** @internal Reports an error that belongs to no promise, through onError. */
  reportError(err) {
    this.state.emitError(err, "sdk");
  }
  /**
   * @internal Sends Core the session's whole new tool list (update_tools).
   * Core's refusal is reported through onError and rejects.
   */
  async updateTools(tools) {
    if (this.state.ended) return;
    const names = await this.calls.updateTools(tools);
    if (names) this.tools = Object.freeze([...names]);
  }
  /**
   * @internal Runs a tool's handler for the browser's own agent (a native
   * document.modelContext): the same handler Core's calls get, with a
   * context that says no Core turn is behind it. Rejects with the
   * handler's error message.
   */
  runForBrowser(tool, input, signal) {
    return this.calls.runForBrowser(tool, input, signal);
  }
  /**
   * @internal The connection to Core closed. The session waits in a visible
   * reconnecting state ("error", with an onError CORE_UNREACHABLE whose
   * details say reconnecting) while the client retries; a running turn and
   * running handlers are kept: Core replays what happened meanwhile.
   */
  connectionLost(err) {
    this.reconnect.connectionLost(err);
  }
  /**
   * @internal One reconnect attempt: resume with the last seq handled, so
   * Core replays every event after it, once and in order.
   */
  resumeAfterReconnect() {
    return this.reconnect.resume();
  }
  /**
   * @internal After a reconnect, Core no longer approves this origin and the
   * user is being asked: the session says it waits for approval (status
   * waiting_approval with no calls, ctx.originApproval naming the window)
   * and stays reconnecting until the decision.
   */
  approvalPending(pending) {
    this.reconnect.approvalPending(pending);
  }
  /** @internal Core went away again while the user decided: back to plain reconnecting. */
  approvalInterrupted() {
    this.reconnect.approvalInterrupted();
  }
  /** @internal The user rejected the origin (or did not decide in time) while the session waited to resume. */
  approvalFailed(err) {
    this.reconnect.approvalFailed(err);
  }
  /** @internal The page closed the client: Core ends autoEndOnDisconnect sessions. */
  clientClosed() {
    this.reconnect.clientClosed();
  }
  /** @internal Reconnecting failed for good. */
  reconnectFailed(err) {
    this.reconnect.failed(err);
  }
};

// src/leaving.ts
var LEAVE_WAIT_MS = 1e4;
var following = /* @__PURE__ */ new WeakMap();
function markFollowing(session) {
  if (!following.has(session)) following.set(session, /* @__PURE__ */ new Map());
}
function leftBy(session) {
  return Object.fromEntries(following.get(session) ?? []);
}
function holdAsThePageLeaves(session, toolRequestId, value) {
  const left = following.get(session);
  if (!left || typeof addEventListener !== "function") return null;
  left.set(toolRequestId, value);
  return new Promise((resolve2) => {
    const stay = () => {
      removeEventListener("pagehide", gone);
      left.delete(toolRequestId);
      resolve2(value);
    };
    const timer = setTimeout(stay, LEAVE_WAIT_MS);
    const gone = () => clearTimeout(timer);
    addEventListener("pagehide", gone, { once: true });
  });
}

// src/webmcp/form-schema.ts
var SKIPPED_INPUTS = /* @__PURE__ */ new Set(["hidden", "file", "submit", "reset", "button", "image"]);
var SHAPED = {
  date: ["^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$", "A date, YYYY-MM-DD"],
  time: ["^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,3})?)?$", "A time, HH:MM"],
  "datetime-local": ["^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,3})?)?$", "A local date and time, YYYY-MM-DDTHH:MM"],
  month: ["^[0-9]{4}-(0[1-9]|1[0-2])$", "A month, YYYY-MM"],
  week: ["^[0-9]{4}-W(0[1-9]|[1-4][0-9]|5[0-3])$", "A week, YYYY-Www"],
  color: ["^#[0-9a-fA-F]{6}$", "A colour, #rrggbb"]
};
function formParams(form) {
  const byName = /* @__PURE__ */ new Map();
  for (const el of Array.from(form.elements)) {
    if (!isParamControl(el)) continue;
    const name = el.name;
    let p = byName.get(name);
    if (!p) byName.set(name, p = { name, controls: [] });
    p.controls.push(el);
  }
  return [...byName.values()];
}
function isParamControl(el) {
  if (!(el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement)) return false;
  if (!el.name || el.matches(":disabled")) return false;
  if (el instanceof HTMLSelectElement) return true;
  if (el.readOnly) return false;
  return !(el instanceof HTMLInputElement && SKIPPED_INPUTS.has(el.type));
}
function synthesizeFormSchema(form) {
  const schema = { type: "object", properties: {}, required: [] };
  for (const p of formParams(form)) {
    schema.properties[p.name] = paramSchema(p);
    if (p.controls.some((c) => c.required)) schema.required.push(p.name);
  }
  return schema;
}
function paramSchema(p) {
  const first = p.controls[0];
  let s;
  let described;
  if (first instanceof HTMLSelectElement) {
    const options = Array.from(first.options).filter((o) => !o.disabled);
    const values = options.map((o) => o.value);
    described = choices(options.map((o) => [o.value, o.label || o.text]));
    const item = { type: "string", enum: unique(values) };
    s = first.multiple ? { type: "array", items: item, uniqueItems: true } : item;
  } else if (first instanceof HTMLInputElement && first.type === "radio") {
    const radios = p.controls;
    s = { type: "string", enum: unique(radios.map((r) => r.value)) };
    described = choices(radios.map((r) => [r.value, labelOf(r)]));
  } else if (first instanceof HTMLInputElement && first.type === "checkbox") {
    const boxes = p.controls;
    if (boxes.length === 1) s = { type: "boolean" };
    else {
      s = { type: "array", items: { type: "string", enum: unique(boxes.map((b) => b.value)) }, uniqueItems: true };
      described = choices(boxes.map((b) => [b.value, labelOf(b)]));
    }
  } else if (first instanceof HTMLInputElement && (first.type === "number" || first.type === "range")) {
    s = numberSchema(first);
  } else if (first instanceof HTMLInputElement && SHAPED[first.type]) {
    const [pattern, words] = SHAPED[first.type];
    s = { type: "string", pattern };
    described = words + boundsInWords(first);
  } else {
    s = stringSchema(first);
  }
  const title = attr(p.controls, "toolparamtitle");
  if (title) s.title = title;
  const own = attr(p.controls, "toolparamdescription") ?? labelOfGroup(p);
  const description = [own, described].filter(Boolean).join(". ");
  if (description) s.description = description;
  return s;
}
function stringSchema(el) {
  const s = { type: "string" };
  if (el.minLength > 0) s.minLength = el.minLength;
  if (el.maxLength >= 0) s.maxLength = el.maxLength;
  if (el instanceof HTMLInputElement && el.pattern && validPattern(el.pattern)) {
    s.pattern = `^(?:${el.pattern})$`;
  }
  return s;
}
function validPattern(p) {
  try {
    new RegExp(p, "v");
    return true;
  } catch {
    return false;
  }
}
function numberSchema(el) {
  const min = finite(el.min) ?? (el.type === "range" ? 0 : void 0);
  const max = finite(el.max) ?? (el.type === "range" ? 100 : void 0);
  const stepAttr = el.getAttribute("step");
  const step = stepAttr === null ? 1 : stepAttr.trim().toLowerCase() === "any" ? void 0 : finite(stepAttr) ?? 1;
  const base = min ?? 0;
  const whole = step !== void 0 && step > 0 && Number.isInteger(step) && Number.isInteger(base);
  const s = { type: whole ? "integer" : "number" };
  if (step !== void 0 && step > 0 && step !== 1 && base === 0) s.multipleOf = step;
  if (min !== void 0) s.minimum = min;
  if (max !== void 0) s.maximum = max;
  return s;
}
function finite(v) {
  if (v === null || v === void 0 || v.trim() === "") return void 0;
  const n = Number(v);
  return Number.isFinite(n) ? n : void 0;
}
function boundsInWords(el) {
  const parts = [];
  if (el.min) parts.push(`from ${el.min}`);
  if (el.max) parts.push(`to ${el.max}`);
  return parts.length ? ` (${parts.join(" ")})` : "";
}
function choices(pairs) {
  const told = pairs.filter(([v, l]) => l && l.trim() !== v).map(([v, l]) => `${JSON.stringify(v)} (${l.trim()})`);
  return told.length ? `One of: ${told.join(", ")}` : void 0;
}
function unique(values) {
  return [...new Set(values)];
}
function attr(controls, name) {
  for (const c of controls) {
    const v = c.getAttribute(name)?.trim();
    if (v) return v;
  }
  return void 0;
}
function labelOf(el) {
  const label = el.labels?.[0];
  if (!label) return "";
  const copy = label.cloneNode(true);
  copy.querySelectorAll("select, textarea, input").forEach((n) => n.remove());
  return (copy.textContent ?? "").replace(/\s+/g, " ").trim();
}
function labelOfGroup(p) {
  const first = p.controls[0];
  const grouped = first instanceof HTMLInputElement && (first.type === "radio" || first.type === "checkbox" && p.controls.length > 1);
  if (grouped) {
    const legend = first.closest("fieldset")?.querySelector("legend")?.textContent;
    return legend ? legend.replace(/\s+/g, " ").trim() : "";
  }
  return labelOf(first);
}

// src/webmcp/shared.ts
function pageShared(key2, make) {
  const sym = /* @__PURE__ */ Symbol.for(`pedelec.webmcp.${key2}`);
  const g = globalThis;
  let v = g[sym];
  if (v === void 0) {
    v = make();
    Object.defineProperty(globalThis, sym, { value: v, configurable: false, enumerable: false, writable: false });
  }
  return v;
}

// src/webmcp/form-call.ts
function shared() {
  return pageShared("formcalls.v1", () => {
    const s = { byEvent: /* @__PURE__ */ new WeakMap(), pending: /* @__PURE__ */ new Map() };
    window.addEventListener("submit", (ev) => claim(s, ev), true);
    window.addEventListener("submit", (ev) => finish(s, ev), false);
    patchSubmitEvent(s);
    return s;
  });
}
function claim(s, ev) {
  const form = ev.target;
  if (!(form instanceof HTMLFormElement)) return;
  const w = s.pending.get(form);
  if (!w) return;
  s.pending.delete(form);
  w.event = ev;
  s.byEvent.set(ev, w);
  setTimeout(() => finish(s, ev), 0);
}
function finish(s, ev) {
  const w = s.byEvent.get(ev);
  if (!w?.settle) return;
  const settle = w.settle;
  w.settle = void 0;
  settle(ev);
}
function domError(message, name) {
  return typeof DOMException === "function" ? new DOMException(message, name) : Object.assign(new Error(message), { name });
}
function patchSubmitEvent(s) {
  if (typeof SubmitEvent === "undefined" || "respondWith" in SubmitEvent.prototype) return;
  Object.defineProperty(SubmitEvent.prototype, "agentInvoked", {
    configurable: true,
    get() {
      return s.byEvent.has(this);
    }
  });
  Object.defineProperty(SubmitEvent.prototype, "respondWith", {
    configurable: true,
    writable: true,
    value(response) {
      const w = s.byEvent.get(this);
      if (!w) throw domError("respondWith: this submission was not made by an agent (SubmitEvent.agentInvoked is false)", "InvalidStateError");
      if (!this.defaultPrevented) throw domError("respondWith: call preventDefault() on the submit event first, so the form does not also navigate", "InvalidStateError");
      if (w.response) throw domError("respondWith: already called for this submission", "InvalidStateError");
      w.response = Promise.resolve(response);
    }
  });
}
function watchSubmission(form) {
  const s = shared();
  const w = { form };
  const submitted = new Promise((resolve2, reject) => {
    w.settle = () => resolve2(w);
    w.fail = reject;
  });
  submitted.catch(() => {
  });
  s.pending.get(form)?.fail?.(new Error("another call of this tool filled the form before it was submitted"));
  s.pending.set(form, w);
  return {
    submitted,
    cancel: () => {
      if (s.pending.get(form) === w) s.pending.delete(form);
      w.settle = void 0;
    }
  };
}
var navigations = pageShared("formNavigations.v1", () => /* @__PURE__ */ new WeakSet());
function isNavigation(value) {
  return typeof value === "object" && value !== null && navigations.has(value);
}
async function submissionResult(w) {
  if (w.response) {
    let value;
    try {
      value = await w.response;
    } catch (err) {
      throw err instanceof Error ? err : new Error(`the page's respondWith promise rejected: ${String(err)}`);
    }
    return value === void 0 ? null : value;
  }
  const { form, event } = w;
  const submitter = event.submitter;
  if (event.defaultPrevented) {
    return {
      submitted: true,
      navigated: false,
      note: "The page handled the submission itself and gave no result (it called preventDefault() without SubmitEvent.respondWith()); look at the page to see what it did."
    };
  }
  const method = (submitter?.getAttribute("formmethod") ? submitter.formMethod : form.method).toLowerCase();
  if (method === "dialog") return { submitted: true, navigated: false, note: "The form closed its dialog." };
  const action = new URL(submitter?.getAttribute("formaction") ? submitter.formAction : form.action, document.baseURI);
  if (method === "get") {
    const data = new FormData(form, submitter ?? void 0);
    action.search = new URLSearchParams(data).toString();
  }
  const target = (submitter?.getAttribute("formtarget") ?? form.target) || "_self";
  const result = { submitted: true, navigated: true, url: action.href, method: method.toUpperCase() };
  if (target !== "_self") result.target = target;
  else navigations.add(result);
  return result;
}
function fillForm(form, input) {
  for (const p of formParams(form)) {
    if (!Object.prototype.hasOwnProperty.call(input, p.name)) continue;
    const value = input[p.name];
    const first = p.controls[0];
    if (first instanceof HTMLInputElement && (first.type === "checkbox" || first.type === "radio")) {
      const boxes = p.controls;
      const want = (b) => first.type === "radio" ? b.value === value : boxes.length === 1 ? value === true : Array.isArray(value) && value.includes(b.value);
      for (const b of boxes) if (b.checked !== want(b) && (first.type !== "radio" || want(b))) b.click();
      continue;
    }
    if (first instanceof HTMLSelectElement && first.multiple) {
      const wanted = new Set(Array.isArray(value) ? value.map(String) : [String(value)]);
      for (const o of Array.from(first.options)) o.selected = wanted.has(o.value);
      fire(first);
      continue;
    }
    setValue(first, value === null || value === void 0 ? "" : String(value));
  }
}
function setValue(el, value) {
  const proto = Object.getPrototypeOf(el);
  const setter = Object.getOwnPropertyDescriptor(proto, "value")?.set;
  if (setter) setter.call(el, value);
  else el.value = value;
  fire(el);
}
function fire(el) {
  el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
}
function submitButton(form) {
  for (const el of Array.from(form.elements)) {
    if (el instanceof HTMLButtonElement && el.type === "submit" && !el.disabled) return el;
    if (el instanceof HTMLInputElement && (el.type === "submit" || el.type === "image") && !el.disabled) return el;
  }
  return null;
}
function invalidFields(form) {
  const bad = [];
  for (const el of Array.from(form.elements)) {
    const c = el;
    if (typeof c.checkValidity === "function" && c.willValidate && !c.checkValidity()) bad.push(`${c.name || c.id || c.tagName.toLowerCase()}: ${c.validationMessage}`);
  }
  return bad.join("; ");
}
async function callForm(form, input, signal) {
  if (signal?.aborted) throw signal.reason;
  if (!form.isConnected) throw new Error(`the form of this tool is no longer in the page`);
  fillForm(form, input ?? {});
  const watch = watchSubmission(form);
  const autosubmit = form.hasAttribute("toolautosubmit");
  const stopped = new Promise((_, reject) => {
    signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
    form.addEventListener("reset", () => reject(new Error("the form was reset while the call ran")), { once: true });
  });
  stopped.catch(() => {
  });
  try {
    if (autosubmit) {
      form.requestSubmit();
      const w2 = await Promise.race([watch.submitted, nextTask2().then(() => null)]);
      if (!w2) throw new Error(`the form refused the values: ${invalidFields(form) || "it did not submit"}`);
      return await Promise.race([submissionResult(w2), stopped]);
    }
    const button = submitButton(form);
    if (!button) throw new Error("the form has no toolautosubmit and no submit button: the user cannot submit it (add toolautosubmit, or a submit button)");
    button.focus();
    const w = await Promise.race([watch.submitted, stopped]);
    return await Promise.race([submissionResult(w), stopped]);
  } finally {
    watch.cancel();
  }
}
function nextTask2() {
  return new Promise((r) => setTimeout(r, 0));
}

// src/webmcp/tools.ts
var NO_INPUT = { type: "object", properties: {} };
function webmcpHandler(reg, leaving) {
  return async (args, ctx) => {
    const raw = await reg.execute(args, { signal: ctx.signal });
    const held = leaving && isNavigation(raw) ? leaving(ctx.toolRequestId, raw) : null;
    if (held) return held;
    const value = asJson(raw);
    return isCallToolResult(value) ? mcpResult(value) : value;
  };
}
function asJson(value) {
  const text = JSON.stringify(value);
  return text === void 0 ? null : JSON.parse(text);
}
function convert(reg, leaving) {
  const inputSchema = reg.inputSchema === void 0 ? NO_INPUT : JSON.parse(reg.inputSchema);
  let annotations;
  if (reg.annotations || reg.title !== void 0) {
    annotations = { ...reg.annotations };
    if (reg.title !== void 0) annotations.title = reg.title;
  }
  const def = { name: reg.name, description: reg.description, inputSchema };
  if (annotations) def.annotations = annotations;
  const problems = validateManifest({ guidance: "", tools: [JSON.parse(JSON.stringify(def))] }).map((p) => ({
    path: p.path.replace(/^tools\[0\]\.inputSchema/, "inputSchema").replace(/^tools\[0\]\.?/, ""),
    message: p.message
  }));
  if (problems.length > 0) return { reg, problems };
  def.handler = webmcpHandler(reg, leaving);
  return { reg, def };
}
function refusedTools(refused) {
  const problems = refused.flatMap(
    ({ reg, problems: problems2 }) => problems2.map((p) => ({ path: `webmcp[${JSON.stringify(reg.name)}].${p.path || "(tool)"}`, message: p.message, tool: reg.name }))
  );
  const parts = problems.map((p) => `WebMCP tool ${JSON.stringify(p.tool)}: ${p.path.replace(/^webmcp\[[^\]]*\]\./, "")}: ${p.message}`);
  const n = refused.length === 1 ? "1 WebMCP tool" : `${refused.length} WebMCP tools`;
  return new PedelecError(
    "INVALID_INPUT",
    `${n} cannot be offered to Pedelec's agents: ${parts.join("; ")}. Pedelec takes a subset of JSON Schema and refuses other keywords rather than ignore them (docs/webmcp.md)`,
    { problems, tools: refused.map((r) => r.reg.name) }
  );
}

// src/webmcp/registrations.ts
var WEBMCP_NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;
var Registrations = class {
  constructor() {
    __publicField(this, "tools", /* @__PURE__ */ new Map());
    __publicField(this, "listeners", /* @__PURE__ */ new Set());
  }
  has(name) {
    return this.tools.has(name);
  }
  get(name) {
    return this.tools.get(name);
  }
  list() {
    return [...this.tools.values()];
  }
  add(reg) {
    this.tools.set(reg.name, reg);
    this.changed();
  }
  /** Removes reg if it is still the registration for its name. */
  remove(reg) {
    if (this.tools.get(reg.name) !== reg) return false;
    this.tools.delete(reg.name);
    this.changed();
    return true;
  }
  /** Called after every change, synchronously; returns the unsubscribe. */
  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
  changed() {
    for (const fn of [...this.listeners]) {
      try {
        fn();
      } catch {
      }
    }
  }
};
var registrations = pageShared("registrations.v1", () => new Registrations());

// src/webmcp/link.ts
function currentWebMCPTools(defined, leaving) {
  const taken = new Set(defined.map((t) => t?.name));
  const offered = [];
  const refused = [];
  for (const reg of registrations.list()) {
    if (taken.has(reg.name)) {
      refused.push({ reg, problems: [{ path: "name", message: `a tool defined with defineTool in this session is also named ${JSON.stringify(reg.name)}; rename one of them` }] });
      continue;
    }
    const c = convert(reg, leaving);
    if ("problems" in c) refused.push(c);
    else offered.push(c);
  }
  return { offered, refused };
}
function manifestOf(defs) {
  return defs.map((d) => {
    const { handler: _h, ...rest } = d;
    return JSON.parse(JSON.stringify(rest));
  });
}
function linkWebMCP(session, definedNow, sent) {
  const handlers = /* @__PURE__ */ new Map();
  const reported = /* @__PURE__ */ new WeakSet();
  let lastSent = sent === null ? null : JSON.stringify(sent);
  let scheduled = false;
  let running = Promise.resolve();
  let stopped = false;
  const leaving = (id, value) => holdAsThePageLeaves(session, id, value);
  const refresh = (report) => {
    const defined = definedNow();
    const { offered, refused } = currentWebMCPTools(defined, leaving);
    handlers.clear();
    for (const c of offered) if ("def" in c && c.def.handler) handlers.set(c.def.name, c.def.handler);
    const fresh = report ? refused.filter((r) => !reported.has(r.reg)) : [];
    for (const r of fresh) reported.add(r.reg);
    if (fresh.length > 0) session.reportError(refusedTools(fresh));
    return manifestOf([...defined, ...offered.map((c) => c.def)]);
  };
  const flush = async () => {
    scheduled = false;
    if (stopped) return;
    const manifest = refresh(true);
    const text = JSON.stringify(manifest);
    if (text === lastSent) return;
    lastSent = text;
    try {
      await session.updateTools(manifest);
    } catch {
      lastSent = null;
    }
  };
  const schedule = () => {
    if (scheduled || stopped) return;
    scheduled = true;
    queueMicrotask(() => {
      running = running.then(flush);
    });
  };
  refresh(false);
  const off = registrations.subscribe(schedule);
  session.onCleanup(() => {
    stopped = true;
    off();
  });
  setTimeout(schedule, 0);
  return { handler: (tool) => handlers.get(tool), schedule, sent: () => nextTask2().then(() => running) };
}

// src/page-tools.ts
var PageTools = class {
  /** base: the tools createSession/resumeSession was given; sent: what Core has now, null when unknown (a resume). */
  constructor(session, base, sent) {
    __publicField(this, "session", session);
    __publicField(this, "base", base);
    __publicField(this, "added", /* @__PURE__ */ new Map());
    __publicField(this, "link", null);
    __publicField(this, "lastSent");
    __publicField(this, "scheduled", false);
    __publicField(this, "running", Promise.resolve());
    this.lastSent = sent === null ? null : JSON.stringify(sent);
    session.setDynamicHandlers((tool) => this.added.get(tool)?.handler ?? this.link?.handler(tool));
  }
  /**
   * The session's own tools now: the base ones, then the added ones by
   * name, so a tool removed and added again (StrictMode) leaves the list,
   * and what Core is sent, as it was.
   */
  defined() {
    const added = [...this.added.values()].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
    return [...this.base, ...added];
  }
  followWebMCP(sent) {
    this.link = linkWebMCP(this.session, () => this.defined(), sent);
  }
  add(def) {
    const name = def?.name;
    if (this.session.getStatus() === "ended") throw new PedelecError("SESSION_ENDED", `addTool(${JSON.stringify(name)}): the session has ended`);
    checkedManifest({ guidance: "", tools: [def] });
    if (this.base.some((t) => t.name === name) || this.added.has(name)) {
      throw new PedelecError("INVALID_INPUT", `addTool: this session already has a tool named ${JSON.stringify(name)}; remove it first or choose another name`, {
        problems: [{ path: "name", message: "already a tool of this session" }],
        tool: name
      });
    }
    this.added.set(name, def);
    this.changed();
    return () => {
      if (this.added.get(name) !== def) return;
      this.added.delete(name);
      this.changed();
    };
  }
  /** Resolves once the changes made so far reached Core (or failed). */
  async sent() {
    await nextTask2();
    await this.running;
    await this.link?.sent();
  }
  /** Sends the list again now; the first send after a resume is always made. */
  changed() {
    if (this.link) return this.link.schedule();
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.running = this.running.then(() => this.flush());
    });
  }
  async flush() {
    this.scheduled = false;
    if (this.session.getStatus() === "ended") return;
    const manifest = manifestOf(this.defined());
    const text = JSON.stringify(manifest);
    if (text === this.lastSent) return;
    this.lastSent = text;
    try {
      await this.session.updateTools(manifest);
    } catch {
      this.lastSent = null;
    }
  }
};
var bySession = /* @__PURE__ */ new WeakMap();
function attachPageTools(session, base, sent, webmcp) {
  const tools = new PageTools(session, base, sent);
  bySession.set(session, tools);
  if (webmcp) tools.followWebMCP(sent);
  else if (sent === null) tools.changed();
}
function toolsSent(session) {
  return bySession.get(session)?.sent() ?? Promise.resolve();
}
function addTool(session, definition2) {
  const tools = bySession.get(session);
  if (!tools) throw new PedelecError("INVALID_INPUT", "addTool(session, definition): pass a session from pedelec.createSession() or resumeSession()");
  return tools.add(definition2);
}

// src/follow.ts
var FOLLOW_GRACE_MS = 1e4;
var ANSWER_WAIT_MS = 1e3;
var KEY = "pedelec.follow:";
function storage() {
  try {
    return typeof sessionStorage !== "undefined" ? sessionStorage : null;
  } catch {
    return null;
  }
}
function read(coreUrl) {
  try {
    const raw = storage()?.getItem(KEY + coreUrl);
    const v = raw ? JSON.parse(raw) : null;
    return v && typeof v.sessionId === "string" && v.sessionId !== "" ? v : null;
  } catch {
    return null;
  }
}
function write(coreUrl, v) {
  try {
    storage()?.setItem(KEY + coreUrl, JSON.stringify(v));
  } catch {
  }
}
function followedSession(coreUrl) {
  return read(coreUrl);
}
function forgetFollowed(coreUrl, sessionId) {
  const cur = read(coreUrl);
  if (!cur || sessionId && cur.sessionId !== sessionId) return;
  try {
    storage()?.removeItem(KEY + coreUrl);
  } catch {
  }
}
var Carried = class {
  constructor(stored) {
    __publicField(this, "ids");
    __publicField(this, "from");
    __publicField(this, "left");
    __publicField(this, "answerers", []);
    /** Set by follow(): the session whose tools must reach Core before an answer does. */
    __publicField(this, "session", null);
    __publicField(this, "waiting", /* @__PURE__ */ new Map());
    /** The handler for a call that was running on the previous page, or undefined for any other. */
    __publicField(this, "route", (toolRequestId, tool) => {
      if (!this.ids.has(toolRequestId)) return void 0;
      this.ids.delete(toolRequestId);
      return (args) => {
        const call = { toolRequestId, tool, args, from: this.from, to: here() };
        if (Object.prototype.hasOwnProperty.call(this.left, toolRequestId)) call.left = this.left[toolRequestId];
        return new Promise((resolve2) => {
          const timer = setTimeout(() => settle(void 0), ANSWER_WAIT_MS);
          const settle = (v) => {
            if (!this.waiting.delete(toolRequestId)) return;
            clearTimeout(timer);
            const result = v === void 0 ? navigatedResult(call) : v;
            const session = this.session;
            resolve2(session ? toolsSent(session).then(() => result) : result);
          };
          this.waiting.set(toolRequestId, { call, settle });
          this.offer(toolRequestId);
        });
      };
    });
    this.ids = new Set((stored.calls ?? []).map((c) => c.toolRequestId));
    this.from = stored.from ?? "";
    this.left = stored.left && typeof stored.left === "object" ? stored.left : {};
  }
  addAnswerer(fn) {
    this.answerers.push(fn);
    for (const id of [...this.waiting.keys()]) this.offer(id);
    return () => {
      this.answerers = this.answerers.filter((a) => a !== fn);
    };
  }
  offer(id) {
    const w = this.waiting.get(id);
    if (!w || this.answerers.length === 0) return;
    const answer = this.answerers[this.answerers.length - 1];
    let v;
    try {
      v = answer(w.call);
    } catch (err) {
      v = Promise.reject(err);
    }
    Promise.resolve(v).then(w.settle, (err) => w.settle(Promise.reject(err)));
  }
};
function here() {
  return typeof location !== "undefined" ? location.href : "";
}
function navigatedResult(call) {
  const title = typeof document !== "undefined" ? document.title : "";
  const left = call.left && typeof call.left === "object" && !Array.isArray(call.left) ? call.left : {};
  return {
    ...left,
    navigated: true,
    url: call.to,
    from: call.from,
    title,
    message: `navigated to ${call.to}: the page changed while ${call.tool} ran (from ${call.from}); the new page has the session now, with its own tools`
  };
}
var carriedBySession = /* @__PURE__ */ new WeakMap();
function carriedCalls(stored) {
  return new Carried(stored);
}
function follow(session, coreUrl, carried) {
  if (carried) {
    carried.session = session;
    carriedBySession.set(session, carried);
  }
  markFollowing(session);
  write(coreUrl, { sessionId: session.sessionId });
  const onHide = (ev) => {
    if (session.getStatus() === "ended") return;
    const seq = ev?.persisted === true ? session.lastSeq() : session.unloadingAt();
    write(coreUrl, { sessionId: session.sessionId, from: here(), calls: session.runningCalls(), left: leftBy(session), seq });
  };
  if (typeof addEventListener === "function") addEventListener("pagehide", onHide);
  session.onCleanup(() => {
    if (typeof removeEventListener === "function") removeEventListener("pagehide", onHide);
    forgetFollowed(coreUrl, session.sessionId);
  });
}
function onNavigatedCall(session, answer) {
  if (typeof answer !== "function") throw new PedelecError("INVALID_INPUT", "onNavigatedCall(session, answer): answer must be a function");
  const carried = carriedBySession.get(session);
  return carried ? carried.addAnswerer(answer) : () => {
  };
}

// src/webmcp/declarative.ts
var WATCHED = [
  "toolname",
  "tooldescription",
  "toolautosubmit",
  "toolparamtitle",
  "toolparamdescription",
  "name",
  "type",
  "required",
  "min",
  "max",
  "step",
  "pattern",
  "minlength",
  "maxlength",
  "multiple",
  "disabled",
  "readonly",
  "value",
  "label",
  "for",
  "form"
];
function startDeclarativeTools() {
  if (typeof document === "undefined" || typeof MutationObserver === "undefined") return;
  let first = false;
  pageShared("declarative.v1", () => first = true);
  if (!first) return;
  const declared = /* @__PURE__ */ new Map();
  let scheduled = false;
  const rescan = () => {
    scheduled = false;
    scan(declared);
  };
  const observer = new MutationObserver(() => {
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(rescan);
  });
  observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: WATCHED });
  scan(declared);
}
function scan(declared) {
  const now = /* @__PURE__ */ new Map();
  for (const form of Array.from(document.querySelectorAll("form[toolname]"))) {
    const d = definition(form);
    if (d) now.set(form, d);
  }
  for (const [form, d] of declared) {
    if (now.get(form)?.key !== d.key) {
      registrations.remove(d.reg);
      declared.delete(form);
      d.cancel(form.isConnected ? "the form's tool declaration changed while the call ran" : "the form was removed from the page while the call ran");
    }
  }
  for (const [form, d] of now) {
    if (declared.has(form)) continue;
    const made = d.make();
    if (registrations.has(made.reg.name)) continue;
    registrations.add(made.reg);
    declared.set(form, { key: d.key, ...made });
  }
}
function definition(form) {
  const name = form.getAttribute("toolname")?.trim() ?? "";
  const description = form.getAttribute("tooldescription")?.trim() ?? "";
  if (!name || name.length > 128 || !WEBMCP_NAME_PATTERN.test(name) || !description) return void 0;
  const inputSchema = JSON.stringify(synthesizeFormSchema(form));
  const key2 = JSON.stringify([name, description, inputSchema, form.hasAttribute("toolautosubmit")]);
  return {
    key: key2,
    make: () => {
      const inflight = /* @__PURE__ */ new Set();
      const execute = async (input, options) => {
        const controller = new AbortController();
        const outer = options?.signal;
        if (outer?.aborted) throw outer.reason;
        const forward = () => controller.abort(outer?.reason);
        outer?.addEventListener("abort", forward, { once: true });
        inflight.add(controller);
        try {
          return await callForm(form, input, controller.signal);
        } finally {
          inflight.delete(controller);
          outer?.removeEventListener("abort", forward);
        }
      };
      const reg = { name, description, inputSchema, execute, readOnlyHint: false, untrustedContentHint: false, exposedTo: [], source: "form" };
      return { reg, cancel: (why) => inflight.forEach((c) => c.abort(new Error(why))) };
    }
  };
}

// src/webmcp/model-context.ts
var MAX_NAME_LENGTH = 128;
function domError2(message, name) {
  if (typeof DOMException === "function") return new DOMException(message, name);
  const e = new Error(message);
  e.name = name;
  return e;
}
function potentiallyTrustworthy(url) {
  if (url.protocol === "https:" || url.protocol === "wss:" || url.protocol === "file:") return true;
  if (url.protocol !== "http:" && url.protocol !== "ws:") return false;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}
var POLYFILL = /* @__PURE__ */ Symbol.for("pedelec.webmcp.polyfill");
function isPolyfill(mc) {
  return mc[POLYFILL] === true;
}
var _a2, _b2;
var ModelContextPolyfill = class extends (_b2 = EventTarget, _a2 = POLYFILL, _b2) {
  constructor() {
    super(...arguments);
    __publicField(this, _a2, true);
    __publicField(this, "handler", null);
  }
  /** The toolchange event handler attribute. */
  get ontoolchange() {
    return this.handler;
  }
  set ontoolchange(fn) {
    if (this.handler) this.removeEventListener("toolchange", this.handler);
    this.handler = typeof fn === "function" ? fn : null;
    if (this.handler) this.addEventListener("toolchange", this.handler);
  }
  /**
   * Registers a tool, following the draft's registerTool steps: rejects
   * with InvalidStateError for a taken name, an empty name or description,
   * or a name that is longer than 128 or has characters other than ASCII
   * letters, digits, "_", "-" and "."; with the exception JSON
   * serialization of inputSchema throws (a TypeError when it yields
   * nothing); with the signal's reason when it is already aborted; with
   * SecurityError for an exposedTo entry that is not a potentially
   * trustworthy origin. Aborting the signal later unregisters the tool.
   */
  registerTool(tool, options = {}) {
    let reg;
    try {
      reg = checkRegistration(tool, options);
    } catch (err) {
      return Promise.reject(err);
    }
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve2, reject) => {
      registrations.add(reg);
      signal?.addEventListener(
        "abort",
        () => {
          if (registrations.remove(reg)) this.notify();
          reject(signal.reason);
        },
        { once: true }
      );
      setTimeout(() => {
        this.dispatchEvent(new Event("toolchange"));
        resolve2(void 0);
      }, 0);
    });
  }
  notify() {
    setTimeout(() => this.dispatchEvent(new Event("toolchange")), 0);
  }
};
function checkRegistration(tool, options) {
  if (typeof tool !== "object" || tool === null) throw new TypeError("registerTool(tool): tool must be an object {name, description, inputSchema?, execute, annotations?}");
  const { name, description, title, execute, annotations } = tool;
  if (typeof name !== "string") throw new TypeError("registerTool(tool): tool.name is required and must be a string");
  if (typeof description !== "string") throw new TypeError(`registerTool(tool): tool.description of ${JSON.stringify(name)} is required and must be a string`);
  if (typeof execute !== "function") throw new TypeError(`registerTool(tool): tool.execute of ${JSON.stringify(name)} is required and must be a function`);
  if (registrations.has(name)) throw domError2(`registerTool: a tool named ${JSON.stringify(name)} is already registered; unregister it first (abort its signal)`, "InvalidStateError");
  if (name === "" || description === "") throw domError2(`registerTool: the tool's name and description must not be empty (name ${JSON.stringify(name)})`, "InvalidStateError");
  if (name.length > MAX_NAME_LENGTH || !WEBMCP_NAME_PATTERN.test(name)) {
    throw domError2(`registerTool: ${JSON.stringify(name)} is not a tool name: 1 to 128 ASCII letters, digits, "_", "-" and "."`, "InvalidStateError");
  }
  let inputSchema;
  if (tool.inputSchema !== void 0) {
    inputSchema = JSON.stringify(tool.inputSchema);
    if (inputSchema === void 0) throw new TypeError(`registerTool: the inputSchema of ${JSON.stringify(name)} does not serialize to JSON`);
  }
  const exposedTo = [];
  for (const origin of options?.exposedTo ?? []) {
    let url;
    try {
      url = new URL(String(origin));
    } catch {
      throw domError2(`registerTool: exposedTo entry ${JSON.stringify(origin)} is not a URL`, "SecurityError");
    }
    if (!potentiallyTrustworthy(url)) throw domError2(`registerTool: exposedTo entry ${JSON.stringify(origin)} is not a potentially trustworthy origin`, "SecurityError");
    exposedTo.push(url.origin);
  }
  return {
    name,
    title: typeof title === "string" ? title : void 0,
    description,
    inputSchema,
    execute,
    readOnlyHint: annotations?.readOnlyHint === true,
    untrustedContentHint: annotations?.untrustedContentHint === true,
    annotations: annotations && typeof annotations === "object" ? { ...annotations } : void 0,
    exposedTo
  };
}

// src/webmcp/native-tools.ts
var ownToolNames = pageShared("ownToolNames.v1", () => /* @__PURE__ */ new Set());
var MIRRORED = /* @__PURE__ */ Symbol.for("pedelec.webmcp.mirrored.v1");
var HINTS2 = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "consequentialHint", "untrustedContentHint"];
function canEnumerate(mc) {
  const m = mc;
  return typeof m.getTools === "function" && typeof m.executeTool === "function";
}
function mirrorNativeTools(mc) {
  const holder = mc;
  if (holder[MIRRORED]) return holder[MIRRORED];
  const mirrored = /* @__PURE__ */ new Map();
  let running = Promise.resolve();
  const refresh = () => running = running.then(() => sync(mc, mirrored)).catch(() => {
  });
  mc.addEventListener?.("toolchange", () => void refresh());
  const first = refresh();
  Object.defineProperty(mc, MIRRORED, { value: first });
  return first;
}
async function sync(mc, mirrored) {
  const list = await mc.getTools();
  const seen = /* @__PURE__ */ new Set();
  for (const t of list ?? []) {
    if (!t || typeof t.name !== "string" || t.window !== void 0 && typeof window !== "undefined" && t.window !== window) continue;
    if (ownToolNames.has(t.name)) continue;
    seen.add(t.name);
    const key2 = JSON.stringify([t.title, t.description, t.inputSchema, t.annotations]);
    const had = mirrored.get(t.name);
    if (had && had.key === key2) {
      had.tool.current = t;
      continue;
    }
    if (had) {
      registrations.remove(had.reg);
      mirrored.delete(t.name);
    }
    if (registrations.has(t.name)) continue;
    const tool = { current: t };
    const reg = registration(mc, t, tool);
    registrations.add(reg);
    mirrored.set(t.name, { key: key2, reg, tool });
  }
  for (const [name, m] of mirrored) {
    if (!seen.has(name)) {
      registrations.remove(m.reg);
      mirrored.delete(name);
    }
  }
}
function registration(mc, t, tool) {
  const annotations = {};
  for (const h of HINTS2) if (typeof t.annotations?.[h] === "boolean") annotations[h] = t.annotations[h];
  return {
    name: t.name,
    title: t.title ? t.title : void 0,
    description: t.description,
    inputSchema: t.inputSchema === void 0 || t.inputSchema === null ? void 0 : JSON.stringify(t.inputSchema),
    execute: (input, options) => executeNative(mc, tool.current, input, options?.signal),
    readOnlyHint: annotations.readOnlyHint === true,
    untrustedContentHint: annotations.untrustedContentHint === true,
    annotations: Object.keys(annotations).length ? annotations : void 0,
    exposedTo: [],
    source: "native"
  };
}
async function executeNative(mc, t, input, signal) {
  const form = formOf(t.name);
  const watch = form ? watchSubmission(form) : void 0;
  try {
    let text;
    try {
      text = await mc.executeTool(t, input ?? {}, { signal });
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      const e = err;
      throw new Error(`the browser's executeTool failed: ${e?.name ?? "Error"}: ${e?.message ?? String(err)}`);
    }
    if (text === null || text === void 0) {
      if (watch) {
        const w = await Promise.race([watch.submitted, nextTask2().then(() => null)]);
        if (w) return await submissionResult(w);
      }
      return null;
    }
    if (text === "undefined") return null;
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  } finally {
    watch?.cancel();
  }
}
function formOf(name) {
  if (typeof document === "undefined") return void 0;
  for (const f of Array.from(document.querySelectorAll("form[toolname]"))) if (f.getAttribute("toolname")?.trim() === name) return f;
  return void 0;
}

// src/webmcp/install.ts
var ownTools = pageShared("ownTools.v1", () => /* @__PURE__ */ new WeakSet());
var ready = Promise.resolve();
var OBSERVED = /* @__PURE__ */ Symbol.for("pedelec.webmcp.observed");
function holders() {
  return {
    doc: typeof document !== "undefined" ? document : void 0,
    nav: typeof navigator !== "undefined" ? navigator : void 0
  };
}
function installModelContext() {
  const { doc, nav } = holders();
  if (!doc) return void 0;
  const existing = doc.modelContext ?? nav?.modelContext;
  let mc;
  if (existing && isPolyfill(existing)) {
    mc = existing;
    startDeclarativeTools();
  } else if (existing && typeof existing.registerTool === "function") {
    observe(existing);
    mc = existing;
    if (canEnumerate(existing)) ready = mirrorNativeTools(existing);
    else startDeclarativeTools();
  } else {
    mc = new ModelContextPolyfill();
    startDeclarativeTools();
  }
  define(doc, mc);
  if (nav) define(nav, mc);
  return mc;
}
function webmcpReady() {
  installModelContext();
  return ready;
}
function nativeModelContext() {
  const { doc, nav } = holders();
  const mc = doc?.modelContext ?? nav?.modelContext;
  if (!mc || typeof mc.registerTool !== "function" || isPolyfill(mc)) return void 0;
  return mc;
}
function define(holder, mc) {
  if (holder.modelContext === mc) return;
  try {
    Object.defineProperty(holder, "modelContext", { value: mc, configurable: true, enumerable: true });
  } catch {
  }
}
function observe(native) {
  const marked = native;
  if (marked[OBSERVED]) return;
  const original = native.registerTool;
  const wrapped = function(tool, options) {
    const result = original.call(this ?? native, tool, options);
    if (tool && typeof tool === "object" && !ownTools.has(tool)) record(tool, options, result);
    return result;
  };
  try {
    Object.defineProperty(native, "registerTool", { value: wrapped, configurable: true, writable: true });
    Object.defineProperty(native, OBSERVED, { value: true });
  } catch {
  }
}
function record(tool, options, result) {
  let reg;
  try {
    if (registrations.has(tool.name)) return;
    reg = checkRegistration(tool, options);
  } catch {
    return;
  }
  const signal = options?.signal;
  if (signal?.aborted) return;
  registrations.add(reg);
  signal?.addEventListener("abort", () => registrations.remove(reg), { once: true });
  Promise.resolve(result).catch(() => registrations.remove(reg));
}

// src/webmcp/expose.ts
function exposeToBrowser(session, defined, toError) {
  const mc = nativeModelContext();
  if (!mc || defined.length === 0) return;
  const controller = new AbortController();
  session.onCleanup(() => controller.abort());
  for (const def of defined) {
    const tool = {
      name: def.name,
      description: def.description,
      inputSchema: "inputSchema" in def && def.inputSchema ? def.inputSchema : def.argsSchema,
      execute: (input, options) => session.runForBrowser(def.name, input, options?.signal ?? controller.signal)
    };
    const a = def.annotations;
    if (a?.title) tool.title = a.title;
    if (a) tool.annotations = { ...a };
    ownTools.add(tool);
    ownToolNames.add(def.name);
    controller.signal.addEventListener("abort", () => ownToolNames.delete(def.name), { once: true });
    let registered;
    try {
      registered = Promise.resolve(mc.registerTool(tool, { signal: controller.signal }));
    } catch (err) {
      registered = Promise.reject(err);
    }
    registered.catch((err) => {
      if (!controller.signal.aborted) session.reportError(toError(def.name, err));
    });
  }
}

// src/client.ts
function browserSocket(url) {
  if (typeof WebSocket === "undefined") {
    throw new PedelecError("CORE_UNREACHABLE", "This environment has no WebSocket; Pedelec's SDK runs in a browser");
  }
  return new WebSocket(url);
}
function thisModuleUrl() {
  try {
    return import.meta.url;
  } catch {
    return void 0;
  }
}
function moduleAsksAllProviders(moduleUrl) {
  if (!moduleUrl) return false;
  try {
    return new URL(moduleUrl).searchParams.get("providers") === "all";
  } catch {
    return false;
  }
}
function pageOrigin2() {
  return typeof location !== "undefined" && location.origin && location.origin !== "null" ? location.origin : null;
}
function withWebMCP(manifest, defined) {
  installModelContext();
  const { offered, refused } = currentWebMCPTools(defined);
  if (refused.length > 0) throw refusedTools(refused);
  const m = manifest;
  const sent = [...m.tools, ...manifestOf(offered.map((c) => c.def))];
  return { manifest: { guidance: m.guidance, tools: sent }, sent };
}
function browserError(tool, err) {
  const why = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return new PedelecError("INVALID_INPUT", `The browser's document.modelContext refused Pedelec tool ${JSON.stringify(tool)}: ${why}`, { tool });
}
function invalid(message, path) {
  return new PedelecError("INVALID_INPUT", message, { problems: [{ path, message }] });
}
var Pedelec = class {
  /**
   * Connects lazily: nothing is sent until the first call. With no options
   * it reaches Core at its default address (or the Core that served this
   * module).
   */
  constructor(options) {
    /** Pedelec Core addition: Core's WebSocket URL this client talks to. */
    __publicField(this, "url");
    __publicField(this, "connection");
    __publicField(this, "sessions", /* @__PURE__ */ new Set());
    __publicField(this, "reconnector");
    __publicField(this, "closed", false);
    __publicField(this, "onApprovalPending");
    /** The approval this client waits for, shared by concurrent calls. */
    __publicField(this, "approval", null);
    /** The approval window that wait is for, once Core named it. */
    __publicField(this, "pending", null);
    /** resumeSession() calls in flight, by session id: a second one shares the first's handle. */
    __publicField(this, "resuming", /* @__PURE__ */ new Map());
    /** listProviders()/getSettings() report every provider, not only the original's six. */
    __publicField(this, "allProviders");
    const opts = options ?? {};
    const moduleUrl = opts.moduleUrl ?? thisModuleUrl();
    this.url = resolveUrl(opts.url, moduleUrl);
    this.allProviders = opts.providers === "all" || opts.providers === void 0 && moduleAsksAllProviders(moduleUrl);
    const timeout = opts.bridgeTimeoutMs;
    const timeoutMs = typeof timeout === "number" && !Number.isNaN(timeout) ? Math.max(1, timeout) : DEFAULT_RESPONSE_TIMEOUT_MS;
    this.connection = new Connection(this.url, opts.socketFactory ?? browserSocket, opts.probe, timeoutMs, opts.keyStore);
    this.onApprovalPending = typeof opts.onApprovalPending === "function" ? opts.onApprovalPending : void 0;
    this.reconnector = new Reconnector(
      async () => {
        if (this.sessions.size === 0) return "done";
        const approved = await this.reconnectApproval();
        if (approved !== "approved") return approved;
        const outcomes = await Promise.all([...this.sessions].map((s) => s.resumeAfterReconnect()));
        return outcomes.includes("retry") ? "retry" : "done";
      },
      () => {
        const err = new PedelecError("CORE_UNREACHABLE", `Pedelec Core at ${this.url} did not come back; the session was given up`);
        for (const session of [...this.sessions]) session.reconnectFailed(err);
      },
      { ...DEFAULT_RECONNECT, ...opts.reconnect }
    );
    this.connection.onClose((err) => {
      if (this.closed || this.sessions.size === 0) return;
      for (const session of [...this.sessions]) session.connectionLost(err);
      this.reconnector.start();
    });
  }
  async listProviders(options) {
    const all = options?.all ?? this.allProviders;
    const list = await this.listProviderDetails();
    return list.providers.filter((p) => all || isOriginalProvider(p.name)).map(providerInfo);
  }
  /**
   * Pedelec Core addition: Core's whole answer: each provider's version,
   * path, reason, default model and description, and the default provider.
   */
  async listProviderDetails() {
    if ((await this.approvalAnswer()).approved !== true) return unapprovedProviders(pageOrigin2());
    const result = await this.connection.request("list_providers", {});
    if (typeof result !== "object" || result === null || !Array.isArray(result.providers)) {
      throw new PedelecError("SDK_PROTOCOL_ERROR", "Pedelec Core answered list_providers without a providers list", { result });
    }
    return { providers: result.providers, defaultProvider: typeof result.defaultProvider === "string" ? result.defaultProvider : "" };
  }
  async getSettings(options) {
    return settingsFrom(await this.listProviderDetails(), options?.all ?? this.allProviders);
  }
  /**
   * Whether this page may use Core. Never rejects because Core is down or
   * refuses the origin: those are answers ({installed: false} or
   * {approved: false}). Other failures reject.
   */
  async getApprovalStatus() {
    const origin = pageOrigin2();
    try {
      const answer = await this.approvalAnswer();
      return { installed: true, approved: answer.approved === true, origin, appConnected: true };
    } catch (err) {
      const e = PedelecError.from(err);
      if (e.code === "ORIGIN_NOT_ALLOWED" || e.code === "HOST_NOT_ALLOWED") return { installed: true, approved: false, origin, appConnected: true };
      if (e.code === "CORE_UNREACHABLE") return { installed: false, approved: false, origin, appConnected: false };
      throw e;
    }
  }
  /**
   * Checks every layer without creating anything: Core answers, this
   * origin is allowed, and (only then) Core answers a settings request.
   * Never rejects; a failure is in `error`.
   */
  async checkAvailability() {
    const origin = pageOrigin2();
    const result = {
      available: false,
      extension: { available: false },
      approval: { approved: false, origin },
      desktop: { available: false, launchAttempted: false }
    };
    try {
      const answer = await this.approvalAnswer();
      result.extension.available = true;
      result.approval.approved = answer.approved === true;
    } catch (err) {
      const e = PedelecError.from(err);
      result.error = e;
      result.extension.available = e.code === "ORIGIN_NOT_ALLOWED" || e.code === "HOST_NOT_ALLOWED" || await this.connection.look() === "core";
      return result;
    }
    if (!result.approval.approved) {
      result.error = new PedelecError("CREATE_SESSION_NOT_APPROVED", `This origin (${origin}) is not approved to use Pedelec Core yet: createSession() asks the user`, { origin });
      return result;
    }
    result.desktop.launchAttempted = true;
    try {
      await this.getSettings();
      result.desktop.available = true;
      result.available = true;
    } catch (err) {
      result.error = PedelecError.from(err);
    }
    return result;
  }
  async createSession(input) {
    if (input !== void 0 && (typeof input !== "object" || input === null || Array.isArray(input))) {
      throw invalid("createSession(input): input must be an object such as {provider, model, skills, autoEndOnDisconnect}", "(root)");
    }
    const { provider, model, skills, autoEndOnDisconnect, webmcp, exposeToBrowser: exposeToBrowser2, followPage } = input ?? {};
    if (provider !== void 0 && (typeof provider !== "string" || provider === "")) {
      throw invalid('createSession: provider must be a provider code such as "codex" (see listProviders())', "provider");
    }
    if (model !== void 0 && typeof model !== "string") throw invalid("createSession: model must be a string", "model");
    if (model !== void 0 && provider === void 0) {
      throw invalid("createSession: model needs a provider: a model name only means something to one provider; pass {provider, model}", "model");
    }
    if (autoEndOnDisconnect !== void 0 && typeof autoEndOnDisconnect !== "boolean") {
      throw invalid("createSession: autoEndOnDisconnect must be a boolean", "autoEndOnDisconnect");
    }
    if (webmcp !== void 0 && typeof webmcp !== "boolean") throw invalid("createSession: webmcp must be a boolean", "webmcp");
    if (exposeToBrowser2 !== void 0 && typeof exposeToBrowser2 !== "boolean") throw invalid("createSession: exposeToBrowser must be a boolean", "exposeToBrowser");
    if (followPage !== void 0 && typeof followPage !== "boolean") throw invalid("createSession: followPage must be a boolean", "followPage");
    if (followPage === true && autoEndOnDisconnect === false) {
      throw invalid("createSession: followPage ends the session when the tab closes for good, which autoEndOnDisconnect: false would not; leave autoEndOnDisconnect out", "followPage");
    }
    const manifest = checkedManifest(skills === void 0 ? { guidance: "", tools: [] } : skills);
    const defined = skills?.tools ?? [];
    if (webmcp === true) await webmcpReady();
    const web = webmcp === true ? withWebMCP(manifest, defined) : null;
    if (followPage === true) {
      const resumed = await this.resumeFollowed(defined, webmcp === true);
      if (resumed) return resumed;
    }
    await this.ensureApproved();
    const params = { skills: web?.manifest ?? manifest };
    if (provider !== void 0) {
      params.provider = provider;
      if (model) params.model = model;
    } else {
      const list = await this.listProviderDetails();
      const name = list.defaultProvider;
      if (!name) {
        throw new PedelecError("DEFAULT_PROVIDER_NOT_SET", "Pedelec Core has no default provider: pass {provider} to createSession, or set default_provider in Core's config file", {});
      }
      const entry = list.providers.find((p) => p.name === name);
      if (!entry?.available) {
        const reason = entry?.reason ?? "Core does not know it";
        throw new PedelecError(
          "DEFAULT_PROVIDER_UNAVAILABLE",
          `Core's default provider ${displayName(name)} (${name}) is not available: ${reason}. Pass another {provider} (see listProviders()) or change default_provider in Core's config file`,
          { provider: name, reason }
        );
      }
      params.provider = name;
      if (entry.defaultModel) params.model = entry.defaultModel;
    }
    if (autoEndOnDisconnect !== void 0) params.autoEndOnDisconnect = autoEndOnDisconnect;
    if (followPage === true) {
      params.autoEndOnDisconnect = true;
      params.disconnectGraceMs = FOLLOW_GRACE_MS;
    }
    const info = await this.connection.request("create_session", params);
    const trusted = this.connection.trustCore();
    const session = this.track(info, defined);
    attachPageTools(session, defined, web?.sent ?? manifest.tools, web !== null);
    if (exposeToBrowser2 !== false) exposeToBrowser(session, defined, browserError);
    if (followPage === true && session.getStatus() !== "ended") follow(session, this.url, null);
    await trusted;
    return session;
  }
  /**
   * The session this tab followed from its previous page, resumed with
   * this page's tools, or null when there is none or it ended meanwhile.
   */
  async resumeFollowed(defined, webmcp) {
    const stored = followedSession(this.url);
    if (!stored) return null;
    const held = [...this.sessions].find((s) => s.sessionId === stored.sessionId && s.getStatus() !== "ended");
    if (held) return held;
    const carried = carriedCalls(stored);
    try {
      const session = await this.resumeRouted(stored.sessionId, { tools: defined, webmcp }, carried.route, stored.seq);
      if (session.getStatus() !== "ended") {
        follow(session, this.url, carried);
        return session;
      }
    } catch (err) {
      const e = PedelecError.from(err);
      if (e.code !== "SESSION_ENDED" && e.code !== "THREAD_NOT_FOUND") throw e;
    }
    forgetFollowed(this.url, stored.sessionId);
    return null;
  }
  /**
   * Attaches to an existing session (after a reload, with
   * autoEndOnDisconnect: false). Register the handlers again right after it
   * resolves, or pass the same tool definitions to restore their inline
   * handlers (a Pedelec Core addition): calls still pending in Core are
   * delivered again.
   */
  async resumeSession(sessionId, options) {
    return this.resumeRouted(sessionId, options, void 0);
  }
  /** resumeSession, with the router follow.ts gives for the calls the previous page was running. */
  async resumeRouted(sessionId, options, router, followedSeq) {
    if (typeof sessionId !== "string" || sessionId === "") {
      throw invalid("resumeSession(sessionId): sessionId must be a non-empty string", "sessionId");
    }
    if (options?.webmcp !== void 0 && typeof options.webmcp !== "boolean") throw invalid("resumeSession: options.webmcp must be a boolean", "webmcp");
    const defined = options?.tools ?? [];
    if (options?.webmcp) withWebMCP(checkedManifest({ guidance: "", tools: defined }), defined);
    const held = [...this.sessions].find((s) => s.sessionId === sessionId && s.getStatus() !== "ended");
    if (held) return held;
    const inFlight = this.resuming.get(sessionId);
    if (inFlight) return await inFlight;
    const resumed = (async () => {
      await this.ensureApproved();
      const followed = typeof followedSeq === "number" && Number.isSafeInteger(followedSeq) && followedSeq >= 0;
      const info = await this.connection.request("resume_session", followed ? { sessionId, lastSeq: followedSeq, redeliver: true } : { sessionId });
      const trusted = this.connection.trustCore();
      const session = this.track(info, defined, router);
      const replace = options?.webmcp === true || router !== void 0;
      if (session.getStatus() !== "ended") attachPageTools(session, defined, replace ? null : manifestOf(defined), options?.webmcp === true);
      await trusted;
      return session;
    })();
    this.resuming.set(sessionId, resumed);
    try {
      return await resumed;
    } finally {
      this.resuming.delete(sessionId);
    }
  }
  /**
   * Sends one request of Core's WebSocket protocol (docs/protocol.md) and
   * resolves with its result. `T` is not checked. Prefer the typed methods.
   * For the original's `request("create_session", {input})`, the input is
   * unwrapped into Core's parameters.
   */
  async request(type, payload) {
    if (typeof type !== "string" || type === "") throw invalid('request(type, payload): type must be a method name such as "list_providers"', "type");
    if (type === "get_settings") return await this.getSettings();
    if (type === "get_approval_status") return await this.getApprovalStatus();
    let params = payload ?? {};
    const input = params.input;
    if (type === "create_session" && Object.keys(params).length === 1 && typeof input === "object" && input !== null) {
      params = { ...input };
      if (params.skills === void 0) params.skills = { guidance: "", tools: [] };
    }
    return this.connection.send(type, params);
  }
  /** get_approval_status; a Core from before approvals that answers at all approved the origin. */
  async approvalAnswer() {
    try {
      return await this.connection.request("get_approval_status", {});
    } catch (err) {
      if (PedelecError.from(err).code === "UNKNOWN_METHOD") return { approved: true, origin: pageOrigin2() ?? "" };
      throw err;
    }
  }
  /**
   * Waits until this page's origin may use Core. An origin Core does not
   * know yet asks the user: the approval window opens (window.open; the
   * call usually follows a click, so the browser lets it), and the call
   * waits for the decision (concurrent calls share one wait):
   * APPROVAL_REJECTED, APPROVAL_TIMEOUT. A blocked window is reported to
   * onApprovalPending (and the console) as OPEN_POPUP_FAILED with the URL,
   * and the call keeps waiting. A reconnect's resume waits here too, with
   * no click before it, so its window is usually the blocked kind.
   */
  ensureApproved() {
    if (!this.approval) {
      this.approval = this.waitForApproval().finally(() => {
        this.approval = null;
        this.pending = null;
      });
    }
    return this.approval;
  }
  async waitForApproval() {
    let answer;
    try {
      answer = await this.connection.request("request_approval", {});
    } catch (err) {
      if (PedelecError.from(err).code === "UNKNOWN_METHOD") return;
      throw err;
    }
    if (answer.approved || !answer.requestId || !answer.url) return;
    const pending = { origin: answer.origin, requestId: answer.requestId, url: answer.url };
    let popup = null;
    try {
      popup = typeof window !== "undefined" && typeof window.open === "function" ? window.open(answer.url, "pedelec-approval-" + answer.requestId, "popup,width=520,height=560") : null;
    } catch {
      popup = null;
    }
    if (!popup) {
      pending.error = new PedelecError(
        "OPEN_POPUP_FAILED",
        `The browser blocked Pedelec's approval window. Open ${answer.url} to decide, or run \`pedelec approve ${answer.origin}\`; this call keeps waiting`,
        { url: answer.url, origin: answer.origin, requestId: answer.requestId }
      );
      if (typeof console !== "undefined") console.warn(pending.error.message);
    }
    this.pending = pending;
    try {
      this.onApprovalPending?.(pending);
    } catch {
    }
    this.tellSessions(pending);
    const waitMs = (answer.timeoutMs ?? 12e4) + 3e4;
    await this.connection.request("await_approval", {}, waitMs);
  }
  /**
   * The approval step of a reconnect. While the user decides, the sessions
   * say so (status waiting_approval, still reconnecting); a rejection or a
   * timeout ends them with that error; a Core still away is retried.
   */
  async reconnectApproval() {
    const waiting = this.ensureApproved();
    if (this.pending) this.tellSessions(this.pending);
    try {
      await waiting;
      return "approved";
    } catch (err) {
      const e = PedelecError.from(err);
      if (worthRetrying(e)) {
        for (const session of [...this.sessions]) session.approvalInterrupted();
        return "retry";
      }
      for (const session of [...this.sessions]) session.approvalFailed(e);
      return "done";
    }
  }
  tellSessions(pending) {
    for (const session of [...this.sessions]) session.approvalPending(pending);
  }
  /**
   * Pedelec Core addition: forgets the Core this page trusts. The page
   * remembers the key of the Core that first approved it and refuses any
   * other (CORE_NOT_AUTHENTIC); after Core's state directory was reset on
   * purpose, call this once, and the next connection trusts the Core it
   * finds, as the first one did.
   */
  forgetCore() {
    this.connection.identity.forget();
  }
  /** Pedelec Core addition: closes the connection; sessions with autoEndOnDisconnect end. */
  close() {
    this.closed = true;
    this.reconnector.stop();
    for (const session of [...this.sessions]) session.clientClosed();
    this.connection.close();
  }
  track(info, tools, router) {
    let session = void 0;
    const s = new PedelecSession({
      connection: this.connection,
      info,
      tools,
      router,
      onForget: () => {
        if (session) this.sessions.delete(session);
      }
    });
    session = s;
    if (s.getStatus() !== "ended") this.sessions.add(session);
    return s;
  }
};

// src/define-tool.ts
function defineTool(definition2) {
  if (isStandardSchema(definition2.inputSchema)) {
    return { ...definition2, inputSchema: standardToJsonSchema(definition2.inputSchema, definition2.name) };
  }
  return definition2;
}
function asksConsent(tool) {
  if (tool.needsApproval === true) return true;
  const a = tool.annotations;
  if (!a) return false;
  return a.destructiveHint === true || a.consequentialHint === true;
}
export {
  DEFAULT_URL,
  ERROR_CODES,
  FOLLOW_GRACE_MS,
  MAX_ASSET_BYTES,
  ORIGINAL_PROVIDER_CODES,
  PROVIDER_TITLES,
  Pedelec,
  PedelecError,
  PedelecSdkError,
  PedelecSession,
  ToolRefusal,
  addTool,
  asksConsent,
  defineTool,
  installModelContext,
  isStandardSchema,
  mcpResult,
  onNavigatedCall,
  refuse,
  toManifest
};
