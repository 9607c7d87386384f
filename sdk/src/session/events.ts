// Core's events for one session, each handed to the part that owns it,
// once: an event whose seq the session has seen is a replay and is dropped.
// The switch on ev.event narrows ev.data to that event's payload
// (protocol.gen.ts, generated from Core's own list); the checks left are
// for what a different Core could send.

import type { EventFrame } from "../client/protocol.gen.js";
import { PedelecError } from "../errors.js";
import type { Calls } from "./calls.js";
import { STATUSES, type SessionState } from "./state.js";
import type { Turns } from "./turns.js";

export function routeEvent(s: SessionState, turns: Turns, calls: Calls, ev: EventFrame) {
  if (s.ended || !s.seq.admit(ev.seq)) return;
  const receivedAt = Date.now();
  switch (ev.event) {
    case "status_changed": {
      const d = ev.data;
      if (!STATUSES.includes(d.status)) return;
      // Calls waiting for consent are Core's alone: the page runs none.
      const waiting = d.status === "waiting_approval" ? [...(d.waitingOn ?? [])] : calls.withRunning(d.waitingOn ?? []);
      s.setStatus(d.status, "core", waiting, receivedAt);
      return;
    }
    case "agent_activity": {
      const a = ev.data;
      // Display only: one step of a tool of the agent's own; the status stays.
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
