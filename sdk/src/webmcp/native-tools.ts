// The tools a native document.modelContext lets the page enumerate
// (Chromium's getTools(), with --enable-features=WebMCPTesting): those
// registered before Pedelec loaded and the declarative <form toolname>
// tools, with the input schema the browser synthesized. Each becomes a
// registration whose execute is the browser's executeTool(tool, input,
// {signal}); followed on every toolchange event. Tools whose registerTool
// the SDK observed keep their own execute (registered later, by the
// page's script), and the SDK's own (defineTool's, exposed to the
// browser) are not the page's.
//
// What Chromium 156 gives a page (docs/webmcp.md): getTools() resolves to
// RegisteredTool objects {name, title, description, inputSchema (an
// object), origin, window, annotations?}; executeTool(tool, input, {signal})
// resolves to the result serialized as JSON text ("undefined" for no
// value, null when a form's submission navigates) and rejects with
// UnknownError, whose message does not carry the page's own.

import type { JsonValue } from "../types.js";
import { nextTask, submissionResult, watchSubmission } from "./form-call.js";
import { pageShared } from "./shared.js";
import { registrations, type ModelContextLike, type WebMCPAnnotations, type WebMCPRegistration } from "./registrations.js";

/** Chromium's RegisteredTool, as getTools() gives it. */
type RegisteredTool = {
  name: string;
  title?: string;
  description: string;
  inputSchema?: unknown;
  window?: unknown;
  annotations?: Record<string, unknown>;
};

export type EnumerableModelContext = ModelContextLike & {
  getTools(): Promise<RegisteredTool[]> | RegisteredTool[];
  executeTool(tool: RegisteredTool, input?: object, options?: { signal?: AbortSignal }): Promise<string | null | undefined>;
};

/** Names of the tools the SDK registered with the browser itself (expose.ts). */
export const ownToolNames: Set<string> = pageShared("ownToolNames.v1", () => new Set<string>());

const MIRRORED = Symbol.for("pedelec.webmcp.mirrored.v1");

/** The hints Core knows (annotations it refuses others). */
const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "consequentialHint", "untrustedContentHint"];

export function canEnumerate(mc: ModelContextLike): mc is EnumerableModelContext {
  const m = mc as Partial<EnumerableModelContext>;
  return typeof m.getTools === "function" && typeof m.executeTool === "function";
}

/**
 * Follows mc's enumerable tools into the page's registrations, once per
 * modelContext; resolves when the first list is in.
 */
export function mirrorNativeTools(mc: EnumerableModelContext): Promise<void> {
  const holder = mc as EnumerableModelContext & { [MIRRORED]?: Promise<void> };
  if (holder[MIRRORED]) return holder[MIRRORED];
  const mirrored = new Map<string, { key: string; reg: WebMCPRegistration; tool: { current: RegisteredTool } }>();
  let running: Promise<void> = Promise.resolve();
  const refresh = () => (running = running.then(() => sync(mc, mirrored)).catch(() => {}));
  mc.addEventListener?.("toolchange", () => void refresh());
  const first = refresh();
  Object.defineProperty(mc, MIRRORED, { value: first });
  return first;
}

async function sync(mc: EnumerableModelContext, mirrored: Map<string, { key: string; reg: WebMCPRegistration; tool: { current: RegisteredTool } }>) {
  const list = await mc.getTools();
  const seen = new Set<string>();
  for (const t of list ?? []) {
    // Tools of other documents the browser shows this one (exposedTo) are theirs to offer.
    if (!t || typeof t.name !== "string" || (t.window !== undefined && typeof window !== "undefined" && t.window !== window)) continue;
    if (ownToolNames.has(t.name)) continue;
    seen.add(t.name);
    const key = JSON.stringify([t.title, t.description, t.inputSchema, t.annotations]);
    const had = mirrored.get(t.name);
    if (had && had.key === key) {
      had.tool.current = t;
      continue;
    }
    if (had) {
      registrations.remove(had.reg);
      mirrored.delete(t.name);
    }
    // Observed through registerTool: it keeps its own execute.
    if (registrations.has(t.name)) continue;
    const tool = { current: t };
    const reg = registration(mc, t, tool);
    registrations.add(reg);
    mirrored.set(t.name, { key, reg, tool });
  }
  for (const [name, m] of mirrored) {
    if (!seen.has(name)) {
      registrations.remove(m.reg);
      mirrored.delete(name);
    }
  }
}

function registration(mc: EnumerableModelContext, t: RegisteredTool, tool: { current: RegisteredTool }): WebMCPRegistration {
  const annotations: WebMCPAnnotations = {};
  for (const h of HINTS) if (typeof t.annotations?.[h] === "boolean") annotations[h] = t.annotations[h];
  return {
    name: t.name,
    title: t.title ? t.title : undefined,
    description: t.description,
    inputSchema: t.inputSchema === undefined || t.inputSchema === null ? undefined : JSON.stringify(t.inputSchema),
    execute: (input, options) => executeNative(mc, tool.current, input, options?.signal),
    readOnlyHint: annotations.readOnlyHint === true,
    untrustedContentHint: annotations.untrustedContentHint === true,
    annotations: Object.keys(annotations).length ? annotations : undefined,
    exposedTo: [],
    source: "native",
  };
}

/**
 * Runs a tool through the browser. A declarative tool's form is watched:
 * when its submission navigates, executeTool resolves with null before
 * the page unloads, and the answer says where it went.
 */
async function executeNative(mc: EnumerableModelContext, t: RegisteredTool, input: Record<string, unknown>, signal: AbortSignal | undefined): Promise<JsonValue> {
  const form = formOf(t.name);
  const watch = form ? watchSubmission(form) : undefined;
  try {
    let text: string | null | undefined;
    try {
      text = await mc.executeTool(t, input ?? {}, { signal });
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      // Chromium's UnknownError: the page's own message is not in it.
      const e = err as { name?: string; message?: string };
      throw new Error(`the browser's executeTool failed: ${e?.name ?? "Error"}: ${e?.message ?? String(err)}`);
    }
    if (text === null || text === undefined) {
      if (watch) {
        const w = await Promise.race([watch.submitted, nextTask().then(() => null)]);
        if (w) return await submissionResult(w);
      }
      return null;
    }
    if (text === "undefined") return null;
    try {
      return JSON.parse(text) as JsonValue;
    } catch {
      return text;
    }
  } finally {
    watch?.cancel();
  }
}

function formOf(name: string): HTMLFormElement | undefined {
  if (typeof document === "undefined") return undefined;
  for (const f of Array.from(document.querySelectorAll<HTMLFormElement>("form[toolname]"))) if (f.getAttribute("toolname")?.trim() === name) return f;
  return undefined;
}
