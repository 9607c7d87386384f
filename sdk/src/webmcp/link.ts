// A session that asked for the page's WebMCP tools (webmcp: true) follows
// them: each registration or unregistration sends Core the whole new list
// (update_tools), so the agent can call a tool from the moment it is
// registered and gets TOOL_NOT_FOUND from the moment it is gone.

import type { PedelecError } from "../errors.js";
import type { AnyToolDefinition, JsonValue, ToolCallContext } from "../types.js";
import { holdAsThePageLeaves } from "../leaving.js";
import { convert, refusedTools, type Converted, type Leaving } from "./tools.js";
import { nextTask } from "./form-call.js";
import { registrations, type WebMCPRegistration } from "./registrations.js";

type Handler = (args: unknown, ctx: ToolCallContext) => unknown;

/** What the link needs of its session (PedelecSession's internal hooks). */
export type LinkedSession = {
  updateTools(tools: JsonValue[]): Promise<void>;
  reportError(err: PedelecError): void;
  onCleanup(fn: () => void): void;
};

/**
 * The page's WebMCP tools a session can offer now, as definitions, with
 * the ones it cannot: refused schemas, and names a defineTool tool of the
 * session already has (the defineTool one wins).
 */
export function currentWebMCPTools(defined: readonly AnyToolDefinition[], leaving?: Leaving): { offered: Converted[]; refused: Extract<Converted, { problems: unknown }>[] } {
  const taken = new Set(defined.map((t) => t?.name));
  const offered: Converted[] = [];
  const refused: Extract<Converted, { problems: unknown }>[] = [];
  for (const reg of registrations.list()) {
    if (taken.has(reg.name)) {
      refused.push({ reg, problems: [{ path: "name", message: `a tool defined with defineTool in this session is also named ${JSON.stringify(reg.name)}; rename one of them` }] });
      continue;
    }
    const c = convert(reg, leaving);
    if ("problems" in c) refused.push(c);
    else offered.push(c);
  }
  return { offered, refused };
}

/** The manifest entries (handlers stripped) of definitions. */
export function manifestOf(defs: readonly AnyToolDefinition[]): JsonValue[] {
  return defs.map((d) => {
    const { handler: _h, ...rest } = d;
    return JSON.parse(JSON.stringify(rest)) as JsonValue;
  });
}

/** A session's link to the page's WebMCP tools. */
export type WebMCPLink = {
  /** The handler of a WebMCP tool the session offers now. */
  handler(tool: string): Handler | undefined;
  /** Sends Core the list again if it changed (the session's own tools did: page-tools.ts). */
  schedule(): void;
  /** Resolves once the updates scheduled so far were sent. */
  sent(): Promise<void>;
};

/**
 * Links session to the page's WebMCP tools. definedNow gives the session's
 * own tools (they win a name); sent is the manifest Core has now
 * (create_session's), or null when Core's list is unknown (a resume),
 * which sends the page's list at once.
 */
export function linkWebMCP(session: LinkedSession, definedNow: () => readonly AnyToolDefinition[], sent: JsonValue[] | null): WebMCPLink {
  const handlers = new Map<string, Handler>();
  const reported = new WeakSet<WebMCPRegistration>();
  let lastSent = sent === null ? null : JSON.stringify(sent);
  let scheduled = false;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  // A form submission that navigates this tab is the next page's to
  // answer when the session follows the page (leaving.ts).
  const leaving = (id: string, value: JsonValue) => holdAsThePageLeaves(session, id, value);

  const refresh = (report: boolean) => {
    const defined = definedNow();
    const { offered, refused } = currentWebMCPTools(defined, leaving);
    handlers.clear();
    for (const c of offered) if ("def" in c && c.def.handler) handlers.set(c.def.name, c.def.handler as Handler);
    const fresh = report ? refused.filter((r) => !reported.has(r.reg)) : [];
    for (const r of fresh) reported.add(r.reg);
    if (fresh.length > 0) session.reportError(refusedTools(fresh));
    return manifestOf([...defined, ...offered.map((c) => (c as { def: AnyToolDefinition }).def)]);
  };

  const flush = async () => {
    scheduled = false;
    if (stopped) return;
    const manifest = refresh(true);
    const text = JSON.stringify(manifest);
    if (text === lastSent) return;
    lastSent = text;
    try {
      await session.updateTools(manifest);
    } catch {
      lastSent = null; // reported by updateTools; the next change tries again
    }
  };

  // Registrations made in one go (a page's startup) become one update.
  const schedule = () => {
    if (scheduled || stopped) return;
    scheduled = true;
    queueMicrotask(() => {
      running = running.then(flush);
    });
  };

  refresh(false);
  const off = registrations.subscribe(schedule);
  session.onCleanup(() => {
    stopped = true;
    off();
  });
  // What changed since create_session (or all of it, on a resume) goes
  // out in a task of its own: by then the page that awaited
  // createSession has its onError listener, for a tool refused meanwhile.
  setTimeout(schedule, 0);
  return { handler: (tool) => handlers.get(tool), schedule, sent: () => nextTask().then(() => running) };
}
