// Chat and turns: sendText/prepare become a promise of the turn's end, the
// assistant's text streams to onChat, and a turn's done (which may come
// before the answer that names the turn) settles it.

import type { DoneData, TurnStarted } from "../client/protocol.gen.js";
import { PedelecError } from "../errors.js";
import type { TurnResult } from "../types.js";
import type { SessionState, TurnRef } from "./state.js";

type Turn = {
  turnId: string | null;
  startedAt: number;
  kind: "user" | "prepare";
  text: string;
  resolve: (r: TurnResult) => void;
  reject: (e: PedelecError) => void;
};

export class Turns {
  private turn: Turn | null = null;
  private preparing: Promise<void> | null = null;
  private prepared = false;
  private readonly earlyDone = new Map<string, DoneData>();
  private readonly otherTurns = new Map<string, { text: string; startedAt: number }>();

  constructor(private readonly s: SessionState) {
    s.turnRef = (turnId) => this.ref(turnId);
    s.onEnd((ended) => {
      const turn = this.turn;
      this.turn = null;
      turn?.reject(ended);
    });
  }

  async sendTurn(text: string): Promise<TurnResult> {
    if (typeof text !== "string") {
      throw new PedelecError("INVALID_INPUT", "sendText(text): text must be a string");
    }
    // A preparation in flight goes first; if it fails, the turn runs anyway.
    if (this.preparing) await this.preparing.catch(() => {});
    return this.start((s) => s.connection.request("send_text", { sessionId: s.sessionId, text }), "user");
  }

  prepare(): Promise<void> {
    if (this.s.ended) return Promise.reject(this.s.endedError());
    // As the original: a user turn makes prepare() busy, even once prepared.
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
  private ref(turnId?: string): TurnRef | undefined {
    const turn = this.turn;
    if (turn && (turnId === undefined || turn.turnId === null || turn.turnId === turnId)) {
      const ref: TurnRef = { turnKind: turn.kind };
      if (turn.turnId) ref.turnId = turn.turnId;
      if (turn.startedAt) ref.turnStartedAt = turn.startedAt;
      return ref;
    }
    if (!turnId) return undefined;
    const ref: TurnRef = { turnId, turnKind: "user" };
    const other = this.otherTurns.get(turnId);
    if (other) ref.turnStartedAt = other.startedAt;
    return ref;
  }

  private async start(send: (s: SessionState) => Promise<TurnStarted>, kind: "user" | "prepare"): Promise<TurnResult> {
    const s = this.s;
    if (s.ended) throw s.endedError();
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
    if (s.reconnecting) {
      throw new PedelecError("CORE_UNREACHABLE", "The connection to Pedelec Core is lost; the session reconnects by itself. Send again once its status changes.", { reconnecting: true });
    }
    const turn: Turn = { turnId: null, startedAt: Date.now(), kind, text: "", resolve, reject };
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
    const early = turn.turnId ? this.earlyDone.get(turn.turnId) : undefined;
    if (early && turn.turnId) {
      this.earlyDone.delete(turn.turnId);
      this.finish(turn, early);
    }
    return done;
  }

  private finish(turn: Turn, data: DoneData) {
    const s = this.s;
    if (this.turn === turn) this.turn = null;
    // A turn Core finished without a status change of its own (prepare() on
    // a warm or mcp session) must not leave the "running" the SDK set.
    if (s.status === "running" && !s.ended) s.setStatus(data.ok ? "idle" : "error", "sdk", []);
    if (data.ok) {
      turn.resolve({ turnId: turn.turnId ?? "", startedAt: turn.startedAt, text: turn.text });
    } else {
      turn.reject(PedelecError.from(data.error ?? { code: "PROVIDER_ERROR", message: "The turn failed" }));
    }
  }

  /** chat_delta: the assistant's text, this page's turn's or another's. */
  delta(turnId: string | undefined, text: string, receivedAt: number) {
    if (typeof text !== "string") return;
    const s = this.s;
    const turn = this.turn;
    const mine = turn && (turn.turnId === null || !turnId || turn.turnId === turnId) ? turn : null;
    if (mine) {
      mine.text += text;
      if (mine.kind === "prepare") return; // a warm-up turn's chat is not delivered
      const id = turnId ?? mine.turnId ?? "";
      const base = s.context("core", receivedAt, turnId);
      s.chat.emit(text, { ...base, type: "chat_delta", turnId: id, turnStartedAt: mine.startedAt, eventReceivedAt: receivedAt, text: mine.text });
      return;
    }
    // A turn this page did not start (a resumed session, another tab):
    // its chat is still this session's chat.
    if (!turnId) return;
    const other = this.otherTurns.get(turnId) ?? { text: "", startedAt: receivedAt };
    other.text += text;
    this.otherTurns.set(turnId, other);
    const base = s.context("core", receivedAt, turnId);
    s.chat.emit(text, { ...base, type: "chat_delta", turnId, turnStartedAt: other.startedAt, eventReceivedAt: receivedAt, text: other.text });
  }

  /** done: a turn is over. */
  done(turnId: string | undefined, data: DoneData | undefined) {
    if (turnId) this.otherTurns.delete(turnId);
    const turn = this.turn;
    if (turn && (turn.turnId === turnId || !turnId)) return this.finish(turn, data ?? { ok: true });
    // The response to send_text has not arrived yet: keep the outcome for it.
    if (turn && turn.turnId === null && turnId && data) this.earlyDone.set(turnId, data);
  }

  /**
   * Events were lost for good: the turn's done may be among them. If Core
   * is no longer running the turn, it will not come.
   */
  truncated(err: PedelecError) {
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
  connectionLost(lost: PedelecError) {
    const turn = this.turn;
    // A session that follows the page has a grace: Core keeps it, and its turn.
    if (turn && this.s.id.autoEndOnDisconnect && this.s.id.disconnectGraceMs === 0) {
      this.turn = null;
      turn.reject(lost);
    }
  }
}
