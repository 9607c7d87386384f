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
 * The original SDK's PedelecError: a plain object type, so test doubles
 * (`const e: PedelecError = {code, message}`) compile. Narrow by `code`;
 * `details` has no global shape.
 */
export type PedelecError = {
  code: string;
  message: string;
  details?: unknown;
};

/**
 * What every SDK promise rejects with and every onError listener receives:
 * a real Error (so devtools, Playwright and test runners show
 * "PedelecError: CODE: message" with its stack, not a bare class name) that
 * is also the original's PedelecError shape: code, message and details are
 * own enumerable fields, so `{...err}` and `JSON.stringify(err)` keep them.
 * structuredClone and postMessage copy an Error as name, message and stack
 * only: post `err.toJSON()` to keep the code (docs/sdk.md, "Errors").
 */
export class PedelecSdkError extends Error {
  readonly code: ErrorCode | (string & {});
  declare readonly message: string;
  declare readonly details?: unknown;

  constructor(code: ErrorCode | (string & {}), message: string, details?: unknown) {
    super(message);
    this.code = code;
    // Error's own message is not enumerable: a spread would drop it.
    Object.defineProperty(this, "message", { value: message, writable: true, configurable: true, enumerable: true });
    if (details !== undefined) this.details = details;
    // The stack's first line is what a console prints for an uncaught error.
    if (typeof this.stack === "string") {
      const nl = this.stack.indexOf("\n");
      Object.defineProperty(this, "stack", {
        value: `PedelecError: ${code}: ${message}` + (nl >= 0 ? this.stack.slice(nl) : ""),
        writable: true,
        configurable: true,
        enumerable: false,
      });
    }
  }

  /** Builds a PedelecSdkError from a wire error object (or anything else). */
  static from(value: unknown): PedelecSdkError {
    if (value instanceof PedelecSdkError) return value;
    if (isErrorData(value)) return new PedelecSdkError(value.code, value.message, value.details);
    if (value instanceof Error) return new PedelecSdkError("INTERNAL", value.message);
    return new PedelecSdkError("INTERNAL", String(value));
  }

  /** The plain JSON form, as it travels on the wire. */
  toJSON(): PedelecErrorData {
    const out: PedelecErrorData = { code: this.code, message: this.message };
    if (this.details !== undefined) out.details = this.details;
    return out;
  }

  /** "PedelecError: CODE: message", as an Error prints. */
  override toString(): string {
    return `PedelecError: ${this.code}: ${this.message}`;
  }
}
// On the prototype, so `{...err}` leaves it out.
Object.defineProperty(PedelecSdkError.prototype, "name", { value: "PedelecError", writable: true, configurable: true, enumerable: false });

/**
 * The value of the same name: the class, so `new PedelecError(code,
 * message)`, `PedelecError.from(x)` and `err instanceof PedelecError` keep
 * working; the type of the same name is the original's plain object.
 */
export const PedelecError = PedelecSdkError;

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
