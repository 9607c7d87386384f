// One Pedelec session in the page: it mirrors Core's status, turns
// sendText into a promise of the turn's end, and answers Core's tool calls
// with the page's handlers.

import type { Connection } from "./client/connection.js";
import type {
  ChatDeltaData,
  DoneData,
  EndedData,
  ErrorEventData,
  EventFrame,
  SessionInfo,
  StatusChangedData,
  ToolCallData,
  ToolCallSettledData,
  TurnStarted,
} from "./client/protocol.js";
import { listAssets, readAsset, uploadAsset } from "./assets.js";
import type { ReadAssetType, SandboxAsset, SandboxAssetPath } from "./assets.js";
import { PedelecError } from "./errors.js";
import { HandlerRegistry } from "./handlers.js";
import { Emitter } from "./listeners.js";
import { SeqGate } from "./seq.js";
import type {
  AnyToolDefinition,
  ChatEvent,
  Disposer,
  EndedEvent,
  ErrorListener,
  GenericToolHandler,
  JsonValue,
  Listener,
  PendingTool,
  SessionStatus,
  StatusEvent,
  ToolArgs,
  ToolContext,
  ToolName,
  ToolSpecificHandler,
  TurnResult,
} from "./types.js";

type Turn = {
  turnId: string | null;
  startedAt: number;
  prepare: boolean;
  text: string;
  resolve: (r: TurnResult) => void;
  reject: (e: PedelecError) => void;
};

type RunningCall = { tool: string; controller: AbortController; timer: ReturnType<typeof setTimeout> | undefined };

const STATUSES: readonly SessionStatus[] = ["idle", "running", "waiting_tool_result", "ended", "error"];

/** @internal What the Pedelec client hands a new session. */
export type SessionInit = {
  connection: Connection;
  info: SessionInfo;
  tools: readonly AnyToolDefinition[];
};

export class PedelecSession<TTools extends readonly AnyToolDefinition[] = readonly AnyToolDefinition[]> {
  /** Core's id for this session; keep it to resumeSession() after a reload. */
  readonly sessionId: string;
  /** The provider running the agent (codex, claude, openai, script, ...). */
  readonly provider: string;
  /** The model, when the provider has one. */
  readonly model: string | undefined;
  /** The tool names Core registered for this session. */
  readonly tools: readonly string[];
  /** Whether Core ends the session when this page disconnects. */
  readonly autoEndOnDisconnect: boolean;

  private readonly connection: Connection;
  private readonly registry: HandlerRegistry;
  private readonly seq: SeqGate;
  private status: SessionStatus;
  private waitingOn: PendingTool[] = [];
  private turn: Turn | null = null;
  private readonly earlyDone = new Map<string, DoneData>();
  private readonly otherTurns = new Map<string, string>();
  private readonly calls = new Map<string, RunningCall>();
  private ended = false;
  private detached = false;
  private readonly unsubscribe: () => void;

  private readonly chat = new Emitter<ChatEvent>();
  private readonly statusEmitter = new Emitter<StatusEvent>();
  private readonly errors = new Emitter<PedelecError>();
  private readonly endedEmitter = new Emitter<EndedEvent>();

  /** @internal Sessions come from Pedelec.createSession / resumeSession. */
  constructor(init: SessionInit) {
    if (!init?.info || !init.connection) {
      throw new TypeError("Pedelec: sessions come from pedelec.createSession() or pedelec.resumeSession()");
    }
    const { info } = init;
    this.sessionId = info.sessionId;
    this.provider = info.provider;
    this.model = info.model || undefined;
    this.tools = Object.freeze([...(info.tools ?? [])]);
    this.autoEndOnDisconnect = info.autoEndOnDisconnect !== false;
    this.connection = init.connection;
    this.registry = new HandlerRegistry(init.tools);
    this.seq = new SeqGate(info.seq ?? 0);
    this.status = STATUSES.includes(info.status) ? info.status : "idle";
    if (this.status === "ended") this.ended = true;
    this.unsubscribe = this.connection.subscribe(this.sessionId, (ev) => this.receive(ev));
  }

  // ---- turns ----

  /**
   * Sends the user's message. Resolves when the turn is over (its done
   * event), with the assistant's whole message; rejects with the turn's
   * error, or SESSION_ENDED when the session ends first. SESSION_BUSY when
   * a turn is already running: one turn at a time.
   */
  sendText(text: string): Promise<TurnResult> {
    if (typeof text !== "string") {
      return Promise.reject(new PedelecError("INVALID_INPUT", "sendText(text): text must be a string"));
    }
    return this.startTurn("send_text", { sessionId: this.sessionId, text }, false);
  }

  /** Warms the provider up with a turn whose chat is not delivered. */
  prepare(): Promise<TurnResult> {
    return this.startTurn("prepare", { sessionId: this.sessionId }, true);
  }

  /** Ends the session: Core stops its provider and fails its pending calls. Safe to call twice. */
  async end(): Promise<void> {
    if (this.ended) return;
    let failure: PedelecError | null = null;
    try {
      await this.connection.request("end_session", { sessionId: this.sessionId });
    } catch (err) {
      const e = PedelecError.from(err);
      // Gone already is what end() wanted; anything else is worth knowing.
      if (e.code !== "THREAD_NOT_FOUND" && e.code !== "SESSION_ENDED") failure = e;
    }
    this.markEnded("end_session", "sdk");
    if (failure) throw failure;
  }

  /** The current status: idle, running, waiting_tool_result, ended or error. */
  getStatus(): SessionStatus {
    return this.status;
  }

  /** The calls the agent waits on right now (while waiting_tool_result), oldest first. */
  getWaitingOn(): PendingTool[] {
    return this.waitingOn.map((p) => ({ ...p }));
  }

  // ---- listeners ----

  /** Streams the assistant's text, one delta at a time. */
  onChat(listener: Listener<ChatEvent>): Disposer {
    return this.chat.add(listener);
  }

  /** Status changes, deduplicated: {status, previousStatus, source, waitingOn}. */
  onStatus(listener: Listener<StatusEvent>): Disposer {
    return this.statusEmitter.add(listener);
  }

  /**
   * Errors that belong to no promise: Core's error events, a result Core
   * refused (SUBMIT_TOOL_RESULT_FAILED), a handler that threw or returned
   * non-JSON, a missing handler, a lost connection.
   */
  onError(listener: ErrorListener): Disposer {
    return this.errors.add(listener);
  }

  /** Called once when the session ends, with the reason. */
  onEnded(listener: Listener<EndedEvent>): Disposer {
    return this.endedEmitter.add(listener);
  }

  /**
   * Registers the handler for one tool; it overrides the definition's
   * inline handler. Its arguments are typed from the definition; its result
   * is free, because a named handler may answer a domain error
   * ({error: {code, message}}) or a different shape than the default.
   */
  onTool<N extends ToolName<TTools>>(name: N, handler: ToolSpecificHandler<ToolArgs<TTools, N>, unknown>): Disposer;
  /** Registers the generic fallback for tools that have no named or inline handler. */
  onTool(fallback: GenericToolHandler<ToolName<TTools>>): Disposer;
  onTool(nameOrFallback: string | GenericToolHandler, handler?: unknown): Disposer {
    if (typeof nameOrFallback === "function") return this.registry.setFallback(nameOrFallback as GenericToolHandler);
    if (typeof nameOrFallback !== "string" || typeof handler !== "function") {
      throw new TypeError("Pedelec: use session.onTool(name, handler) or session.onTool((tool, args, ctx) => ...)");
    }
    return this.registry.setNamed(nameOrFallback, handler as (args: unknown, ctx: ToolContext) => unknown);
  }

  // ---- assets (assets.ts): files the page and the agent share ----

  /**
   * Uploads a File (at most 100 MiB) to the session's assets/ directory, at
   * "/" + file.name or at targetPath (parents are created, a regular file
   * replaced). Resolves with the asset's path. One upload at a time.
   */
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

  // ---- internals ----

  private async startTurn(method: "send_text" | "prepare", params: unknown, prepare: boolean): Promise<TurnResult> {
    if (this.ended) throw new PedelecError("SESSION_ENDED", `Session ${this.sessionId} has ended`);
    if (this.turn) {
      throw new PedelecError("SESSION_BUSY", "A turn is already running in this session; wait for it to finish (its sendText promise settles) before sending another", { turnId: this.turn.turnId });
    }
    let resolve!: (r: TurnResult) => void;
    let reject!: (e: PedelecError) => void;
    const done = new Promise<TurnResult>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const turn: Turn = { turnId: null, startedAt: 0, prepare, text: "", resolve, reject };
    this.turn = turn;
    const before = this.status;
    this.setStatus("running", "sdk", []);
    try {
      await this.reattach();
      const started = await this.connection.request<TurnStarted>(method, params);
      turn.turnId = started.turnId;
      turn.startedAt = started.startedAt;
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
    if (data.ok) {
      turn.resolve({ turnId: turn.turnId ?? "", startedAt: turn.startedAt, text: turn.text });
    } else {
      turn.reject(PedelecError.from(data.error ?? { code: "PROVIDER_ERROR", message: "The turn failed" }));
    }
  }

  /** After a lost connection (autoEndOnDisconnect false), resume before the next request. */
  private async reattach() {
    if (!this.detached) return;
    const info = await this.connection.request<SessionInfo>("resume_session", { sessionId: this.sessionId });
    this.detached = false;
    this.seq.advanceTo(info.seq ?? 0);
    if (info.status && info.status !== this.status) this.setStatus(info.status, "core", []);
  }

  /** @internal The connection to Core closed. */
  disconnected(err: PedelecError) {
    if (this.ended) return;
    this.errors.emit(err);
    if (this.autoEndOnDisconnect) {
      this.markEnded("disconnect", "sdk");
      return;
    }
    // Core keeps the session; its events while we were away are not
    // replayed, so a turn in flight cannot be followed to its end.
    this.detached = true;
    const turn = this.turn;
    if (turn) {
      this.turn = null;
      turn.reject(err);
    }
  }

  private receive(ev: EventFrame) {
    if (this.ended || !this.seq.admit(ev.seq)) return;
    switch (ev.event) {
      case "status_changed": {
        const d = ev.data as StatusChangedData;
        if (!STATUSES.includes(d.status)) return;
        const waiting = [...(d.waitingOn ?? [])];
        for (const [toolRequestId, call] of this.calls) {
          if (!waiting.some((p) => p.toolRequestId === toolRequestId)) waiting.push({ toolRequestId, tool: call.tool });
        }
        this.setStatus(d.status, "core", waiting);
        return;
      }
      case "chat_delta":
        return this.onDelta(ev.turnId, (ev.data as ChatDeltaData).text);
      case "tool_call":
        void this.dispatch(ev.turnId ?? "", ev.data as ToolCallData);
        return;
      case "tool_call_settled":
        return this.settled(ev.data as ToolCallSettledData);
      case "error": {
        const d = ev.data as ErrorEventData;
        this.errors.emit(PedelecError.from(d.error));
        return;
      }
      case "done":
        return this.onDone(ev.turnId, ev.data as DoneData);
      case "ended":
        return this.markEnded((ev.data as EndedData)?.reason ?? "ended", "core");
    }
  }

  private onDelta(turnId: string | undefined, text: string) {
    if (typeof text !== "string") return;
    const turn = this.turn;
    const mine = turn && (turn.turnId === null || !turnId || turn.turnId === turnId) ? turn : null;
    if (mine) {
      mine.text += text;
      if (mine.prepare) return; // a warm-up turn's chat is not delivered
      this.chat.emit({ turnId: turnId ?? mine.turnId ?? "", delta: text, text: mine.text });
      return;
    }
    // A turn this page did not start (a resumed session, another tab):
    // its chat is still this session's chat.
    if (!turnId) return;
    const so = (this.otherTurns.get(turnId) ?? "") + text;
    this.otherTurns.set(turnId, so);
    this.chat.emit({ turnId, delta: text, text: so });
  }


  private onDone(turnId: string | undefined, data: DoneData) {
    if (turnId) this.otherTurns.delete(turnId);
    const turn = this.turn;
    if (turn && (turn.turnId === turnId || !turnId)) return this.finishTurn(turn, data ?? { ok: true });
    // The response to send_text has not arrived yet: keep the outcome for it.
    if (turn && turn.turnId === null && turnId) this.earlyDone.set(turnId, data);
  }

  private setStatus(status: SessionStatus, source: "sdk" | "core", waitingOn: PendingTool[]) {
    if (this.ended && status !== "ended") return;
    this.waitingOn = status === "waiting_tool_result" ? waitingOn.map((p) => ({ ...p })) : [];
    if (status === this.status) return;
    const previousStatus = this.status;
    this.status = status;
    this.statusEmitter.emit({ status, previousStatus, source, waitingOn: this.getWaitingOn() });
  }

  private markEnded(reason: string, source: "sdk" | "core") {
    if (this.ended) return;
    this.setStatus("ended", source, []);
    this.ended = true;
    const ended = new PedelecError("SESSION_ENDED", `Session ${this.sessionId} ended (${reason})`, { reason });
    const turn = this.turn;
    this.turn = null;
    turn?.reject(ended);
    for (const [, call] of this.calls) abortCall(call, ended);
    this.calls.clear();
    this.unsubscribe();
    this.endedEmitter.emit({ reason });
  }

  private settled(data: ToolCallSettledData) {
    this.waitingOn = this.waitingOn.filter((p) => p.toolRequestId !== data.toolRequestId);
    const call = this.calls.get(data.toolRequestId);
    if (!call || data.outcome === "result") return;
    const reason =
      data.outcome === "timeout"
        ? new PedelecError("TOOL_TIMEOUT", `Core stopped waiting for ${data.tool}: its timeout passed`)
        : new PedelecError("SESSION_ENDED", `The call to ${data.tool} was settled by Core (${data.outcome})`);
    abortCall(call, reason);
  }

  private async dispatch(turnId: string, data: ToolCallData) {
    const { toolRequestId, tool } = data;
    // A redelivered call this page is still running is answered by that run.
    if (this.calls.has(toolRequestId)) return;
    const controller = new AbortController();
    const eventReceivedAt = Date.now();
    const deadline = typeof data.deadline === "number" ? data.deadline : eventReceivedAt + (data.timeoutMs ?? 60_000);
    const call: RunningCall = { tool, controller, timer: undefined };
    call.timer = setTimeout(
      () => controller.abort(new PedelecError("TOOL_TIMEOUT", `The deadline for ${tool} passed; Core no longer waits for its result`)),
      Math.max(0, deadline - Date.now()),
    );
    this.calls.set(toolRequestId, call);
    // Core names the calls it waits on only when its status changes; a
    // call that overlaps another is known here first.
    const waiting = this.waitingOn.some((p) => p.toolRequestId === toolRequestId)
      ? this.waitingOn
      : [...this.waitingOn, { toolRequestId, tool }];
    this.setStatus("waiting_tool_result", "sdk", waiting);

    const ctx: ToolContext = {
      sessionId: this.sessionId,
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
    const outcome = await this.registry.run(tool, data.args, ctx);
    clearTimeout(call.timer);
    if (this.calls.get(toolRequestId) === call) this.calls.delete(toolRequestId);
    this.waitingOn = this.waitingOn.filter((p) => p.toolRequestId !== toolRequestId);
    if (outcome.failure) {
      this.errors.emit(new PedelecError(outcome.failure.code, outcome.failure.message, { tool, toolRequestId }));
    }
    // The session ended while the handler ran: there is no one to answer.
    if (this.ended) return;
    await this.submit(toolRequestId, tool, outcome.result);
  }

  private async submit(toolRequestId: string, tool: string, result: JsonValue): Promise<void> {
    try {
      await this.reattach();
      await this.connection.request("submit_tool_result", { sessionId: this.sessionId, toolRequestId, result });
    } catch (err) {
      const cause = PedelecError.from(err);
      if (cause.code === "MESSAGE_TOO_LARGE") {
        // Tell the agent instead of leaving it waiting until the deadline.
        const message = `The result of ${tool} is larger than Core accepts; return less data (page through it, or summarize)`;
        this.errors.emit(new PedelecError("MESSAGE_TOO_LARGE", message, { tool, toolRequestId }));
        return this.submit(toolRequestId, tool, { error: { code: "MESSAGE_TOO_LARGE", message } });
      }
      if (this.ended) return;
      this.errors.emit(
        new PedelecError(
          "SUBMIT_TOOL_RESULT_FAILED",
          `Core refused the result of ${tool} (${toolRequestId}): ${cause.code}: ${cause.message}`,
          { tool, toolRequestId, cause: cause.toJSON() },
        ),
      );
    }
  }
}

function abortCall(call: RunningCall, reason: PedelecError) {
  clearTimeout(call.timer);
  if (!call.controller.signal.aborted) call.controller.abort(reason);
}
