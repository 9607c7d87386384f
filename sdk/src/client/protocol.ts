// The SDK WebSocket's frames, as docs/protocol.md and runtime/wire/protocol.go
// define them. Kept in one file so a reader can hold the SDK side of the
// wire contract next to the Go side.

import type { PedelecErrorData } from "../errors.js";
import type { EndReason, JsonValue, PendingTool, SessionStatus } from "../types.js";

export type RequestFrame = {
  type: "request";
  id: number;
  method: Method;
  params: unknown;
};

export type ResponseFrame = {
  type: "response";
  id: number;
  ok: boolean;
  result?: unknown;
  error?: PedelecErrorData;
};

export type EventFrame = {
  type: "event";
  event: string;
  sessionId: string;
  seq: number;
  turnId?: string;
  data: unknown;
};

/** Core's first frame on a socket that asked for batched messages (?batch=1). */
export type HelloFrame = {
  type: "hello";
  batch: boolean;
  maxBatchFrames: number;
  maxMessageBytes: number;
};

export type Method =
  | "get_approval_status"
  | "request_approval"
  | "await_approval"
  | "list_providers"
  | "create_session"
  | "resume_session"
  | "prepare"
  | "send_text"
  | "submit_tool_result"
  | "tool_progress"
  | "end_session"
  | "update_tools"
  | "list_assets"
  | "asset_upload_ticket"
  | "asset_read_ticket";

/** What get_approval_status, request_approval and await_approval answer (issue 22). */
export type ApprovalAnswer = {
  approved: boolean;
  origin: string;
  requestId?: string;
  url?: string;
  expiresAt?: string;
  timeoutMs?: number;
};

export type SessionInfo = {
  sessionId: string;
  provider: string;
  model?: string;
  status: SessionStatus;
  seq: number;
  tools: string[];
  autoEndOnDisconnect: boolean;
  /** How long Core waits for a page to resume this autoEndOnDisconnect session (followPage); absent: no wait. */
  disconnectGraceMs?: number;
};

export type TurnStarted = { turnId: string; startedAt: number };

export type StatusChangedData = {
  status: SessionStatus;
  previousStatus: SessionStatus;
  waitingOn?: PendingTool[];
};

export type ChatDeltaData = { text: string };

export type ToolCallData = {
  toolRequestId: string;
  tool: string;
  args: JsonValue;
  timeoutMs: number;
  deadline: number;
  turnStartedAt: number;
  redelivered?: boolean;
};

export type ToolCallSettledData = {
  toolRequestId: string;
  tool: string;
  outcome: "result" | "timeout" | "session_ended" | "cancelled" | "interrupted" | (string & {});
};

export type ErrorEventData = { error: PedelecErrorData };

export type DoneData = { ok: boolean; prepare?: boolean; error?: PedelecErrorData };

export type EndedData = { reason: EndReason };

/** Events a resuming page missed that Core's bounded log no longer holds. */
export type EventsTruncatedData = { error?: PedelecErrorData; fromSeq: number; toSeq: number; dropped: number };
