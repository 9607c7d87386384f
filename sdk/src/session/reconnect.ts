// Losing Core and getting it back, and the origin approval a reconnect may
// wait for: the session says it reconnects (status "error", an onError
// CORE_UNREACHABLE with details.reconnecting), the client retries, and a
// resume with the last seq handled has Core replay what happened meanwhile.
// The client (client.ts) drives these; the session only keeps its state.

import { worthRetrying } from "../client/reconnect.js";
import { PedelecError } from "../errors.js";
import type { SessionInfo } from "../client/protocol.gen.js";
import type { ApprovalPending } from "../types.js";
import type { Calls } from "./calls.js";
import { STATUSES, type SessionState } from "./state.js";
import type { Turns } from "./turns.js";

export class Reconnect {
  constructor(
    private readonly s: SessionState,
    private readonly turns: Turns,
    private readonly calls: Calls,
  ) {}

  /** The connection closed; running turns and handlers are kept unless the session ends with its page. */
  connectionLost(err: PedelecError) {
    const s = this.s;
    if (s.ended || s.reconnecting) return;
    s.startReconnect();
    s.setStatus("error", "sdk", []);
    const lost = new PedelecError("CORE_UNREACHABLE", `${err.message}; reconnecting`, { reconnecting: true, cause: PedelecError.from(err).toJSON() });
    this.turns.connectionLost(lost);
    s.emitError(lost, "sdk");
  }

  /** One attempt: resume with the last seq handled, so Core replays every event after it, once and in order. */
  async resume(): Promise<"done" | "retry"> {
    const s = this.s;
    if (s.ended || !s.reconnecting) return "done";
    let info: SessionInfo;
    try {
      info = await s.connection.request("resume_session", { sessionId: s.sessionId, lastSeq: s.seq.lastSeq });
    } catch (err) {
      const e = PedelecError.from(err);
      if (worthRetrying(e)) return "retry";
      s.finishReconnect();
      // Ended meanwhile (autoEndOnDisconnect, the resume window, a new Core without it).
      s.markEnded(e.code === "SESSION_ENDED" ? "disconnect" : e.code.toLowerCase(), "core");
      return "done";
    }
    s.finishReconnect();
    s.coreStatus = STATUSES.includes(info.status) ? info.status : "idle";
    s.setStatus(s.coreStatus, "core", this.calls.running());
    return "done";
  }

  /** Core no longer approves this origin and the user is being asked: status waiting_approval with no calls. */
  approvalPending(pending: ApprovalPending) {
    const s = this.s;
    if (s.ended || !s.reconnecting) return;
    s.setStatus("waiting_approval", "sdk", [], undefined, { ...pending });
  }

  /** Core went away again while the user decided: back to plain reconnecting. */
  approvalInterrupted() {
    const s = this.s;
    if (s.ended || !s.reconnecting || !s.originApproval) return;
    s.setStatus("error", "sdk", []);
  }

  /** The user rejected the origin (or did not decide in time) while the session waited to resume. */
  approvalFailed(err: PedelecError) {
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
  failed(err: PedelecError) {
    const s = this.s;
    if (s.ended) return;
    s.finishReconnect();
    s.emitError(err, "sdk");
    s.markEnded("core_unreachable", "sdk");
  }
}
