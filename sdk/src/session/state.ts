// What every part of a session shares: who it is, its status as the page
// sees it, its listeners, the link to Core, and how it ends. The parts
// (turns.ts, calls.ts, reconnect.ts) each own their own state and reach
// one another only through here, so ending a session is one function.

import type { Connection } from "../client/connection.js";
import { PedelecError } from "../errors.js";
import { Emitter } from "../listeners.js";
import { SeqGate } from "../seq.js";
import type {
  ApprovalPending,
  ChatEventContext,
  EndedEventContext,
  ErrorEventContext,
  PedelecDetailedStatus,
  PedelecEventContext,
  PedelecSessionStatus,
  PendingTool,
  StatusEventContext,
} from "../types.js";

export const STATUSES: readonly PedelecDetailedStatus[] = ["idle", "running", "waiting_tool_result", "waiting_approval", "ended", "error"];

/**
 * The original's five statuses from the detailed one: a call waiting for
 * consent is a call the agent waits on (waiting_tool_result); a reconnect
 * waiting for the origin's approval is still reconnecting (error).
 */
export function sessionStatusOf(status: PedelecDetailedStatus, originApproval: ApprovalPending | undefined): PedelecSessionStatus {
  if (status !== "waiting_approval") return status;
  return originApproval ? "error" : "waiting_tool_result";
}

export type Source = "core" | "sdk";

/** The turn fields a listener's context carries (turns.ts knows them). */
export type TurnRef = { turnId?: string; turnStartedAt?: number; turnKind: "user" | "prepare" };

export type Identity = {
  sessionId: string;
  provider: string;
  model?: string;
  sessionCreatedAt: number;
  autoEndOnDisconnect: boolean;
  /** How long Core waits for the next page before a disconnect ends the session (followPage); 0 without. */
  disconnectGraceMs: number;
};

export class SessionState {
  /** The detailed status (waiting_approval included); getStatus() maps it to the original's five. */
  status: PedelecDetailedStatus;
  waitingOn: PendingTool[] = [];
  /** The origin approval a reconnect waits for (status waiting_approval with no calls). */
  originApproval: ApprovalPending | undefined;
  ended = false;
  /** Core's status as of the last resume, to know whether a turn can still end. */
  coreStatus: PedelecDetailedStatus = "idle";
  /** The connection dropped and the session has not been resumed yet. */
  reconnecting = false;
  /** Settles when the session is resumed (or given up on); null while connected. */
  reconnected: Promise<void> | null = null;
  private markReconnected: (() => void) | null = null;

  readonly chat = new Emitter<[string, ChatEventContext]>();
  readonly statusEmitter = new Emitter<[PedelecSessionStatus, StatusEventContext]>();
  readonly errors = new Emitter<[PedelecError, ErrorEventContext]>();
  readonly endedEmitter = new Emitter<[EndedEventContext]>();

  /** The turn a listener's context names (set by turns.ts). */
  turnRef: (turnId?: string) => TurnRef | undefined = () => undefined;
  /** Stops routing Core's events here (set once subscribed). */
  unsubscribe: () => void = () => {};
  /** Run in order when the session ends, with the error pending work fails with. */
  private readonly endHooks: ((ended: PedelecError) => void)[] = [];
  /** Run once when the session ends (webmcp/: stop following the page's tools, unregister from the browser). */
  private readonly cleanups: (() => void)[] = [];

  constructor(
    readonly id: Identity,
    readonly connection: Connection,
    readonly seq: SeqGate,
    status: PedelecDetailedStatus,
    private readonly onForget: (() => void) | undefined,
  ) {
    this.status = status;
    if (status === "ended") this.ended = true;
  }

  get sessionId(): string {
    return this.id.sessionId;
  }

  sessionStatus(): PedelecSessionStatus {
    return sessionStatusOf(this.status, this.originApproval);
  }

  getWaitingOn(): PendingTool[] {
    return this.waitingOn.map((p) => ({ ...p }));
  }

  endedError(): PedelecError {
    return new PedelecError("SESSION_ENDED", `Session ${this.sessionId} has ended`);
  }

  /** fn runs when the session ends, before its listeners hear it. */
  onEnd(fn: (ended: PedelecError) => void): void {
    this.endHooks.push(fn);
  }

  /** Runs fn when the session ends (at once if it has). */
  onCleanup(fn: () => void): void {
    if (this.ended) fn();
    else this.cleanups.push(fn);
  }

  /** The context fields every listener gets. */
  context(source: Source, eventReceivedAt?: number, turnId?: string): PedelecEventContext {
    const ctx: PedelecEventContext = {
      sessionId: this.sessionId,
      provider: this.id.provider,
      sessionCreatedAt: this.id.sessionCreatedAt,
      eventEmittedAt: Date.now(),
      source,
    };
    if (this.id.model !== undefined) ctx.model = this.id.model;
    if (eventReceivedAt !== undefined) ctx.eventReceivedAt = eventReceivedAt;
    const turn = this.turnRef(turnId);
    if (turn) {
      if (turn.turnId) ctx.turnId = turn.turnId;
      if (turn.turnStartedAt) ctx.turnStartedAt = turn.turnStartedAt;
      ctx.turnKind = turn.turnKind;
    }
    return ctx;
  }

  emitError(error: PedelecError, source: Source, eventReceivedAt?: number, turnId?: string) {
    const ctx: ErrorEventContext = { ...this.context(source, eventReceivedAt, turnId), type: source === "core" ? "error" : "sdk_error" };
    this.errors.emit(error, ctx);
  }

  setStatus(status: PedelecDetailedStatus, source: Source, waitingOn: PendingTool[], receivedAt?: number, originApproval?: ApprovalPending) {
    if (this.ended && status !== "ended") return;
    this.waitingOn = status === "waiting_tool_result" || status === "waiting_approval" ? waitingOn.map((p) => ({ ...p })) : [];
    const previousStatus = this.sessionStatus();
    this.originApproval = originApproval;
    if (status === this.status) return;
    const previousDetailedStatus = this.status;
    this.status = status;
    // Twice per tool call: build the context only for someone to read it.
    if (this.statusEmitter.size === 0) return;
    const ctx: StatusEventContext = {
      ...this.context(source, receivedAt),
      type: source === "core" ? "status_changed" : "sdk_status_changed",
      status: this.sessionStatus(),
      previousStatus,
      detailedStatus: status,
      previousDetailedStatus,
      waitingOn: this.getWaitingOn(),
    };
    if (originApproval) ctx.originApproval = { ...originApproval };
    this.statusEmitter.emit(ctx.status, ctx);
  }

  /** Shows something that changes no status (a step, a progress report) to onStatus. */
  emitStatusDetail(source: Source, detail: Pick<StatusEventContext, "activity" | "progress">, receivedAt?: number, turnId?: string) {
    if (this.statusEmitter.size === 0) return;
    const ctx: StatusEventContext = {
      ...this.context(source, receivedAt, turnId),
      type: source === "core" ? "status_changed" : "sdk_status_changed",
      status: this.sessionStatus(),
      previousStatus: this.sessionStatus(),
      detailedStatus: this.status,
      previousDetailedStatus: this.status,
      waitingOn: this.getWaitingOn(),
      ...detail,
    };
    this.statusEmitter.emit(ctx.status, ctx);
  }

  markEnded(reason: string, source: Source, receivedAt?: number) {
    if (this.ended) return;
    this.setStatus("ended", source, [], receivedAt);
    this.ended = true;
    const ctx: EndedEventContext = { ...this.context(source, receivedAt), type: source === "core" ? "ended" : "sdk_ended", reason };
    const ended = new PedelecError("SESSION_ENDED", `Session ${this.sessionId} ended (${reason})`, { reason });
    for (const fn of this.endHooks) fn(ended);
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

  startReconnect() {
    this.reconnecting = true;
    this.reconnected = new Promise<void>((resolve) => (this.markReconnected = resolve));
  }

  finishReconnect() {
    this.reconnecting = false;
    this.markReconnected?.();
    this.markReconnected = null;
    this.reconnected = null;
  }
}
