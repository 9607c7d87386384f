// The tools of a session that change while it lives: the ones the page
// adds and removes with addTool() (the React binding's useTool: a tool
// exists while its component is mounted) and, with webmcp: true, the
// page's WebMCP tools (webmcp/link.ts). Every change sends Core the
// session's whole list (update_tools) once per burst of changes, so a
// component mounted, unmounted and mounted again in one commit (React
// StrictMode) costs at most one update, and none when the list ends up
// as it was.

import { PedelecError } from "./errors.js";
import { checkedManifest } from "./manifest.js";
import type { PedelecSession } from "./session.js";
import type { AnyToolDefinition, Disposer, JsonValue, ToolCallContext } from "./types.js";
import { nextTask } from "./webmcp/form-call.js";
import { linkWebMCP, manifestOf, type WebMCPLink } from "./webmcp/link.js";

type Handler = (args: unknown, ctx: ToolCallContext) => unknown;
type AnySession = PedelecSession<string, readonly AnyToolDefinition[]>;

class PageTools {
  private readonly added = new Map<string, AnyToolDefinition>();
  private link: WebMCPLink | null = null;
  private lastSent: string | null;
  private scheduled = false;
  private running: Promise<void> = Promise.resolve();

  /** base: the tools createSession/resumeSession was given; sent: what Core has now, null when unknown (a resume). */
  constructor(
    private readonly session: AnySession,
    private readonly base: readonly AnyToolDefinition[],
    sent: JsonValue[] | null,
  ) {
    this.lastSent = sent === null ? null : JSON.stringify(sent);
    session.setDynamicHandlers((tool) => (this.added.get(tool)?.handler as Handler | undefined) ?? this.link?.handler(tool));
  }

  /**
   * The session's own tools now: the base ones, then the added ones by
   * name, so a tool removed and added again (StrictMode) leaves the list,
   * and what Core is sent, as it was.
   */
  defined(): AnyToolDefinition[] {
    const added = [...this.added.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return [...this.base, ...added];
  }

  followWebMCP(sent: JsonValue[] | null) {
    this.link = linkWebMCP(this.session, () => this.defined(), sent);
  }

  add(def: AnyToolDefinition): Disposer {
    const name = def?.name;
    if (this.session.getStatus() === "ended") throw new PedelecError("SESSION_ENDED", `addTool(${JSON.stringify(name)}): the session has ended`);
    // Core's own checks, here, so the problem is named where it is written.
    checkedManifest({ guidance: "", tools: [def] });
    if (this.base.some((t) => t.name === name) || this.added.has(name)) {
      throw new PedelecError("INVALID_INPUT", `addTool: this session already has a tool named ${JSON.stringify(name)}; remove it first or choose another name`, {
        problems: [{ path: "name", message: "already a tool of this session" }],
        tool: name,
      });
    }
    this.added.set(name, def);
    this.changed();
    return () => {
      if (this.added.get(name) !== def) return; // removes only its own registration
      this.added.delete(name);
      this.changed();
    };
  }

  /** Resolves once the changes made so far reached Core (or failed). */
  async sent(): Promise<void> {
    await nextTask();
    await this.running;
    await this.link?.sent();
  }

  /** Sends the list again now; the first send after a resume is always made. */
  changed() {
    if (this.link) return this.link.schedule();
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.running = this.running.then(() => this.flush());
    });
  }

  private async flush() {
    this.scheduled = false;
    if (this.session.getStatus() === "ended") return;
    const manifest = manifestOf(this.defined());
    const text = JSON.stringify(manifest);
    if (text === this.lastSent) return;
    this.lastSent = text;
    try {
      await this.session.updateTools(manifest);
    } catch {
      this.lastSent = null; // reported through onError; the next change tries again
    }
  }
}

const bySession = new WeakMap<object, PageTools>();

/** @internal Sets up a new session's changing tools (client.ts). */
export function attachPageTools(session: AnySession, base: readonly AnyToolDefinition[], sent: JsonValue[] | null, webmcp: boolean): void {
  const tools = new PageTools(session, base, sent);
  bySession.set(session, tools);
  if (webmcp) tools.followWebMCP(sent);
  else if (sent === null) tools.changed(); // a resume: Core has the previous page's list
}

/** @internal Resolves once the session's tool changes made so far reached Core (follow.ts answers a carried call after them). */
export function toolsSent(session: object): Promise<void> {
  return bySession.get(session)?.sent() ?? Promise.resolve();
}

/**
 * Pedelec Core addition: offers one more tool to a live session, until the
 * returned disposer is called (then the agent gets TOOL_NOT_FOUND for it).
 * The definition is checked as createSession checks its tools
 * (INVALID_INPUT); its inline handler answers the calls. Core gets the
 * session's whole new list (update_tools) once per burst of changes.
 */
export function addTool(session: PedelecSession<string, readonly AnyToolDefinition[]> | PedelecSession<string, any>, definition: AnyToolDefinition): Disposer {
  const tools = bySession.get(session);
  if (!tools) throw new PedelecError("INVALID_INPUT", "addTool(session, definition): pass a session from pedelec.createSession() or resumeSession()");
  return tools.add(definition);
}
