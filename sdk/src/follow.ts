// Sessions that follow the page (createSession({followPage: true})): one
// agent session lives on across same-origin navigations and reloads in
// one tab. Its id is kept in sessionStorage (per tab, per origin); Core
// keeps the session for a short grace after the page's socket closes
// (create_session's disconnectGraceMs), so the next page resumes it, and
// a tab closed for good ends it when the grace passes, as a disconnect.
//
// A call whose handler was running when the page went away (a tool that
// submits a form or follows a link) is still pending in Core, which
// delivers it again to the next page. That page answers it with
// onNavigatedCall(); one that answers nothing gives the agent
// {navigated: true, url, ...}, so its turn goes on instead of waiting
// for the deadline. The pending call is never run again by its tool's
// handler: that would repeat what navigated.

import { PedelecError } from "./errors.js";
import { leftBy, markFollowing } from "./leaving.js";
import { toolsSent } from "./page-tools.js";
import type { PedelecSession } from "./session.js";
import type { AnyToolDefinition, Disposer, JsonValue, NavigatedCall, PendingTool, ToolCallContext } from "./types.js";

/** How long Core keeps a following session after its page went away (the next page must load within it). */
export const FOLLOW_GRACE_MS = 10_000;
/** How long a carried call waits on the next page for an onNavigatedCall answer before "navigated" is answered. */
const ANSWER_WAIT_MS = 1_000;
const KEY = "pedelec.follow:";

/**
 * What a page leaves the next one: the session, the page it was (from),
 * the calls it was running, what those calls knew as it left (a form
 * submission's URL and method), and the last event seq it handled, so the
 * next page gets what the agent did while no page was loaded (its chat).
 */
type Stored = { sessionId: string; from?: string; calls?: PendingTool[]; left?: Record<string, JsonValue>; seq?: number };
type Handler = (args: unknown, ctx: ToolCallContext) => unknown;
type AnySession = PedelecSession<string, readonly AnyToolDefinition[]>;
type Answerer = (call: NavigatedCall) => unknown;

function storage(): Storage | null {
  try {
    return typeof sessionStorage !== "undefined" ? sessionStorage : null;
  } catch {
    return null; // storage disabled: the session does not follow
  }
}

function read(coreUrl: string): Stored | null {
  try {
    const raw = storage()?.getItem(KEY + coreUrl);
    const v = raw ? (JSON.parse(raw) as Stored) : null;
    return v && typeof v.sessionId === "string" && v.sessionId !== "" ? v : null;
  } catch {
    return null;
  }
}

function write(coreUrl: string, v: Stored) {
  try {
    storage()?.setItem(KEY + coreUrl, JSON.stringify(v));
  } catch {
    // full or disabled: the next page starts a new session
  }
}

/** @internal The session this tab follows with Core at coreUrl, if any. */
export function followedSession(coreUrl: string): Stored | null {
  return read(coreUrl);
}

/** @internal Forgets the followed session (it ended, or the next page could not resume it). */
export function forgetFollowed(coreUrl: string, sessionId?: string) {
  const cur = read(coreUrl);
  if (!cur || (sessionId && cur.sessionId !== sessionId)) return;
  try {
    storage()?.removeItem(KEY + coreUrl);
  } catch {
    // nothing to do
  }
}

/** Calls carried over from the previous page, and who answers them here. */
class Carried {
  private readonly ids: Set<string>;
  private readonly from: string;
  private readonly left: Record<string, JsonValue>;
  private answerers: Answerer[] = [];
  /** Set by follow(): the session whose tools must reach Core before an answer does. */
  session: object | null = null;
  private readonly waiting = new Map<string, { call: NavigatedCall; settle: (v: unknown) => void }>();

  constructor(stored: Stored) {
    this.ids = new Set((stored.calls ?? []).map((c) => c.toolRequestId));
    this.from = stored.from ?? "";
    this.left = stored.left && typeof stored.left === "object" ? stored.left : {};
  }

  /** The handler for a call that was running on the previous page, or undefined for any other. */
  route = (toolRequestId: string, tool: string): Handler | undefined => {
    if (!this.ids.has(toolRequestId)) return undefined;
    this.ids.delete(toolRequestId);
    return (args: unknown) => {
      const call: NavigatedCall = { toolRequestId, tool, args, from: this.from, to: here() };
      if (Object.prototype.hasOwnProperty.call(this.left, toolRequestId)) call.left = this.left[toolRequestId];
      return new Promise<unknown>((resolve) => {
        const timer = setTimeout(() => settle(undefined), ANSWER_WAIT_MS);
        const settle = (v: unknown) => {
          if (!this.waiting.delete(toolRequestId)) return;
          clearTimeout(timer);
          // The agent's next call is for this page's tools: they reach
          // Core first (the page's components add them as it answers).
          const result = v === undefined ? navigatedResult(call) : v;
          const session = this.session;
          resolve(session ? toolsSent(session).then(() => result) : result);
        };
        this.waiting.set(toolRequestId, { call, settle });
        this.offer(toolRequestId);
      });
    };
  };

  addAnswerer(fn: Answerer): Disposer {
    this.answerers.push(fn);
    for (const id of [...this.waiting.keys()]) this.offer(id);
    return () => {
      this.answerers = this.answerers.filter((a) => a !== fn);
    };
  }

  private offer(id: string) {
    const w = this.waiting.get(id);
    if (!w || this.answerers.length === 0) return;
    const answer = this.answerers[this.answerers.length - 1]!;
    let v: unknown;
    try {
      v = answer(w.call);
    } catch (err) {
      v = Promise.reject(err);
    }
    // A rejection is the handler's error, as any handler's throw.
    Promise.resolve(v).then(w.settle, (err) => w.settle(Promise.reject(err)));
  }
}

function here(): string {
  return typeof location !== "undefined" ? location.href : "";
}

function navigatedResult(call: NavigatedCall): JsonValue {
  const title = typeof document !== "undefined" ? document.title : "";
  // What the previous page knew (a form's {submitted, url, method}), with
  // where the tab really is now: a redirect may have moved it on.
  const left = call.left && typeof call.left === "object" && !Array.isArray(call.left) ? call.left : {};
  return {
    ...left,
    navigated: true,
    url: call.to,
    from: call.from,
    title,
    message: `navigated to ${call.to}: the page changed while ${call.tool} ran (from ${call.from}); the new page has the session now, with its own tools`,
  };
}

const carriedBySession = new WeakMap<object, Carried>();

/** @internal The router a resumed session needs before its first event: calls the previous page was running. */
export function carriedCalls(stored: Stored): Carried {
  return new Carried(stored);
}

/**
 * @internal Makes session follow the page: kept in sessionStorage, with
 * the calls running when the page goes away (pagehide: a navigation, a
 * reload, or a close), forgotten when it ends.
 */
export function follow(session: AnySession, coreUrl: string, carried: Carried | null) {
  if (carried) {
    carried.session = session;
    carriedBySession.set(session, carried);
  }
  markFollowing(session);
  write(coreUrl, { sessionId: session.sessionId });
  const onHide = (ev?: Event) => {
    if (session.getStatus() === "ended") return;
    // Kept in the back/forward cache, the page may come back and go on
    // with its calls; it records where it was all the same.
    const seq = (ev as PageTransitionEvent | undefined)?.persisted === true ? session.lastSeq() : session.unloadingAt();
    write(coreUrl, { sessionId: session.sessionId, from: here(), calls: session.runningCalls(), left: leftBy(session), seq });
  };
  if (typeof addEventListener === "function") addEventListener("pagehide", onHide);
  session.onCleanup(() => {
    if (typeof removeEventListener === "function") removeEventListener("pagehide", onHide);
    forgetFollowed(coreUrl, session.sessionId);
  });
}

/**
 * Pedelec Core addition: answers the calls that were running when the
 * previous page navigated away (a tool that submitted a form or followed
 * a link) with what this page knows: the answer's value is the call's
 * result (undefined: the default {navigated: true, url, ...}); a throw is
 * the handler's error. Register it as the page starts: a carried call
 * waits a second for an answer, then gets the default. Returns a disposer.
 */
export function onNavigatedCall(session: PedelecSession<string, any>, answer: (call: NavigatedCall) => unknown): Disposer {
  if (typeof answer !== "function") throw new PedelecError("INVALID_INPUT", "onNavigatedCall(session, answer): answer must be a function");
  const carried = carriedBySession.get(session);
  return carried ? carried.addAnswerer(answer) : () => {};
}
