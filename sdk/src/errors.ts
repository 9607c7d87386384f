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
 * a PedelecError that is also `instanceof Error` (its prototype chain has
 * Error.prototype) without being an Error object inside. That is the point:
 * an Error's own fields are lost by `{...err}` (message is not enumerable)
 * and by structuredClone/postMessage (only name, message and stack survive),
 * while the original handed out plain objects that survive both. So code,
 * message and details are own enumerable fields, name and the stack are not.
 */
export class PedelecSdkError {
  readonly code: ErrorCode | (string & {});
  readonly message: string;
  declare readonly details?: unknown;
  /** "PedelecError" (on the prototype, so `{...err}` leaves it out). */
  declare readonly name: string;
  declare readonly stack?: string;

  constructor(code: ErrorCode | (string & {}), message: string, details?: unknown) {
    this.code = code;
    this.message = message;
    if (details !== undefined) this.details = details;
    // A stack for the console, kept out of spreads and clones.
    Object.defineProperty(this, "stack", { value: new Error(message).stack?.replace(/^Error/, "PedelecError"), writable: true, configurable: true, enumerable: false });
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
  toString(): string {
    return `PedelecError: ${this.code}: ${this.message}`;
  }
}
// instanceof Error keeps working for code that checks it.
Object.setPrototypeOf(PedelecSdkError.prototype, Error.prototype);
Object.defineProperty(PedelecSdkError.prototype, "name", { value: "PedelecError", writable: true, configurable: true, enumerable: false });
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface PedelecSdkError extends Error {}

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
