// The WebMCP tools this page registered, wherever they were registered:
// with the SDK's polyfill, or with a native document.modelContext whose
// registerTool the SDK observes. Sessions created with webmcp: true read
// this list and follow its changes.

import { pageShared } from "./shared.js";

/** WebMCP's tool annotations (the draft's two, plus MCP's hints a page may add). */
export type WebMCPAnnotations = {
  readOnlyHint?: boolean;
  untrustedContentHint?: boolean;
  [hint: string]: unknown;
};

/** What a page passes to document.modelContext.registerTool (the draft's ModelContextTool). */
export type WebMCPTool = {
  name: string;
  title?: string;
  description: string;
  /** A JSON Schema object; Pedelec sessions take its supported subset (docs/webmcp.md). */
  inputSchema?: object;
  /** Called with the agent's input; Pedelec passes {signal} too, aborted when the agent cancels. */
  execute: (input: Record<string, unknown>, options?: { signal?: AbortSignal }) => unknown;
  annotations?: WebMCPAnnotations;
};

/** registerTool's second argument (the draft's ModelContextRegisterToolOptions). */
export type WebMCPRegisterOptions = {
  /** Aborting it unregisters the tool. */
  signal?: AbortSignal;
  /** Origins of other documents in this page's tree the tool is shown to; accepted and checked, no Pedelec meaning. */
  exposedTo?: string[];
};

/** The draft's ModelContext, as native browsers and the SDK's polyfill provide it. */
export type ModelContextLike = {
  registerTool(tool: WebMCPTool, options?: WebMCPRegisterOptions): Promise<undefined>;
  ontoolchange?: ((ev: Event) => unknown) | null;
  addEventListener?: EventTarget["addEventListener"];
};

/** One registered tool as the draft's "tool definition" holds it. */
export type WebMCPRegistration = {
  name: string;
  title?: string;
  description: string;
  /** inputSchema serialized at registration, as the draft keeps it. */
  inputSchema?: string;
  execute: (input: Record<string, unknown>, options?: { signal?: AbortSignal }) => unknown;
  readOnlyHint: boolean;
  untrustedContentHint: boolean;
  annotations?: WebMCPAnnotations;
  exposedTo: string[];
  /** Where it came from when not registerTool: a <form toolname> (declarative.ts), or only the browser's getTools() (native-tools.ts). */
  source?: "form" | "native";
};

/** The draft's tool name rule: ASCII letters, digits, "_", "-", "." (1 to 128). */
export const WEBMCP_NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;

type Listener = () => void;

class Registrations {
  private readonly tools = new Map<string, WebMCPRegistration>();
  private readonly listeners = new Set<Listener>();

  has(name: string): boolean {
    return this.tools.has(name);
  }

  get(name: string): WebMCPRegistration | undefined {
    return this.tools.get(name);
  }

  list(): WebMCPRegistration[] {
    return [...this.tools.values()];
  }

  add(reg: WebMCPRegistration) {
    this.tools.set(reg.name, reg);
    this.changed();
  }

  /** Removes reg if it is still the registration for its name. */
  remove(reg: WebMCPRegistration): boolean {
    if (this.tools.get(reg.name) !== reg) return false;
    this.tools.delete(reg.name);
    this.changed();
    return true;
  }

  /** Called after every change, synchronously; returns the unsubscribe. */
  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed() {
    for (const fn of [...this.listeners]) {
      try {
        fn();
      } catch {
        // one session's trouble is not the page's registration's
      }
    }
  }
}

/** The page's one list, whichever copy of the SDK registered a tool (shared.ts). */
export const registrations: Registrations = pageShared("registrations.v1", () => new Registrations());
