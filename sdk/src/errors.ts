// The one failure shape Pedelec uses everywhere: {code, message, details?}.
// The codes mirror runtime/wire/errors.go (a unit test keeps them in step),
// so the SDK, Core and the CLI all speak the same codes.

export const ERROR_CODES = [
  "INVALID_INPUT",
  "UNKNOWN_METHOD",
  "MESSAGE_TOO_LARGE",
  "ORIGIN_NOT_ALLOWED",
  "HOST_NOT_ALLOWED",
  "SESSION_BUSY",
  "SESSION_ENDED",
  "THREAD_NOT_FOUND",
  "THREAD_ACCESS_DENIED",
  "PROVIDER_NOT_FOUND",
  "PROVIDER_UNAVAILABLE",
  "PROVIDER_ERROR",
  "PROVIDER_TIMEOUT",
  "MODEL_REQUIRED",
  "MODEL_NOT_FOUND",
  "ENDPOINT_UNREACHABLE",
  "AUTH_FAILED",
  "BAD_MODEL_RESPONSE",
  "STEP_LIMIT_REACHED",
  "TOOL_NOT_FOUND",
  "TOOL_ARGS_INVALID",
  "TOOL_TIMEOUT",
  "TOOL_REQUEST_NOT_PENDING",
  "TOO_MANY_PENDING_CALLS",
  "NO_ACTIVE_TURN",
  "TOOL_HANDLER_NOT_FOUND",
  "TOOL_HANDLER_ERROR",
  "TOOL_RESULT_INVALID",
  "SUBMIT_TOOL_RESULT_FAILED",
  "CORE_UNREACHABLE",
  "NOT_IN_SESSION",
  "INTERNAL",
  "SEND_TEXT_NOT_SUPPORTED",
  "CORE_TOKEN_INVALID",
  "DEFAULT_PROVIDER_NOT_SET",
  "DEFAULT_PROVIDER_UNAVAILABLE",
  "SDK_BRIDGE_TIMEOUT",
  "SDK_PROTOCOL_ERROR",
  "PEER_NOT_ALLOWED",
  "INVALID_FRAME",
  "TOO_MANY_SESSIONS",
  "TOO_MANY_CONNECTION_SESSIONS",
  "TOO_MANY_TOOLS",
  "TOOL_NAME_TOO_LONG",
  "DESCRIPTION_TOO_LONG",
  "GUIDANCE_TOO_LONG",
  "SCHEMA_TOO_LARGE",
  "SCHEMA_TOO_DEEP",
  "ASSET_PATH_INVALID",
  "ASSET_NOT_FOUND",
  "ASSET_NOT_FILE",
  "ASSET_TOO_LARGE",
  "ASSET_READ_TOO_LARGE",
  "ASSET_UPLOAD_BUSY",
  "ASSET_UPLOAD_SERVER_UNAVAILABLE",
  "ASSET_UPLOAD_TICKET_EXPIRED",
  "ASSET_UPLOAD_UNAUTHORIZED",
  "ASSET_UPLOAD_SIZE_MISMATCH",
  "ASSET_UPLOAD_FAILED",
  "ASSET_LIST_FAILED",
  "ASSET_DOWNLOAD_TICKET_EXPIRED",
  "ASSET_DOWNLOAD_UNAUTHORIZED",
  "ASSET_READ_FAILED",
  "ASSET_TEXT_DECODE_FAILED",
  "ASSET_INVALID_JSON",
  "TURN_INTERRUPTED",
  "EVENTS_TRUNCATED",
  "BATCH_TOO_LARGE",
] as const;

/** A stable upper-snake error code. Unknown codes from a newer Core still arrive as strings. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The wire shape of a failure. */
export type PedelecErrorData = {
  code: ErrorCode | (string & {});
  message: string;
  details?: unknown;
};

/**
 * The error every SDK promise rejects with and every onError listener
 * receives. `code` is stable; switch on it, not on `message`.
 */
export class PedelecError extends Error implements PedelecErrorData {
  readonly code: ErrorCode | (string & {});
  readonly details?: unknown;

  constructor(code: ErrorCode | (string & {}), message: string, details?: unknown) {
    super(message);
    this.name = "PedelecError";
    this.code = code;
    if (details !== undefined) this.details = details;
  }

  /** Builds a PedelecError from a wire error object (or anything else). */
  static from(value: unknown): PedelecError {
    if (value instanceof PedelecError) return value;
    if (isErrorData(value)) return new PedelecError(value.code, value.message, value.details);
    if (value instanceof Error) return new PedelecError("INTERNAL", value.message);
    return new PedelecError("INTERNAL", String(value));
  }

  /** The plain JSON form, as it travels on the wire. */
  toJSON(): PedelecErrorData {
    const out: PedelecErrorData = { code: this.code, message: this.message };
    if (this.details !== undefined) out.details = this.details;
    return out;
  }
}

export function isErrorData(value: unknown): value is PedelecErrorData {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { code?: unknown }).code === "string" &&
    typeof (value as { message?: unknown }).message === "string"
  );
}

/** The recommended shape of a tool's error result (a normal result, not a throw). */
export type ToolErrorResult = {
  error: {
    code: string;
    message: string;
    details?: unknown;
    retryable?: boolean;
  };
};

/** Builds the result object the SDK submits for an SDK-level tool failure. */
export function toolErrorResult(code: ErrorCode, message: string, details?: unknown): ToolErrorResult {
  const error: ToolErrorResult["error"] = { code, message };
  if (details !== undefined) error.details = details;
  return { error };
}
