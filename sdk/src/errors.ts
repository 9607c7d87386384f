// The one failure shape Pedelec uses everywhere: {code, message, details?}.
// The codes are generated from runtime/wire/codes.go into codes.gen.ts (`go
// generate ./runtime/wire`), so the SDK, Core and the CLI speak the same codes.

import { ERROR_CODES } from "./codes.gen.js";

export { ERROR_CODES };

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
