// A handler's "no" (issue 26): `throw refuse({code, message, retryable})`.
// A refusal is not a bug (that is a plain throw, TOOL_HANDLER_ERROR) nor a
// result: the agent gets TOOL_REFUSED with the page's code and message and
// whether retrying could help, in the same shape from tool-call and MCP.

import { PedelecError } from "./errors.js";

/** What a handler says when it refuses a call. */
export type ToolRefusalInput = {
  /** The page's own code, upper-snake: "OUT_OF_STOCK", "NOT_SIGNED_IN". */
  code: string;
  /** Why, written for the agent (and through it the user). */
  message: string;
  /** true: the same call may succeed later; false (default): retrying will not help. */
  retryable?: boolean;
};

const CODE = /^[A-Z][A-Z0-9_]{0,63}$/;
const MAX_MESSAGE = 2000;
const BRAND = Symbol.for("pedelec.refusal");

/** The error `refuse()` builds; a handler throws it. */
export class ToolRefusal extends Error {
  readonly code: string;
  readonly retryable: boolean;
  readonly [BRAND] = true;

  constructor(input: ToolRefusalInput) {
    super(input.message);
    this.name = "ToolRefusal";
    this.code = input.code;
    this.retryable = input.retryable === true;
  }

  toJSON(): { code: string; message: string; retryable: boolean } {
    return { code: this.code, message: this.message, retryable: this.retryable };
  }
}

/**
 * Builds a refusal for a handler to throw: `throw refuse({code:
 * "OUT_OF_STOCK", message: "Item 42 is sold out", retryable: false})`.
 * A malformed refusal is the page's bug and throws INVALID_INPUT here,
 * where it is written.
 */
export function refuse(input: ToolRefusalInput): ToolRefusal {
  if (typeof input !== "object" || input === null) {
    throw new PedelecError("INVALID_INPUT", "refuse() takes {code, message, retryable?}");
  }
  if (typeof input.code !== "string" || !CODE.test(input.code)) {
    throw new PedelecError("INVALID_INPUT", `refuse(): code must be an upper-snake code such as "OUT_OF_STOCK" (A-Z, 0-9, _; at most 64); got ${JSON.stringify(input.code)}`, { path: "code" });
  }
  if (typeof input.message !== "string" || input.message.trim() === "") {
    throw new PedelecError("INVALID_INPUT", "refuse(): message is empty; say why the call was refused, for the agent to act on", { path: "message" });
  }
  if ([...input.message].length > MAX_MESSAGE) {
    throw new PedelecError("INVALID_INPUT", `refuse(): message is longer than ${MAX_MESSAGE} characters`, { path: "message" });
  }
  if (input.retryable !== undefined && typeof input.retryable !== "boolean") {
    throw new PedelecError("INVALID_INPUT", "refuse(): retryable must be true or false", { path: "retryable" });
  }
  return new ToolRefusal(input);
}

/** A thrown value that is a refusal, from this copy of the SDK or another. */
export function isRefusal(value: unknown): value is ToolRefusal {
  return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
}
