// One WebSocket to Core, shared by every session of a Pedelec instance:
// requests are matched to responses by id, events are routed to their
// session by sessionId. The socket opens lazily, on the first request, and
// a new one is opened on the next request after it closes.

import { PedelecError, isErrorData } from "../errors.js";
import { CoreIdentity, type KeyStore, type Proof } from "./core-identity.js";
import type { EventFrame, HelloFrame, Method, ParamsOf, ResponseFrame, ResultOf } from "./protocol.gen.js";

/** The subset of the browser WebSocket the connection uses; tests pass a fake. */
export interface SocketLike {
  readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onclose: ((ev: { code: number; reason: string; wasClean?: boolean }) => void) | null;
}

export type SocketFactory = (url: string) => SocketLike;

/**
 * What answers at Core's address: Pedelec Core; Core refusing the name
 * this page used for it (a port forward Core was not told of); something
 * that is not Core; or nothing.
 */
export type Sighting = "core" | "host_refused" | "not_core" | "nothing";

/**
 * Looks at Core's base URL; tests pass a fake. `true` and `false` are
 * "core" and "nothing", for probes that only tell whether Core answers.
 */
export type ReachabilityProbe = (httpBaseUrl: string) => Promise<boolean | Sighting>;

/**
 * Asks /healthz, which Core lets any page read: it says "service":
 * "pedelec", and a refused Host says HOST_NOT_ALLOWED. A request that fails
 * is either nothing listening or a server that lets no page read it (not
 * Core, or a Core older than this check); a no-cors request, which
 * resolves with an opaque answer whenever anything answers, tells the two
 * apart.
 */
export const fetchProbe: ReachabilityProbe = async (base) => {
  if (typeof fetch !== "function") return "nothing";
  try {
    const res = await fetch(`${base}/healthz`, { mode: "cors", cache: "no-store", credentials: "omit" });
    const body: unknown = await res.json().catch(() => null);
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

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}

function sighting(v: boolean | Sighting): Sighting {
  return v === true ? "core" : v === false ? "nothing" : v;
}

type Pending = { resolve: (value: unknown) => void; reject: (err: PedelecError) => void; method: string; deadline: number };

type Sink = (event: EventFrame) => void;

// Events can reach the page before the response that tells it the session
// exists (create/resume): they wait here, bounded, until the session
// subscribes, so nothing the agent did in that gap is lost.
const MAX_EARLY_EVENTS = 1000;
// And for so many sessions at once, the oldest forgotten first: a page
// learns of a few at a time (its createSession and resumeSession calls in
// flight), and the oldest are those of sessions it will never subscribe
// (Core's last events for one the page ended). What sends events for ever
// new ids is not Core but a program on its port that a page with no key
// stored took for Core (trust on first use).
const MAX_EARLY_SESSIONS = 32;

const OPEN = 1;

// Core answers every request at once (a turn's outcome is an event, not
// the answer), so a request unanswered this long means Core is stuck. The
// page may change it (PedelecOptions.bridgeTimeoutMs, the original's name).
export const DEFAULT_RESPONSE_TIMEOUT_MS = 30_000;

// Batched messages (docs/protocol.md): the SDK asks Core for them with
// ?batch=1. Core then greets with a hello and may send several frames as
// one message, a JSON array, which is one browser task instead of several;
// after the hello the SDK sends the requests it makes within one task (the
// results of handlers that finished together) as one array too.
const BATCH_QUERY = "batch=1";

type Frame = ResponseFrame | EventFrame | HelloFrame;

/** What the hello allows the page to send as one message. */
type BatchLimits = { maxFrames: number; maxBytes: number };

export class Connection {
  private socket: SocketLike | null = null;
  private opening: Promise<SocketLike> | null = null;
  private nextId = 1;
  // In the order requests were sent, so in the order of their deadlines:
  // one timer watches the oldest instead of one timer per request.
  private readonly pending = new Map<number, Pending>();
  private deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  private batch: BatchLimits | null = null;
  // Requests waiting for the end of the current task to leave as one message.
  private outbox: { id: number; text: string }[] = [];
  private outboxSocket: SocketLike | null = null;
  // Frames received and not handled yet (see drain), from drained on.
  private backlog: Frame[] = [];
  private drained = 0;
  private resuming = false;
  private readonly sinks = new Map<string, Sink>();
  private readonly early = new Map<string, EventFrame[]>();
  private readonly closeListeners = new Set<(err: PedelecError) => void>();
  /** Which Core this page trusts (core-identity.ts). */
  readonly identity: CoreIdentity;
  /** The open socket's check of Core's proof (its hello). */
  private proofCheck: Promise<void> | null = null;

  constructor(
    readonly url: string,
    private readonly factory: SocketFactory,
    private readonly probe: ReachabilityProbe = fetchProbe,
    private readonly timeoutMs: number = DEFAULT_RESPONSE_TIMEOUT_MS,
    keys?: KeyStore,
  ) {
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
  trustCore(): Promise<void> {
    return (this.proofCheck ?? Promise.resolve())
      .then(() => this.identity.remember())
      .then(
        () => {},
        () => {}, // a proof that failed, or nothing to remember it in
      );
  }

  /** Opens the socket if it is not open: resolves once Core accepted this page, rejects as a request would. */
  async ready(): Promise<void> {
    await this.open();
  }

  /** What answers at Core's address over plain HTTP (whatever it thinks of this page's origin). */
  look(): Promise<Sighting> {
    // Bounded as a request is: the program on Core's port may accept the
    // probe and never answer it, and the error of the socket that did not
    // open waits for this. Something that holds the port and says nothing
    // is not Core, as far as the page can tell.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const silent = new Promise<Sighting>((r) => (timer = setTimeout(() => r("not_core"), this.timeoutMs)));
    return Promise.race([this.probe(httpBase(this.url)).then(sighting, () => "nothing" as const), silent]).finally(() => clearTimeout(timer));
  }

  /**
   * Sends one request and resolves with its result, or rejects with its
   * error; params and result are the method's (protocol.gen.ts, generated
   * from Core's own list).
   */
  request<M extends Method>(method: M, params: ParamsOf<M>, timeoutMs?: number): Promise<ResultOf<M>> {
    return this.send<ResultOf<M>>(method, params, timeoutMs);
  }

  /**
   * request for any method name: Pedelec.request, the original's untyped
   * escape hatch, sends what the page names. T is not checked.
   */
  async send<T>(method: string, params: unknown, timeoutMs?: number): Promise<T> {
    const socket = this.socket && this.socket.readyState === OPEN ? this.socket : await this.open();
    const id = this.nextId++;
    const frame = { type: "request", id, method, params };
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, method, deadline: Date.now() + (timeoutMs ?? this.timeoutMs) });
      this.watchDeadlines();
      let text: string;
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
  private sendNow(socket: SocketLike, ids: number | number[], text: string) {
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
  private queue(socket: SocketLike, id: number, text: string) {
    if (this.outbox.length === 0) {
      this.outboxSocket = socket;
      queueMicrotask(() => this.flush());
    }
    this.outbox.push({ id, text });
  }

  /** Sends the held requests: alone, or as arrays within the hello's limits. */
  private flush() {
    const queued = this.outbox;
    const socket = this.outboxSocket;
    this.outbox = [];
    this.outboxSocket = null;
    const limits = this.batch;
    // A socket that closed meanwhile already failed these requests.
    if (!socket || socket !== this.socket || !limits) return;
    let i = 0;
    while (i < queued.length) {
      // "[" + frames joined by "," + "]"; a request too large to share a
      // message goes alone, and Core answers it as it would have.
      let bytes = 1 + byteLength(queued[i]!.text) + 1;
      let j = i + 1;
      while (j < queued.length && j - i < limits.maxFrames) {
        const next = byteLength(queued[j]!.text) + 1;
        if (bytes + next > limits.maxBytes) break;
        bytes += next;
        j++;
      }
      const group = queued.slice(i, j);
      if (group.length === 1) this.sendNow(socket, group[0]!.id, group[0]!.text);
      else this.sendNow(socket, group.map((q) => q.id), `[${group.map((q) => q.text).join(",")}]`);
      i = j;
    }
  }

  /** Keeps one timer armed for the oldest request's deadline. */
  private watchDeadlines() {
    if (this.deadlineTimer !== undefined) return keepAlive(this.deadlineTimer, true);
    const oldest = this.pending.values().next();
    if (oldest.done) return;
    this.deadlineTimer = setTimeout(() => {
      this.deadlineTimer = undefined;
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
  subscribe(sessionId: string, sink: Sink): () => void {
    this.sinks.set(sessionId, sink);
    const waiting = this.early.get(sessionId);
    this.early.delete(sessionId);
    for (const ev of waiting ?? []) sink(ev);
    return () => {
      if (this.sinks.get(sessionId) === sink) this.sinks.delete(sessionId);
    };
  }

  /** Called with the reason whenever an open socket closes. */
  onClose(listener: (err: PedelecError) => void): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  close(): void {
    this.socket?.close(1000, "closed by the page");
  }

  private open(): Promise<SocketLike> {
    if (this.socket && this.socket.readyState === OPEN) return Promise.resolve(this.socket);
    if (this.opening) return this.opening;
    // Which Core this page trusts is read before anything is opened: a
    // page's own key store that throws or rejects leaves the page unable to
    // tell Core from another program on its port, so it opens nothing and
    // says so at once (it used to throw inside onopen, leaving the socket
    // open and every request waiting forever).
    let trusted: Promise<string | null>;
    try {
      trusted = Promise.resolve(this.identity.expected());
    } catch (err) {
      trusted = Promise.reject(err);
    }
    this.opening = trusted.then(
      (expected) => this.connect(expected),
      (err: unknown) => {
        this.opening = null;
        throw this.identity.storeFailed(this.url, err);
      },
    );
    return this.opening;
  }

  /** Opens a socket to Core; expected is the key the page trusts, if any. */
  private connect(expected: string | null): Promise<SocketLike> {
    return new Promise<SocketLike>((resolve, reject) => {
      let socket: SocketLike;
      const nonce = CoreIdentity.nonce();
      try {
        socket = this.factory(withProof(withBatch(this.url), nonce));
      } catch (err) {
        this.opening = null;
        reject(new PedelecError("CORE_UNREACHABLE", `Could not open a WebSocket to ${this.url}: ${String(err)}`));
        return;
      }
      let opened = false;
      // Set once this attempt has its outcome (open, refused, closed, timed
      // out): what is still armed for it (the hello's limit, a proof check
      // still running) then touches nothing, above all not the connection
      // a later attempt made.
      let settled = false;
      let noHelloTimer: ReturnType<typeof setTimeout> | undefined;
      // The WebSocket handshake itself is bounded as a request is: a
      // program on Core's port may accept the connection and never answer
      // the upgrade, or answer it a byte at a time, and the browser's own
      // limit is minutes. Past it the socket is dropped, nothing was sent
      // on it, and the caller (or the reconnect) gets an error it can act on.
      const handshake = setTimeout(() => {
        settled = true;
        socket.onopen = null;
        socket.onmessage = null;
        socket.onclose = null;
        held = null;
        this.opening = null;
        try {
          socket.close(1000, "no WebSocket handshake in time");
        } catch {
          // not open yet: closing fails it, which is all that is wanted
        }
        reject(
          new PedelecError(
            "CORE_UNREACHABLE",
            `Something accepted the connection at ${httpBase(this.url)} but did not complete the WebSocket handshake within ${this.timeoutMs} ms: a Core too busy to answer, or another program holding its port while Core is down. Nothing was sent to it; is \`pedelec serve\` running?`,
            { url: this.url, found: "no_handshake", timeoutMs: this.timeoutMs },
          ),
        );
      }, this.timeoutMs);
      const accept = () => {
        opened = true;
        this.batch = null; // until this socket's hello
        this.socket = socket;
        this.opening = null;
        resolve(socket);
      };
      // Core's first message is its hello, with its proof of the nonce.
      let helloArrived: (check: Promise<void>) => void = () => {};
      const hello = new Promise<Promise<void>>((r) => (helloArrived = r));
      let first = true;
      // What a socket that must prove Core's key sends before it has:
      // held, not handled, so a program on Core's port gets no handler run,
      // no chat shown and no session ended by events it sends ahead of (or
      // instead of) its hello. Handled in order once the proof holds,
      // dropped if it does not.
      let held: unknown[] | null = null;
      socket.onmessage = (ev) => {
        if (first) {
          first = false;
          const check = this.identity.check(nonce, proofIn(ev.data), this.url, expected);
          this.proofCheck = check;
          check.catch(() => {}); // handled where it matters, below
          helloArrived(check);
        }
        if (held) held.push(ev.data);
        else this.receive(ev.data);
      };
      socket.onopen = () => {
        clearTimeout(handshake);
        this.proofCheck = null;
        // A page that never trusted a Core: trust-on-first-use, and the
        // proof is checked beside the first requests, for trustCore().
        if (expected === null) return accept();
        held = [];
        // A page that trusts a Core sends nothing until this one proves it.
        const noHello = new Promise<never>((_, rej) => {
          noHelloTimer = setTimeout(() => rej(this.identity.refusal(this.url, "it sent no hello within " + this.timeoutMs + " ms", expected ?? "")), this.timeoutMs);
        });
        Promise.race([hello.then((check) => check), noHello]).then(
          () => {
            clearTimeout(noHelloTimer);
            if (settled) return; // closed meanwhile: its onclose said so
            settled = true;
            const proven = held ?? [];
            held = null;
            accept();
            // The hello first: its limits are this socket's (accept
            // forgets the last socket's).
            for (const data of proven) this.receive(data);
          },
          (err: PedelecError) => {
            clearTimeout(noHelloTimer);
            if (settled) return;
            settled = true;
            held = null;
            socket.onclose = null;
            socket.onmessage = null;
            // Nothing of this socket reached the backlog (it was held), so
            // the backlog is left alone.
            this.opening = null;
            try {
              socket.close(1000, "not the Core this page trusts");
            } catch {
              // already closed
            }
            reject(err);
          },
        );
      };
      socket.onerror = () => {
        // The browser hides why a WebSocket failed; onclose follows with the code.
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
          // Core refuses a page's origin with an HTTP 403 before the
          // WebSocket opens, and browsers hide that status (close 1006).
          // If Core answers plain HTTP, the refusal is the likely cause.
          void this.look().then((seen) => reject(seenError(this.url, seen, err)));
          return;
        }
        if (this.socket === socket) {
          this.socket = null;
          this.batch = null;
        }
        this.drainNow(); // received before the close, so handled before it
        this.failPending(err);
        for (const listener of [...this.closeListeners]) listener(err);
      };
    });
  }

  private failPending(err: PedelecError) {
    const pending = [...this.pending.values()];
    this.pending.clear();
    keepAlive(this.deadlineTimer, false);
    this.outbox = [];
    this.outboxSocket = null;
    for (const p of pending) p.reject(err);
  }

  private receive(data: unknown) {
    if (typeof data !== "string") return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return; // Core only sends JSON; anything else is not ours to act on.
    }
    // An array is several frames sent as one message: each means what it
    // would mean alone, in order.
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
  private drain() {
    while (this.drained < this.backlog.length) {
      const frame = this.backlog[this.drained++]!;
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
  private drainNow() {
    while (this.drained < this.backlog.length) this.handle(this.backlog[this.drained++]!);
    this.backlog = [];
    this.drained = 0;
  }

  private handle(frame: Frame) {
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
        if (this.early.size >= MAX_EARLY_SESSIONS) this.early.delete(this.early.keys().next().value!);
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
}

/**
 * A frame is an object with a type; which type, and the rest of it, is
 * handle's to read: Core wrote it from the same types as protocol.gen.ts.
 */
function isFrame(v: unknown): v is Frame {
  return typeof v === "object" && v !== null && "type" in v && typeof v.type === "string";
}

/**
 * A timer kept armed while nothing waits on it must not keep Node's event
 * loop alive (tests); while something waits, it must. Browser timers are
 * numbers, for which this does nothing.
 */
export function keepAlive(timer: unknown, on: boolean) {
  const t = timer as { ref?: () => void; unref?: () => void } | undefined;
  if (on) t?.ref?.();
  else t?.unref?.();
}

/**
 * Runs fn in a task of its own, soon. Not setTimeout: a timer set from a
 * timer callback is clamped to 4 ms after five levels, which a steady
 * stream of calls reaches. A MessageChannel task is not clamped (browsers);
 * Node has setImmediate (tests).
 */
const nextTask: (fn: () => void) => void = (() => {
  const g = globalThis as { setImmediate?: (fn: () => void) => unknown };
  if (typeof g.setImmediate === "function") return (fn) => void g.setImmediate!(fn);
  if (typeof MessageChannel !== "function") return (fn) => void setTimeout(fn, 0);
  const queue: (() => void)[] = [];
  let channel: MessageChannel | null = null;
  return (fn) => {
    if (!channel) {
      channel = new MessageChannel();
      channel.port1.onmessage = () => queue.shift()?.();
    }
    queue.push(fn);
    channel.port2.postMessage(null);
  };
})();

/** Core's WebSocket URL, asking for a proof of Core's key over nonce. */
export function withProof(url: string, nonce: string): string {
  return url + (url.includes("?") ? "&" : "?") + "proof=" + nonce;
}

/** The proof in a hello message, if it is one that carries it. */
function proofIn(data: unknown): Proof | null {
  if (typeof data !== "string") return null;
  try {
    const frame = JSON.parse(data) as Partial<HelloFrame> | null;
    if (frame?.type === "hello" && typeof frame.coreKey === "string" && typeof frame.coreProof === "string") {
      return { key: frame.coreKey, signature: frame.coreProof };
    }
  } catch {
    // not JSON: not a hello
  }
  return null;
}

/** host:port of Core's URL: what a page remembers Core's key under. */
function coreHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** Core's WebSocket URL, asking for batched messages. */
export function withBatch(url: string): string {
  return url + (url.includes("?") ? "&" : "?") + BATCH_QUERY;
}

const encoder = typeof TextEncoder !== "undefined" ? new TextEncoder() : null;

/**
 * At least the UTF-8 bytes of s (every UTF-16 unit is at most 3 of them):
 * counted only for a long request, where the bound could keep it from
 * sharing a message it would fit in.
 */
function byteLength(s: string): number {
  if (s.length < 4096 || !encoder) return s.length * 3;
  return encoder.encode(s).length;
}

function httpBase(wsUrl: string): string {
  const u = new URL(wsUrl);
  return `${u.protocol === "wss:" ? "https:" : "http:"}//${u.host}`;
}

/**
 * This page's origin as Core sees it (the Origin header it sent): "null"
 * for an opaque one (a sandboxed frame without allow-same-origin, a data:
 * or file: page), whose location.origin is still its URL's origin.
 */
function pageOrigin(): string {
  const own = (globalThis as { origin?: unknown }).origin;
  if (typeof own === "string" && own !== "") return own;
  if (typeof location === "undefined") return "this page's origin";
  return location.origin;
}

// An opaque origin is refused whatever --allow-origin says (no one could
// approve "null"): the only way in is a page with an origin of its own.
const OPAQUE_ORIGIN =
  'this page\'s origin is opaque ("null": a frame sandboxed without allow-same-origin, or a data: or file: page), and Core allows no such page whatever --allow-origin says. Use the SDK from a page with an http(s) origin (sandbox the frame with allow-same-origin too, or load it from its own URL) and allow that origin with --allow-origin';

/**
 * The error for a WebSocket that did not open, from what answers at its
 * address: each says what was found and the next step.
 */
function seenError(url: string, seen: Sighting, err: PedelecError): PedelecError {
  const base = httpBase(url);
  switch (seen) {
    case "core":
      return refusedError(url);
    case "host_refused":
      return new PedelecError(
        "HOST_NOT_ALLOWED",
        `Pedelec Core answers at ${base} but refuses that name: it accepts only loopback names unless it is told the address you reach it at. Behind a port forward with a name of its own, start it with pedelec serve --public-url ${base} (docs/remote.md).`,
        { url, found: "core_refused_host" },
      );
    case "not_core":
      return new PedelecError(
        "CORE_UNREACHABLE",
        `Something answers at ${base}, but it is not Pedelec Core: check the port (pedelec serve prints its address) and the url you gave new Pedelec({ url }). A forwarded port may point at another service.`,
        { url, found: "not_pedelec" },
      );
  }
  return new PedelecError(
    "CORE_UNREACHABLE",
    `Nothing answers at ${base}: is \`pedelec serve\` running? If it runs on another machine (a dev box, a container, Codespaces), forward its port and pass the address your browser reaches as new Pedelec({ url }) (docs/remote.md).`,
    { ...(isObject(err.details) ? err.details : {}), url, found: "nothing" },
  );
}

function refusedError(url: string): PedelecError {
  const origin = pageOrigin();
  if (origin === "null") {
    return new PedelecError("ORIGIN_NOT_ALLOWED", `Pedelec Core at ${url} is running but refused this page's connection: ${OPAQUE_ORIGIN}.`, {
      url,
      origin,
      inferred: true,
    });
  }
  return new PedelecError(
    "ORIGIN_NOT_ALLOWED",
    `Pedelec Core at ${url} is running but refused this page's connection: its origin ${origin} is not allowed. Start Core with --allow-origin ${origin} (or PEDELEC_ALLOW_ORIGIN=${origin}); Core's log names the reason.`,
    { url, origin, inferred: true },
  );
}

/**
 * Turns a close into an error a developer can act on. Core closes with an
 * application code (4000-4999) and a JSON {code, message} reason when it
 * refuses a connection after accepting it; a browser that was refused
 * during the handshake only sees 1006, so the message names the usual
 * causes.
 */
export function closeError(url: string, code: number, reason: string, opened: boolean): PedelecError {
  if (reason) {
    try {
      const parsed: unknown = JSON.parse(reason);
      if (isErrorData(parsed)) return PedelecError.from(parsed);
    } catch {
      // a plain-text reason
    }
  }
  if (code === 1009) return new PedelecError("MESSAGE_TOO_LARGE", `Pedelec Core closed the connection: a message was too large${reason ? ` (${reason})` : ""}`);
  if (!opened) {
    const origin = pageOrigin();
    if (origin === "null") {
      return new PedelecError("CORE_UNREACHABLE", `Could not connect to Pedelec Core at ${url}${reason ? `: ${reason}` : ""}. Is \`pedelec serve\` running? Besides, ${OPAQUE_ORIGIN}.`, {
        url,
        closeCode: code,
      });
    }
    return new PedelecError(
      "CORE_UNREACHABLE",
      `Could not connect to Pedelec Core at ${url}${reason ? `: ${reason}` : ""}. Is \`pedelec serve\` running, and is ${origin} allowed (pedelec serve --allow-origin ${origin})?`,
      { url, closeCode: code },
    );
  }
  return new PedelecError("CORE_UNREACHABLE", `The connection to Pedelec Core at ${url} closed (code ${code}${reason ? `: ${reason}` : ""})`, { url, closeCode: code });
}
