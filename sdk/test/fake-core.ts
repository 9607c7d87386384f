// A fake Core on the far side of a fake WebSocket: tests script its
// answers per method and push events, and read every request the SDK sent.
import type { SocketLike } from "../src/client/connection.js";
import type { Method } from "../src/client/protocol.gen.js";
import { Pedelec } from "../src/client.js";

/** A request as the SDK sent it; each test reads the params it expects. */
type RequestFrame = { type: "request"; id: number; method: Method; params: unknown };
/** An event as a test pushes it: any name, any data, so malformed ones too. */
type EventFrame = { type: "event"; event: string; sessionId: string; seq: number; turnId?: string; data: unknown };

type Answer = { result: unknown } | { error: { code: string; message: string; details?: unknown } };
type Handler = (params: any, frame: RequestFrame) => Answer | Promise<Answer> | undefined;

export class FakeSocket implements SocketLike {
  readyState = 0;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;

  /** Every message the SDK sent on this socket, as sent. */
  readonly messages: string[] = [];

  // Settled once the hello (if any) is delivered: as Core, this "Core"
  // answers nothing before its hello, however long a hello made from the
  // socket's URL (a signed proof) takes.
  private greet: () => void = () => {};
  private readonly greeted = new Promise<void>((r) => (this.greet = r));

  constructor(private readonly core: FakeCore, refuse?: { code: number; reason: string }, readonly url = "") {
    setTimeout(() => {
      if (refuse) {
        this.readyState = 3;
        this.onclose?.(refuse);
        return;
      }
      this.readyState = 1;
      this.onopen?.({});
      // A Core that speaks batched messages greets a page that asked for them.
      if (typeof core.hello === "function") {
        void Promise.resolve(core.hello(url)).then((h) => {
          this.deliver(h);
          this.greet();
        });
        return;
      }
      if (core.hello && url.includes("batch=1")) this.deliver(core.hello);
      this.greet();
    }, 0);
  }

  send(data: string): void {
    this.messages.push(data);
    const parsed = JSON.parse(data) as RequestFrame | RequestFrame[];
    const frames = Array.isArray(parsed) ? parsed : [parsed];
    void this.greeted.then(() => {
      for (const frame of frames) void this.core.receive(frame, this);
    });
  }

  close(code = 1000, reason = ""): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    setTimeout(() => this.onclose?.({ code, reason }), 0);
  }

  deliver(frame: unknown): void {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }

  /** Delivers several frames as one message, as Core does for a page that asked for batches. */
  deliverBatch(frames: unknown[]): void {
    this.onmessage?.({ data: JSON.stringify(frames) });
  }
}

export class FakeCore {
  readonly requests: RequestFrame[] = [];
  readonly handlers: Record<string, Handler> = {};
  sockets: FakeSocket[] = [];
  refuse: { code: number; reason: string } | undefined;
  /** Whether plain HTTP reaches this "Core" (the origin-refusal probe). */
  httpUp: boolean | "core" | "host_refused" | "not_core" | "nothing" = false;
  /** The hello this "Core" greets ?batch=1 sockets with (or makes from the socket's URL); none: an older Core. */
  hello: unknown = undefined;
  private seqs = new Map<string, number>();
  private nextTurn = 1;

  constructor() {
    this.handlers.list_providers = () => ({ result: { providers: [{ name: "script", available: true }], defaultProvider: "script" } });
    this.handlers.create_session = (p) => ({
      result: { sessionId: "s_1", provider: p.provider ?? "script", model: p.model ?? "", status: "idle", seq: 0, tools: p.skills.tools.map((t: { name: string }) => t.name), autoEndOnDisconnect: p.autoEndOnDisconnect ?? true },
    });
    this.handlers.send_text = () => ({ result: { turnId: `t_${this.nextTurn++}`, startedAt: 1000 } });
    this.handlers.prepare = () => ({ result: { turnId: `t_${this.nextTurn++}`, startedAt: 1000 } });
    this.handlers.submit_tool_result = () => ({ result: {} });
    this.handlers.end_session = () => ({ result: {} });
  }

  client(extra: object = {}): Pedelec {
    return new Pedelec({ url: "ws://127.0.0.1:7077/ws", socketFactory: (url: string) => this.open(url), probe: async () => this.httpUp, ...extra } as never);
  }

  open(url = ""): FakeSocket {
    const s = new FakeSocket(this, this.refuse, url);
    this.sockets.push(s);
    return s;
  }

  get socket(): FakeSocket {
    const s = this.sockets[this.sockets.length - 1];
    if (!s) throw new Error("no socket yet");
    return s;
  }

  async receive(frame: RequestFrame, socket: FakeSocket) {
    this.requests.push(frame);
    const h = this.handlers[frame.method];
    const answer = h ? await h(frame.params, frame) : { error: { code: "UNKNOWN_METHOD", message: frame.method } };
    if (!answer) return; // the test answers by hand
    setTimeout(() => socket.deliver({ type: "response", id: frame.id, ok: "result" in answer, ...answer }), 0);
  }

  /** Pushes an event with the next seq of its session (or the one given). */
  event(event: string, data: unknown, opts: { sessionId?: string; turnId?: string; seq?: number } = {}): EventFrame {
    const frame = this.eventFrame(event, data, opts);
    this.socket.deliver(frame);
    return frame;
  }

  /** An event with the next seq of its session (or the one given), not yet delivered. */
  eventFrame(event: string, data: unknown, opts: { sessionId?: string; turnId?: string; seq?: number } = {}): EventFrame {
    const sessionId = opts.sessionId ?? "s_1";
    const seq = opts.seq ?? (this.seqs.get(sessionId) ?? 0) + 1;
    this.seqs.set(sessionId, Math.max(seq, this.seqs.get(sessionId) ?? 0));
    return { type: "event", event, sessionId, seq, data, ...(opts.turnId ? { turnId: opts.turnId } : {}) };
  }

  sent(method: string): RequestFrame[] {
    return this.requests.filter((r) => r.method === method);
  }
}

export const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

export async function until(cond: () => boolean, what: string, timeoutMs = 2000) {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await tick(2);
  }
}
