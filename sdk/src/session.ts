// One Pedelec session in the page: it mirrors Core's status, turns
// sendText into a promise of the turn's end, and answers Core's tool calls
// with the page's handlers. Its public shape is the original SDK's
// PedelecSession; listeners get (value, ctx) with the documented contexts.

import { keepAlive, type Connection } from "./client/connection.js";
import { worthRetrying } from "./client/reconnect.js";
import type {
  ChatDeltaData,
  DoneData,
  EndedData,
  ErrorEventData,
  EventFrame,
  EventsTruncatedData,
  SessionInfo,
  StatusChangedData,
  ToolCallData,
  ToolCallSettledData,
  TurnStarted,
} from "./client/protocol.js";
import { listAssets, readAsset, uploadAsset } from "./assets.js";
import { PedelecError } from "./errors.js";
import { HandlerRegistry, type Outcome } from "./handlers.js";
import { progressReporter } from "./progress.js";
import { Emitter } from "./listeners.js";
import { SeqGate } from "./seq.js";
import { TOOL_NAME_PATTERN } from "./validate.js";
import type {
  AnyToolDefinition,
  ApprovalPending,
  ChatEventContext,
  Disposer,
  EndedEventContext,
  ErrorEventContext,
  GenericToolHandler,
  JsonValue,
  PedelecEventContext,
  PedelecSessionStatus,
  PendingTool,
  ReadAssetType,
  SandboxAsset,
  SandboxAssetPath,
  StatusEventContext,
  ToolArgs,
  ToolCallContext,
  ToolProgress,
  AgentActivity,
  ToolDefinition,
  ToolSpecificHandler,
  TurnResult,
} from "./types.js";

type Turn = {
  turnId: string | null;
  startedAt: number;
  kind: "user" | "prepare";
  text: string;
  resolve: (r: TurnResult) => void;
  reject: (e: PedelecError) => void;
};

type RunningCall = { tool: string; controller: AbortController; deadline: number };

const STATUSES: readonly PedelecSessionStatus[] = ["idle", "running", "waiting_tool_result", "waiting_approval", "ended", "error"];

/** @internal What the Pedelec client hands a new session. */
export type SessionInit = {
  connection: Connection;
  info: SessionInfo;
  tools: readonly AnyToolDefinition[];
  /** Called once when the session ends, so the client can forget it. */
  onForget?: () => void;
  /** Answers chosen calls another way, from the first event on (follow.ts). */
  router?: (toolRequestId: string, tool: string) => ((args: unknown, ctx: ToolCallContext) => unknown) | undefined;
};

/**
 * One agent session. TToolName narrows onTool(name, ...) to the declared
 * tool names; TTools (a Pedelec Core addition) lets a named handler's
 * arguments be typed from the definition.
 */
export class PedelecSession<
  TToolName extends string = string,
  TTools extends readonly AnyToolDefinition[] = readonly ToolDefinition[],
> {
  /** Core's id for this session; keep it to resumeSession() after a reload. */
  readonly sessionId: string;
  /** The provider running the agent (codex, claude, openai, script, ...). */
  readonly provider: string;
  /** The model, when one was chosen (explicitly or by Core's configuration). */
  readonly model?: string;
  /** When this session object was constructed (browser Date.now()). */
  readonly sessionCreatedAt: number;
  /** Pedelec Core addition: the tool names Core registered for this session. */
  readonly tools: readonly string[];
  /** Pedelec Core addition: whether Core ends the session when this page disconnects. */
  readonly autoEndOnDisconnect: boolean;
  /** Pedelec Core addition: how long Core waits for the next page before a disconnect ends the session (followPage); 0 without. */
  readonly disconnectGraceMs: number;

  private readonly connection: Connection;
  private readonly registry: HandlerRegistry;
  private readonly seq: SeqGate;
  private readonly onForget: (() => void) | undefined;
  private status: PedelecSessionStatus;
  private waitingOn: PendingTool[] = [];
  private turn: Turn | null = null;
  private preparing: Promise<void> | null = null;
  private prepared = false;
  private readonly earlyDone = new Map<string, DoneData>();
  private readonly otherTurns = new Map<string, { text: string; startedAt: number }>();
  private readonly calls = new Map<string, RunningCall>();
  // One timer for the running calls' deadlines, armed for the earliest and
  // left armed when calls finish early (it then finds nothing to abort and
  // re-arms for the next), instead of a timer set and cleared per call.
  private deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  private deadlineAt = Infinity;
  private ended = false;
  /** The connection dropped and the session has not been resumed yet. */
  private reconnecting = false;
  private reconnected: Promise<void> | null = null;
  private markReconnected: (() => void) | null = null;
  /** The origin approval a reconnect waits for (status waiting_approval with no calls). */
  private originApproval: ApprovalPending | undefined;
  /** Core's status as of the last resume, to know whether a turn can still end. */
  private coreStatus: PedelecSessionStatus = "idle";
  private readonly unsubscribe: () => void;
  /** Run once when the session ends (webmcp/: stop following the page's tools, unregister from the browser). */
  private readonly cleanups: (() => void)[] = [];
  private browserCalls = 0;
  /** Answers some calls another way than by tool name (follow.ts: calls the previous page was running). */
  private readonly router: ((toolRequestId: string, tool: string) => ((args: unknown, ctx: ToolCallContext) => unknown) | undefined) | undefined;

  private readonly chat = new Emitter<[string, ChatEventContext]>();
  private readonly statusEmitter = new Emitter<[PedelecSessionStatus, StatusEventContext]>();
  private readonly errors = new Emitter<[PedelecError, ErrorEventContext]>();
  private readonly endedEmitter = new Emitter<[EndedEventContext]>();

  /** @internal Sessions come from Pedelec.createSession / resumeSession. */
  constructor(init: SessionInit) {
    if (!init?.info || !init.connection) {
      throw new TypeError("Pedelec: sessions come from pedelec.createSession() or pedelec.resumeSession()");
    }
    const { info } = init;
    this.sessionId = info.sessionId;
    this.provider = info.provider ?? "";
    if (info.model) this.model = info.model;
    this.sessionCreatedAt = Date.now();
    this.tools = Object.freeze([...(info.tools ?? [])]);
    this.autoEndOnDisconnect = info.autoEndOnDisconnect !== false;
    this.disconnectGraceMs = typeof info.disconnectGraceMs === "number" ? info.disconnectGraceMs : 0;
    this.connection = init.connection;
    this.onForget = init.onForget;
    this.registry = new HandlerRegistry(init.tools);
    this.seq = new SeqGate(info.seq ?? 0);
    this.router = init.router;
    this.status = STATUSES.includes(info.status) ? info.status : "idle";
    if (this.status === "ended") this.ended = true;
    this.unsubscribe = this.connection.subscribe(this.sessionId, (ev) => this.receive(ev));
  }

  // ---- turns ----

  /**
   * Starts one user turn. Resolves when the turn is over; rejects with the
   * turn's error, SESSION_BUSY when a turn is already running (one at a
   * time), or SESSION_ENDED when the session ends first. The text arrives
   * through onChat; sendTurn() also resolves with it.
   */
  async sendText(text: string): Promise<void> {
    await this.sendTurn(text);
  }

  /**
   * Pedelec Core addition: sendText that resolves with the turn's record,
   * {turnId, startedAt, text}, text being the whole assistant message.
   */
  async sendTurn(text: string): Promise<TurnResult> {
    if (typeof text !== "string") {
      throw new PedelecError("INVALID_INPUT", "sendText(text): text must be a string");
    }
    // A preparation in flight goes first; if it fails, the turn runs anyway.
    if (this.preparing) await this.preparing.catch(() => {});
    return this.startTurn("send_text", { sessionId: this.sessionId, text }, "user");
  }

  /**
   * Warms the provider up before the first user turn; its chat is not
   * delivered. Idempotent once it succeeded; concurrent callers share one
   * promise. SESSION_BUSY during a user turn, SESSION_ENDED after end.
   */
  prepare(): Promise<void> {
    if (this.ended) return Promise.reject(this.endedError());
    // As the original: a user turn makes prepare() busy, even once prepared.
    if (this.turn?.kind === "user") {
      return Promise.reject(new PedelecError("SESSION_BUSY", "prepare() during a user turn: the session is already running one; prepare before the first sendText", { turnId: this.turn.turnId }));
    }
    if (this.prepared) return Promise.resolve();
    if (this.preparing) return this.preparing;
    const p = this.startTurn("prepare", { sessionId: this.sessionId }, "prepare").then(
      () => {
        this.prepared = true;
      },
    );
    this.preparing = p;
    const clear = () => {
      if (this.preparing === p) this.preparing = null;
    };
    p.then(clear, clear);
    return p;
  }

  /**
   * Ends the session: Core stops its provider and fails its pending calls.
   * Resolves at once on an ended session. When Core cannot be told, it
   * reports the error through onError, rejects, and the session stays as it was.
   */
  async end(): Promise<void> {
    if (this.ended) return;
    try {
      await this.connection.request("end_session", { sessionId: this.sessionId });
    } catch (err) {
      const e = PedelecError.from(err);
      // Gone already is what end() wanted; anything else is worth knowing.
      if (e.code !== "THREAD_NOT_FOUND" && e.code !== "SESSION_ENDED") {
        this.emitError(e, "sdk");
        throw e;
      }
    }
    this.markEnded("end_session", "sdk");
  }

  /**
   * True while the connection to Core is lost and the SDK is reconnecting
   * (status "error", an onError CORE_UNREACHABLE with details.reconnecting).
   * When Core is back the session is resumed by itself, the events it
   * missed are replayed, and the status becomes Core's again.
   */
  isReconnecting(): boolean {
    return this.reconnecting;
  }

  /**
   * The current status: idle, running, waiting_tool_result,
   * waiting_approval (a call waits for the user's consent, or, while
   * reconnecting, this origin waits for the user's approval:
   * getOriginApproval()), ended or error.
   */
  getStatus(): PedelecSessionStatus {
    return this.status;
  }

  /**
   * Pedelec Core addition: the origin approval this session waits for
   * while it reconnects ({origin, requestId, url, error?}; error is
   * OPEN_POPUP_FAILED when the window was blocked), or null.
   */
  getOriginApproval(): ApprovalPending | null {
    return this.originApproval ? { ...this.originApproval } : null;
  }

  /** Pedelec Core addition: the calls the agent waits on right now (while waiting_tool_result), oldest first. */
  getWaitingOn(): PendingTool[] {
    return this.waitingOn.map((p) => ({ ...p }));
  }

  // ---- listeners ----

  /** Streams the assistant's text of user turns: (delta, ctx); ctx.text is the turn's message so far. */
  onChat(handler: (text: string, ctx: ChatEventContext) => void): () => void {
    return this.chat.add(handler);
  }

  /** Status changes, deduplicated; not called with the initial status (use getStatus()). */
  onStatus(handler: (status: PedelecSessionStatus, ctx: StatusEventContext) => void): () => void {
    return this.statusEmitter.add(handler);
  }

  /**
   * Errors that belong to no promise: Core's error events (ctx.source
   * "core"), a result that could not be submitted (SUBMIT_TOOL_RESULT_FAILED:
   * Core refused it, or it is not JSON), a lost connection, a failed end().
   * A handler that throws, or no handler, is told to the agent only.
   */
  onError(handler: (error: PedelecError, ctx: ErrorEventContext) => void): () => void {
    return this.errors.add(handler);
  }

  /** Called once when the session first becomes ended. */
  onEnded(handler: (ctx: EndedEventContext) => void): () => void {
    return this.endedEmitter.add(handler);
  }

  /** Registers the generic fallback for tools that have no named or inline handler. */
  onTool(handler: GenericToolHandler<TToolName>): () => void;
  /**
   * Registers the handler for one tool; it overrides the definition's
   * inline handler. Its arguments are typed from the definition when the
   * session knows it; its result is free (a domain error is a result too).
   */
  onTool<N extends TToolName>(toolName: N, handler: ToolSpecificHandler<ToolArgs<TTools, N>, unknown>): () => void;
  onTool<TArgs = unknown, TResult = unknown>(toolName: TToolName, handler: ToolSpecificHandler<TArgs, TResult>): () => void;
  onTool(nameOrFallback: unknown, handler?: unknown): () => void {
    if (typeof nameOrFallback === "function") return this.registry.setFallback(nameOrFallback as GenericToolHandler);
    if (typeof nameOrFallback !== "string") {
      throw new PedelecError("INVALID_INPUT", "onTool: pass a tool name and a handler, or one fallback function (tool, args, ctx) => result");
    }
    if (!TOOL_NAME_PATTERN.test(nameOrFallback)) {
      throw new PedelecError(
        "INVALID_INPUT",
        `onTool: ${JSON.stringify(nameOrFallback)} is not a tool name: it must start with a letter and contain only letters, digits, "_", "." and "-" (the pattern is ^[a-zA-Z][a-zA-Z0-9_.-]*$)`,
        { tool: nameOrFallback },
      );
    }
    if (typeof handler !== "function") {
      throw new PedelecError("INVALID_INPUT", `onTool(${JSON.stringify(nameOrFallback)}, handler): handler must be a function`, { tool: nameOrFallback });
    }
    return this.registry.setNamed(nameOrFallback, handler as (args: unknown, ctx: ToolCallContext) => unknown);
  }

  // ---- assets (assets.ts): files the page and the agent share ----

  /**
   * Uploads a File (at most 100 MiB) to the session's assets/ directory, at
   * "/" + file.name or at targetPath (parents are created, a regular file
   * replaced). Resolves with the asset's path. One upload at a time.
   */
  uploadAsset(file: File): Promise<SandboxAssetPath>;
  uploadAsset(file: File, targetPath: SandboxAssetPath): Promise<SandboxAssetPath>;
  uploadAsset(file: File, targetPath?: SandboxAssetPath): Promise<SandboxAssetPath> {
    return uploadAsset(this.assetSession(), file, targetPath);
  }

  /** Every regular file in assets/, at every level, newest first, then by name. */
  listAssets(): Promise<SandboxAsset[]> {
    return listAssets(this.assetSession());
  }

  /** Reads an asset as strict UTF-8 text, parsed JSON, or a File (name, MIME type, mtime). */
  readAsset(path: SandboxAssetPath, type: "text"): Promise<string>;
  readAsset<T = JsonValue>(path: SandboxAssetPath, type: "json"): Promise<T>;
  readAsset(path: SandboxAssetPath, type: "file"): Promise<File>;
  readAsset(path: SandboxAssetPath, type: ReadAssetType): Promise<unknown> {
    return readAsset(this.assetSession(), path, type);
  }

  private assetSession() {
    return { connection: this.connection, sessionId: this.sessionId, ended: () => this.ended };
  }

  // ---- WebMCP (webmcp/): hooks for the page's tools that change while the session lives ----

  /** @internal Where the page's WebMCP tools' handlers are looked up. */
  setDynamicHandlers(lookup: (tool: string) => ((args: unknown, ctx: ToolCallContext) => unknown) | undefined): void {
    this.registry.setDynamic(lookup);
  }

  /** @internal The calls whose handlers run now in this page. */
  runningCalls(): PendingTool[] {
    return [...this.calls].map(([toolRequestId, call]) => ({ toolRequestId, tool: call.tool }));
  }

  /** @internal Runs fn when the session ends (at once if it has). */
  onCleanup(fn: () => void): void {
    if (this.ended) fn();
    else this.cleanups.push(fn);
  }

  /** @internal Reports an error that belongs to no promise, through onError. */
  reportError(err: PedelecError): void {
    this.emitError(err, "sdk");
  }

  /**
   * @internal Sends Core the session's whole new tool list (update_tools).
   * Core's refusal is reported through onError and rejects.
   */
  async updateTools(tools: JsonValue[]): Promise<void> {
    if (this.ended) return;
    try {
      if (this.reconnected) await this.reconnected;
      const res = await this.connection.request<{ tools?: string[] }>("update_tools", { sessionId: this.sessionId, tools });
      if (Array.isArray(res?.tools)) (this as { tools: readonly string[] }).tools = Object.freeze([...res.tools]);
    } catch (err) {
      const e = PedelecError.from(err);
      if (!this.ended) this.emitError(new PedelecError(e.code, `Core refused the page's new tool list: ${e.message}`, e.details), "sdk");
      throw e;
    }
  }

  /**
   * @internal Runs a tool's handler for the browser's own agent (a native
   * document.modelContext): the same handler Core's calls get, with a
   * context that says no Core turn is behind it. Rejects with the
   * handler's error message.
   */
  async runForBrowser(tool: string, input: unknown, signal: AbortSignal): Promise<JsonValue> {
    const now = Date.now();
    const ctx: ToolCallContext = {
      ...this.context("sdk"),
      type: "tool_call",
      toolRequestId: `webmcp_${++this.browserCalls}`,
      tool,
      turnId: "",
      turnStartedAt: now,
      eventReceivedAt: now,
      deadline: Number.MAX_SAFE_INTEGER,
      timeoutMs: 0,
      redelivered: false,
      signal,
    };
    const outcome = await this.registry.run(tool, input ?? {}, ctx);
    if (outcome.failure) throw new PedelecError(outcome.failure.code, outcome.failure.message, { tool });
    return outcome.result;
  }

  // ---- internals ----

  private endedError(): PedelecError {
    return new PedelecError("SESSION_ENDED", `Session ${this.sessionId} has ended`);
  }

  /** The context fields every listener gets. */
  private context(source: "core" | "sdk", eventReceivedAt?: number, turnId?: string): PedelecEventContext {
    const ctx: PedelecEventContext = {
      sessionId: this.sessionId,
      provider: this.provider,
      sessionCreatedAt: this.sessionCreatedAt,
      eventEmittedAt: Date.now(),
      source,
    };
    if (this.model !== undefined) ctx.model = this.model;
    if (eventReceivedAt !== undefined) ctx.eventReceivedAt = eventReceivedAt;
    const turn = this.turn;
    if (turn && (turnId === undefined || turn.turnId === null || turn.turnId === turnId)) {
      if (turn.turnId) ctx.turnId = turn.turnId;
      if (turn.startedAt) ctx.turnStartedAt = turn.startedAt;
      ctx.turnKind = turn.kind;
    } else if (turnId) {
      ctx.turnId = turnId;
      const other = this.otherTurns.get(turnId);
      if (other) ctx.turnStartedAt = other.startedAt;
      ctx.turnKind = "user";
    }
    return ctx;
  }

  private emitError(error: PedelecError, source: "core" | "sdk", eventReceivedAt?: number, turnId?: string) {
    const ctx: ErrorEventContext = { ...this.context(source, eventReceivedAt, turnId), type: source === "core" ? "error" : "sdk_error" };
    this.errors.emit(error, ctx);
  }

  private async startTurn(method: "send_text" | "prepare", params: unknown, kind: "user" | "prepare"): Promise<TurnResult> {
    if (this.ended) throw this.endedError();
    if (this.turn) {
      throw new PedelecError(
        "SESSION_BUSY",
        "A turn is already running in this session; wait for it to finish (its sendText promise settles) before sending another",
        { turnId: this.turn.turnId },
      );
    }
    let resolve!: (r: TurnResult) => void;
    let reject!: (e: PedelecError) => void;
    const done = new Promise<TurnResult>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    if (this.reconnecting) {
      throw new PedelecError("CORE_UNREACHABLE", "The connection to Pedelec Core is lost; the session reconnects by itself. Send again once its status changes.", { reconnecting: true });
    }
    const turn: Turn = { turnId: null, startedAt: Date.now(), kind, text: "", resolve, reject };
    this.turn = turn;
    const before = this.status;
    this.setStatus("running", "sdk", []);
    try {
      const started = await this.connection.request<TurnStarted>(method, params);
      turn.turnId = started.turnId;
      if (typeof started.startedAt === "number") turn.startedAt = started.startedAt;
    } catch (err) {
      const e = PedelecError.from(err);
      if (this.turn === turn) this.turn = null;
      if (e.code === "SESSION_ENDED" || e.code === "THREAD_NOT_FOUND") this.markEnded("end_session", "sdk");
      else if (this.status === "running" && !this.ended) this.setStatus(before, "sdk", this.waitingOn);
      throw e;
    }
    const early = turn.turnId ? this.earlyDone.get(turn.turnId) : undefined;
    if (early && turn.turnId) {
      this.earlyDone.delete(turn.turnId);
      this.finishTurn(turn, early);
    }
    return done;
  }

  private finishTurn(turn: Turn, data: DoneData) {
    if (this.turn === turn) this.turn = null;
    // A turn Core finished without a status change of its own (prepare() on
    // a warm or mcp session) must not leave the "running" the SDK set.
    if (this.status === "running" && !this.ended) this.setStatus(data.ok ? "idle" : "error", "sdk", []);
    if (data.ok) {
      turn.resolve({ turnId: turn.turnId ?? "", startedAt: turn.startedAt, text: turn.text });
    } else {
      turn.reject(PedelecError.from(data.error ?? { code: "PROVIDER_ERROR", message: "The turn failed" }));
    }
  }

  /**
   * @internal The connection to Core closed. The session waits in a visible
   * reconnecting state ("error", with an onError CORE_UNREACHABLE whose
   * details say reconnecting) while the client retries; a running turn and
   * running handlers are kept: Core replays what happened meanwhile.
   */
  connectionLost(err: PedelecError) {
    if (this.ended || this.reconnecting) return;
    this.reconnecting = true;
    this.reconnected = new Promise<void>((resolve) => (this.markReconnected = resolve));
    this.setStatus("error", "sdk", []);
    const lost = new PedelecError("CORE_UNREACHABLE", `${err.message}; reconnecting`, { reconnecting: true, cause: PedelecError.from(err).toJSON() });
    // Core ends an autoEndOnDisconnect session when its page goes: its turn
    // cannot finish, so the pending sendText rejects now, as the original's
    // did on a disconnect. A session that outlives its page keeps its turn
    // across the reconnect (ours: Core replays what happened meanwhile).
    const turn = this.turn;
    if (turn && this.autoEndOnDisconnect && this.disconnectGraceMs === 0) {
      this.turn = null;
      turn.reject(lost);
    }
    this.emitError(lost, "sdk");
  }

  /**
   * @internal One reconnect attempt: resume with the last seq handled, so
   * Core replays every event after it, once and in order.
   */
  async resumeAfterReconnect(): Promise<"done" | "retry"> {
    if (this.ended || !this.reconnecting) return "done";
    let info: SessionInfo;
    try {
      info = await this.connection.request<SessionInfo>("resume_session", { sessionId: this.sessionId, lastSeq: this.seq.lastSeq });
    } catch (err) {
      const e = PedelecError.from(err);
      if (worthRetrying(e)) return "retry";
      this.finishReconnect();
      // Ended meanwhile (autoEndOnDisconnect, the resume window, a new Core without it).
      this.markEnded(e.code === "SESSION_ENDED" ? "disconnect" : e.code.toLowerCase(), "core");
      return "done";
    }
    this.finishReconnect();
    this.coreStatus = STATUSES.includes(info.status) ? info.status : "idle";
    const waiting = [...this.calls].map(([toolRequestId, call]) => ({ toolRequestId, tool: call.tool }));
    this.setStatus(this.coreStatus, "core", waiting);
    return "done";
  }

  /**
   * @internal After a reconnect, Core no longer approves this origin and the
   * user is being asked: the session says it waits for approval (status
   * waiting_approval with no calls, ctx.originApproval naming the window)
   * and stays reconnecting until the decision.
   */
  approvalPending(pending: ApprovalPending) {
    if (this.ended || !this.reconnecting) return;
    this.setStatus("waiting_approval", "sdk", [], undefined, { ...pending });
  }

  /** @internal Core went away again while the user decided: back to plain reconnecting. */
  approvalInterrupted() {
    if (this.ended || !this.reconnecting || !this.originApproval) return;
    this.setStatus("error", "sdk", []);
  }

  /** @internal The user rejected the origin (or did not decide in time) while the session waited to resume. */
  approvalFailed(err: PedelecError) {
    if (this.ended) return;
    this.finishReconnect();
    this.emitError(err, "sdk");
    this.markEnded(err.code.toLowerCase(), "sdk");
  }

  /** @internal The page closed the client: Core ends autoEndOnDisconnect sessions. */
  clientClosed() {
    this.finishReconnect();
    if (this.autoEndOnDisconnect) this.markEnded("disconnect", "sdk");
  }

  /** @internal Reconnecting failed for good. */
  reconnectFailed(err: PedelecError) {
    if (this.ended) return;
    this.finishReconnect();
    this.emitError(err, "sdk");
    this.markEnded("core_unreachable", "sdk");
  }

  private finishReconnect() {
    this.reconnecting = false;
    this.markReconnected?.();
    this.markReconnected = null;
    this.reconnected = null;
  }

  private receive(ev: EventFrame) {
    if (this.ended || !this.seq.admit(ev.seq)) return;
    const receivedAt = Date.now();
    switch (ev.event) {
      case "status_changed": {
        const d = ev.data as StatusChangedData;
        if (!STATUSES.includes(d.status)) return;
        const waiting = [...(d.waitingOn ?? [])];
        // Calls waiting for consent are Core's alone: the page runs none.
        if (d.status !== "waiting_approval") for (const [toolRequestId, call] of this.calls) {
          if (!waiting.some((p) => p.toolRequestId === toolRequestId)) waiting.push({ toolRequestId, tool: call.tool });
        }
        this.setStatus(d.status, "core", waiting, receivedAt);
        return;
      }
      case "agent_activity":
        return this.onActivity(ev.turnId, ev.data as AgentActivity, receivedAt);
      case "chat_delta":
        return this.onDelta(ev.turnId, (ev.data as ChatDeltaData).text, receivedAt);
      case "tool_call":
        void this.dispatch(ev.turnId ?? "", ev.data as ToolCallData, receivedAt);
        return;
      case "tool_call_settled":
        return this.settled(ev.data as ToolCallSettledData);
      case "error": {
        const d = ev.data as ErrorEventData;
        this.emitError(PedelecError.from(d.error), "core", receivedAt, ev.turnId);
        return;
      }
      case "done":
        return this.onDone(ev.turnId, ev.data as DoneData);
      case "ended":
        return this.markEnded((ev.data as EndedData)?.reason ?? "ended", "core", receivedAt);
      case "events_truncated": {
        const d = ev.data as EventsTruncatedData;
        const err = PedelecError.from(d?.error ?? { code: "EVENTS_TRUNCATED", message: "Some of this session's events were lost while the page was away" });
        this.emitError(err, "core", receivedAt);
        // The turn's done may be among the lost: if Core is no longer
        // running it, it will not come.
        const turn = this.turn;
        if (turn && this.coreStatus !== "running" && this.coreStatus !== "waiting_tool_result" && this.coreStatus !== "waiting_approval") {
          this.turn = null;
          turn.reject(err);
        }
        return;
      }
    }
  }

  private onDelta(turnId: string | undefined, text: string, receivedAt: number) {
    if (typeof text !== "string") return;
    const turn = this.turn;
    const mine = turn && (turn.turnId === null || !turnId || turn.turnId === turnId) ? turn : null;
    if (mine) {
      mine.text += text;
      if (mine.kind === "prepare") return; // a warm-up turn's chat is not delivered
      const id = turnId ?? mine.turnId ?? "";
      const base = this.context("core", receivedAt, turnId);
      this.chat.emit(text, { ...base, type: "chat_delta", turnId: id, turnStartedAt: mine.startedAt, eventReceivedAt: receivedAt, text: mine.text });
      return;
    }
    // A turn this page did not start (a resumed session, another tab):
    // its chat is still this session's chat.
    if (!turnId) return;
    const other = this.otherTurns.get(turnId) ?? { text: "", startedAt: receivedAt };
    other.text += text;
    this.otherTurns.set(turnId, other);
    const base = this.context("core", receivedAt, turnId);
    this.chat.emit(text, { ...base, type: "chat_delta", turnId, turnStartedAt: other.startedAt, eventReceivedAt: receivedAt, text: other.text });
  }

  private onDone(turnId: string | undefined, data: DoneData) {
    if (turnId) this.otherTurns.delete(turnId);
    const turn = this.turn;
    if (turn && (turn.turnId === turnId || !turnId)) return this.finishTurn(turn, data ?? { ok: true });
    // The response to send_text has not arrived yet: keep the outcome for it.
    if (turn && turn.turnId === null && turnId) this.earlyDone.set(turnId, data);
  }

  private setStatus(status: PedelecSessionStatus, source: "sdk" | "core", waitingOn: PendingTool[], receivedAt?: number, originApproval?: ApprovalPending) {
    if (this.ended && status !== "ended") return;
    this.waitingOn = status === "waiting_tool_result" || status === "waiting_approval" ? waitingOn.map((p) => ({ ...p })) : [];
    this.originApproval = originApproval;
    if (status === this.status) return;
    const previousStatus = this.status;
    this.status = status;
    // Twice per tool call: build the context only for someone to read it.
    if (this.statusEmitter.size === 0) return;
    const ctx: StatusEventContext = {
      ...this.context(source, receivedAt),
      type: source === "core" ? "status_changed" : "sdk_status_changed",
      status,
      previousStatus,
      waitingOn: this.getWaitingOn(),
    };
    if (originApproval) ctx.originApproval = { ...originApproval };
    this.statusEmitter.emit(status, ctx);
  }

  private markEnded(reason: string, source: "sdk" | "core", receivedAt?: number) {
    if (this.ended) return;
    this.setStatus("ended", source, [], receivedAt);
    this.ended = true;
    const ctx: EndedEventContext = { ...this.context(source, receivedAt), type: source === "core" ? "ended" : "sdk_ended", reason };
    const ended = new PedelecError("SESSION_ENDED", `Session ${this.sessionId} ended (${reason})`, { reason });
    const turn = this.turn;
    this.turn = null;
    turn?.reject(ended);
    for (const [, call] of this.calls) abortCall(call, ended);
    this.calls.clear();
    clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
    this.unsubscribe();
    for (const fn of this.cleanups.splice(0)) {
      try {
        fn();
      } catch {
        // a cleanup's failure does not stop the others
      }
    }
    this.onForget?.();
    this.endedEmitter.emit(ctx);
  }

  private settled(data: ToolCallSettledData) {
    this.waitingOn = this.waitingOn.filter((p) => p.toolRequestId !== data.toolRequestId);
    const call = this.calls.get(data.toolRequestId);
    if (!call || data.outcome === "result") return;
    abortCall(call, settledReason(data));
  }

  private async dispatch(turnId: string, data: ToolCallData, eventReceivedAt: number) {
    const { toolRequestId, tool } = data;
    // A redelivered call this page is still running is answered by that run.
    if (this.calls.has(toolRequestId)) return;
    const controller = new AbortController();
    const deadline = typeof data.deadline === "number" ? data.deadline : eventReceivedAt + (data.timeoutMs ?? 60_000);
    const call: RunningCall = { tool, controller, deadline };
    this.calls.set(toolRequestId, call);
    if (deadline < this.deadlineAt) this.watchDeadlines(deadline);
    else keepAlive(this.deadlineTimer, true);
    // Core names the calls it waits on only when its status changes; a
    // call that overlaps another is known here first.
    const waiting = this.waitingOn.some((p) => p.toolRequestId === toolRequestId)
      ? this.waitingOn
      : [...this.waitingOn, { toolRequestId, tool }];
    this.setStatus("waiting_tool_result", "sdk", waiting);

    const ctx: ToolCallContext = {
      ...this.context("core", eventReceivedAt, turnId || undefined),
      type: "tool_call",
      toolRequestId,
      tool,
      turnId,
      turnStartedAt: data.turnStartedAt,
      eventReceivedAt,
      deadline,
      timeoutMs: data.timeoutMs,
      redelivered: data.redelivered === true,
      signal: controller.signal,
    };
    const reporter = progressReporter((p) => this.sendProgress(toolRequestId, tool, p, turnId));
    ctx.progress = reporter.report;
    const outcome = await this.registry.run(tool, data.args, ctx, this.router?.(toolRequestId, tool)).finally(reporter.stop);
    if (this.calls.get(toolRequestId) === call) this.calls.delete(toolRequestId);
    if (this.calls.size === 0) keepAlive(this.deadlineTimer, false);
    this.waitingOn = this.waitingOn.filter((p) => p.toolRequestId !== toolRequestId);
    // A throw (TOOL_HANDLER_ERROR) or a missing handler
    // (TOOL_HANDLER_NOT_FOUND) is the agent's to hear, as a result; the
    // original keeps them from onError. A result that cannot be sent is a
    // submission failure there, and so here.
    if (outcome.failure?.code === "TOOL_RESULT_INVALID") {
      const cause = { code: outcome.failure.code, message: outcome.failure.message };
      this.emitError(new PedelecError("SUBMIT_TOOL_RESULT_FAILED", outcome.failure.message, { tool, toolRequestId, cause }), "sdk", undefined, turnId);
    }
    // The session ended while the handler ran: there is no one to answer.
    if (this.ended) return;
    await this.submit(toolRequestId, tool, outcome.result, turnId, outcome.refusal);
  }

  /** Shows one step of a tool of the agent's own to onStatus; the status stays. */
  private onActivity(turnId: string | undefined, a: AgentActivity, receivedAt: number) {
    if (this.ended || !a || typeof a.toolCallId !== "string" || this.statusEmitter.size === 0) return;
    const ctx: StatusEventContext = {
      ...this.context("core", receivedAt, turnId),
      type: "status_changed",
      status: this.status,
      previousStatus: this.status,
      waitingOn: this.getWaitingOn(),
      activity: { ...a },
    };
    this.statusEmitter.emit(this.status, ctx);
  }

  /** Sends one (rate-limited) progress report to Core and shows it to onStatus. */
  private sendProgress(toolRequestId: string, tool: string, p: ToolProgress, turnId: string) {
    if (this.ended || !this.calls.has(toolRequestId)) return;
    // Fire and forget: a report that arrives after Core settled the call
    // (TOOL_REQUEST_NOT_PENDING) or on a dropped connection is moot.
    this.connection.request("tool_progress", { sessionId: this.sessionId, toolRequestId, ...p }).catch(() => {});
    if (this.statusEmitter.size === 0) return;
    const ctx: StatusEventContext = {
      ...this.context("sdk", undefined, turnId || undefined),
      type: "sdk_status_changed",
      status: this.status,
      previousStatus: this.status,
      waitingOn: this.getWaitingOn(),
      progress: { ...p, toolRequestId, tool },
    };
    this.statusEmitter.emit(this.status, ctx);
  }

  /** Arms the deadline timer for at, the earliest deadline of a running call. */
  private watchDeadlines(at: number) {
    clearTimeout(this.deadlineTimer);
    this.deadlineAt = at;
    this.deadlineTimer = setTimeout(() => {
      this.deadlineTimer = undefined;
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
      if (next !== Infinity && !this.ended) this.watchDeadlines(next);
    }, Math.max(0, at - Date.now()));
  }

  private async submit(toolRequestId: string, tool: string, result: JsonValue, turnId: string, refusal?: Outcome["refusal"]): Promise<void> {
    try {
      if (this.reconnected) await this.reconnected;
      const params = refusal ? { sessionId: this.sessionId, toolRequestId, refusal } : { sessionId: this.sessionId, toolRequestId, result };
      await this.connection.request("submit_tool_result", params);
    } catch (err) {
      const cause = PedelecError.from(err);
      if (cause.code === "CORE_UNREACHABLE" && !this.ended && this.reconnected) {
        // Lost on the way: Core keeps the call pending; answer it once resumed.
        await this.reconnected;
        if (!this.ended) return this.submit(toolRequestId, tool, result, turnId, refusal);
        return;
      }
      if (cause.code === "TOOL_RESULT_INVALID") {
        // The result breaks the tool's outputSchema: Core failed the call
        // for the agent; here it is the handler's bug, as a non-JSON value is.
        this.emitError(new PedelecError("TOOL_RESULT_INVALID", cause.message, { ...(cause.details as object), tool, toolRequestId }), "sdk", undefined, turnId);
        return;
      }
      if (cause.code === "MESSAGE_TOO_LARGE") {
        // Tell the agent instead of leaving it waiting until the deadline.
        const message = `The result of ${tool} is larger than Core accepts; return less data (page through it, or summarize)`;
        // The original's code for a result it could not deliver, the cause in details.
        this.emitError(new PedelecError("SUBMIT_TOOL_RESULT_FAILED", message, { tool, toolRequestId, cause: { code: "MESSAGE_TOO_LARGE", message } }), "sdk", undefined, turnId);
        return this.submit(toolRequestId, tool, { error: { code: "MESSAGE_TOO_LARGE", message } }, turnId);
      }
      if (this.ended) return;
      this.emitError(
        new PedelecError(
          "SUBMIT_TOOL_RESULT_FAILED",
          `Core refused the result of ${tool} (${toolRequestId}): ${cause.code}: ${cause.message}`,
          { tool, toolRequestId, cause: cause.toJSON() },
        ),
        "sdk",
        undefined,
        turnId,
      );
    }
  }
}

function abortCall(call: RunningCall, reason: PedelecError) {
  if (!call.controller.signal.aborted) call.controller.abort(reason);
}

/** Why a handler's signal aborts when Core settles its call without the page's result. */
function settledReason(data: ToolCallSettledData): PedelecError {
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
