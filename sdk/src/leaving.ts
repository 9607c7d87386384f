// A call that makes the page leave, in a session that follows the page: a
// declarative WebMCP form whose submission navigates this tab. Without
// following, the form's call is answered here, before the page unloads,
// with where it went; a following session instead keeps the call running
// so that the next page gets it (follow.ts) and answers it with what it
// knows, the result it shows, or "navigated to <url>". What this page
// knew as it left (the submission's URL and method) goes with the call.

import type { JsonValue } from "./types.js";

/**
 * How long a submission that should navigate may take to unload the page
 * before it is answered here after all (a response of 204, a download, a
 * navigation the browser cancelled: the page stays).
 */
export const LEAVE_WAIT_MS = 10_000;

/** Sessions that follow the page, with what their leaving calls knew, by toolRequestId. */
const following = new WeakMap<object, Map<string, JsonValue>>();

/** @internal session follows the page from now on (follow.ts). */
export function markFollowing(session: object) {
  if (!following.has(session)) following.set(session, new Map());
}

/** @internal What session's calls knew as the page left, by toolRequestId. */
export function leftBy(session: object): Record<string, JsonValue> {
  return Object.fromEntries(following.get(session) ?? []);
}

/**
 * @internal The answer to a call whose value says the page is leaving:
 * null when session does not follow the page (value is the answer); else a
 * promise that stays pending while the page unloads (the next page
 * answers) and resolves with value only if the page is still here after
 * LEAVE_WAIT_MS.
 */
export function holdAsThePageLeaves(session: object, toolRequestId: string, value: JsonValue): Promise<JsonValue> | null {
  const left = following.get(session);
  if (!left || typeof addEventListener !== "function") return null;
  left.set(toolRequestId, value);
  return new Promise<JsonValue>((resolve) => {
    const stay = () => {
      removeEventListener("pagehide", gone);
      left.delete(toolRequestId);
      resolve(value);
    };
    const timer = setTimeout(stay, LEAVE_WAIT_MS);
    // Unloading: the call stays pending in Core for the next page. (A page
    // restored from the back/forward cache keeps it pending until its deadline.)
    const gone = () => clearTimeout(timer);
    addEventListener("pagehide", gone, { once: true });
  });
}
