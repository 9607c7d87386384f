// One Pedelec session in the page. Its public shape is the original SDK's
// PedelecSession; listeners get (value, ctx) with the documented contexts.
// The class is the face; each concern lives in session/: what the parts
// share and how a session ends (state.ts), chat and turns (turns.ts),
// tools and handlers (calls.ts), losing Core and the origin approval a
// reconnect waits for (reconnect.ts), Core's events (events.ts); the
// assets are assets.ts.

import type { Connection } from "./client/connection.js";
import type { SessionInfo } from "./client/protocol.gen.js";
import { listAssets, readAsset, uploadAsset } from "./assets.js";
import { PedelecError } from "./errors.js";
import { SeqGate } from "./seq.js";
import { Calls, type CallRouter } from "./session/calls.js";
import { routeEvent } from "./session/events.js";
import { Reconnect } from "./session/reconnect.js";
import { SessionState, STATUSES } from "./session/state.js";
import { Turns } from "./session/turns.js";
import type {
  AnyToolDefinition,
  ApprovalPending,
  ChatEventContext,
  EndedEventContext,
  ErrorEventContext,
  GenericToolHandler,
  JsonValue,
  PedelecDetailedStatus,
  PedelecSessionStatus,
  PendingTool,
  ReadAssetType,
  SandboxAsset,
  SandboxAssetPath,
  StatusEventContext,
  ToolArgs,
  ToolCallContext,
  ToolDefinition,
  ToolSpecificHandler,
  TurnResult,
} from "./types.js";

/** @internal What the Pedelec client hands a new session. */
export type SessionInit = {
  connection: Connection;
  info: SessionInfo;
  tools: readonly AnyToolDefinition[];
  /** Called once when the session ends, so the client can forget it. */
  onForget?: () => void;
  /** Answers chosen calls another way, from the first event on (follow.ts). */
  router?: CallRouter;
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

  private readonly state: SessionState;
  private readonly turns: Turns;
  private readonly calls: Calls;
  private readonly reconnect: Reconnect;

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
    const id = {
      sessionId: this.sessionId,
      provider: this.provider,
      sessionCreatedAt: this.sessionCreatedAt,
      autoEndOnDisconnect: this.autoEndOnDisconnect,
      disconnectGraceMs: this.disconnectGraceMs,
    };
    const status = STATUSES.includes(info.status) ? info.status : "idle";
    const s = new SessionState(this.model === undefined ? id : { ...id, model: this.model }, init.connection, new SeqGate(info.seq ?? 0), status, init.onForget);
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
  async sendText(text: string): Promise<void> {
    await this.turns.sendTurn(text);
  }

  /**
   * Pedelec Core addition: sendText that resolves with the turn's record,
   * {turnId, startedAt, text}, text being the whole assistant message.
   */
  sendTurn(text: string): Promise<TurnResult> {
    return this.turns.sendTurn(text);
  }

  /**
   * Warms the provider up before the first user turn; its chat is not
   * delivered. Idempotent once it succeeded; concurrent callers share one
   * promise. SESSION_BUSY during a user turn, SESSION_ENDED after end.
   */
  prepare(): Promise<void> {
    return this.turns.prepare();
  }

  /**
   * Ends the session: Core stops its provider and fails its pending calls.
   * Resolves at once on an ended session. When Core cannot be told, it
   * reports the error through onError, rejects, and the session stays as it was.
   */
  async end(): Promise<void> {
    const s = this.state;
    if (s.ended) return;
    try {
      await s.connection.request("end_session", { sessionId: this.sessionId });
    } catch (err) {
      const e = PedelecError.from(err);
      // Gone already is what end() wanted; anything else is worth knowing.
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
  isReconnecting(): boolean {
    return this.state.reconnecting;
  }

  /**
   * The current status, one of the original's five: idle, running,
   * waiting_tool_result (a call waiting for the user's consent included),
   * ended or error (reconnecting included). getDetailedStatus() tells more.
   */
  getStatus(): PedelecSessionStatus {
    return this.state.sessionStatus();
  }

  /**
   * Pedelec Core addition: the status with Core's consent state:
   * "waiting_approval" while a call waits for the user's consent
   * (getWaitingOn() lists it with its approvalId), or while a reconnect
   * waits for this origin's approval (getOriginApproval()).
   */
  getDetailedStatus(): PedelecDetailedStatus {
    return this.state.status;
  }

  /**
   * Pedelec Core addition: the origin approval this session waits for
   * while it reconnects ({origin, requestId, url, error?}; error is
   * OPEN_POPUP_FAILED when the window was blocked), or null.
   */
  getOriginApproval(): ApprovalPending | null {
    const pending = this.state.originApproval;
    return pending ? { ...pending } : null;
  }

  /**
   * Pedelec Core addition: the calls the agent waits on right now (while
   * waiting_tool_result), oldest first; each with its approvalId while it
   * waits for the user's consent (detailed status waiting_approval).
   */
  getWaitingOn(): PendingTool[] {
    return this.state.getWaitingOn();
  }


  // ---- listeners ----

  /** Streams the assistant's text of user turns: (delta, ctx); ctx.text is the turn's message so far. */
  onChat(handler: (text: string, ctx: ChatEventContext) => void): () => void {
    return this.state.chat.add(handler);
  }

  /** Status changes, deduplicated; not called with the initial status (use getStatus()). */
  onStatus(handler: (status: PedelecSessionStatus, ctx: StatusEventContext) => void): () => void {
    return this.state.statusEmitter.add(handler);
  }

  /**
   * Errors that belong to no promise: Core's error events (ctx.source
   * "core"), a result that could not be submitted (SUBMIT_TOOL_RESULT_FAILED:
   * Core refused it, or it is not JSON), a lost connection, a failed end().
   * A handler that throws, or no handler, is told to the agent only.
   */
  onError(handler: (error: PedelecError, ctx: ErrorEventContext) => void): () => void {
    return this.state.errors.add(handler);
  }

  /** Called once when the session first becomes ended. */
  onEnded(handler: (ctx: EndedEventContext) => void): () => void {
    return this.state.endedEmitter.add(handler);
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
    return this.calls.onTool(nameOrFallback, handler);
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
    const s = this.state;
    return { connection: s.connection, sessionId: s.sessionId, ended: () => s.ended };
  }

  // ---- hooks for the client and webmcp/ ----

  /** @internal Where the page's WebMCP tools' handlers are looked up. */
  setDynamicHandlers(lookup: (tool: string) => ((args: unknown, ctx: ToolCallContext) => unknown) | undefined): void {
    this.calls.setDynamicHandlers(lookup);
  }

  /** @internal The calls whose handlers run now in this page (follow.ts records them when the page goes). */
  runningCalls(): PendingTool[] {
    return this.calls.running();
  }

  /** @internal The seq of the last event this page handled. */
  lastSeq(): number {
    return this.state.seq.lastSeq;
  }

  /**
   * @internal The seq of the last event this page handled, as the page
   * unloads (follow.ts leaves it to the next page); from then on calls are
   * the next page's to run.
   */
  unloadingAt(): number {
    this.calls.unloading = true;
    return this.state.seq.lastSeq;
  }

  /** @internal Runs fn when the session ends (at once if it has). */
  onCleanup(fn: () => void): void {
    this.state.onCleanup(fn);
  }

  /** @internal Reports an error that belongs to no promise, through onError. */
  reportError(err: PedelecError): void {
    this.state.emitError(err, "sdk");
  }

  /**
   * @internal Sends Core the session's whole new tool list (update_tools).
   * Core's refusal is reported through onError and rejects.
   */
  async updateTools(tools: JsonValue[]): Promise<void> {
    if (this.state.ended) return;
    const names = await this.calls.updateTools(tools);
    if (names) (this as { tools: readonly string[] }).tools = Object.freeze([...names]);
  }

  /**
   * @internal Runs a tool's handler for the browser's own agent (a native
   * document.modelContext): the same handler Core's calls get, with a
   * context that says no Core turn is behind it. Rejects with the
   * handler's error message.
   */
  runForBrowser(tool: string, input: unknown, signal: AbortSignal): Promise<JsonValue> {
    return this.calls.runForBrowser(tool, input, signal);
  }

  /**
   * @internal The connection to Core closed. The session waits in a visible
   * reconnecting state ("error", with an onError CORE_UNREACHABLE whose
   * details say reconnecting) while the client retries; a running turn and
   * running handlers are kept: Core replays what happened meanwhile.
   */
  connectionLost(err: PedelecError) {
    this.reconnect.connectionLost(err);
  }

  /**
   * @internal One reconnect attempt: resume with the last seq handled, so
   * Core replays every event after it, once and in order.
   */
  resumeAfterReconnect(): Promise<"done" | "retry"> {
    return this.reconnect.resume();
  }

  /**
   * @internal After a reconnect, Core no longer approves this origin and the
   * user is being asked: the session says it waits for approval (status
   * waiting_approval with no calls, ctx.originApproval naming the window)
   * and stays reconnecting until the decision.
   */
  approvalPending(pending: ApprovalPending) {
    this.reconnect.approvalPending(pending);
  }

  /** @internal Core went away again while the user decided: back to plain reconnecting. */
  approvalInterrupted() {
    this.reconnect.approvalInterrupted();
  }

  /** @internal The user rejected the origin (or did not decide in time) while the session waited to resume. */
  approvalFailed(err: PedelecError) {
    this.reconnect.approvalFailed(err);
  }

  /** @internal The page closed the client: Core ends autoEndOnDisconnect sessions. */
  clientClosed() {
    this.reconnect.clientClosed();
  }

  /** @internal Reconnecting failed for good. */
  reconnectFailed(err: PedelecError) {
    this.reconnect.failed(err);
  }
}
