// Where the page's WebMCP tools come from: the browser's own
// document.modelContext, observed, or the SDK's polyfill installed where
// the browser has none. The older navigator.modelContext entry point
// names the same object.

import { checkRegistration, ModelContextPolyfill } from "./model-context.js";
import { registrations, type ModelContextLike, type WebMCPRegisterOptions, type WebMCPTool } from "./registrations.js";

/** Tools the SDK itself registers with a native modelContext (defineTool's): not the page's WebMCP tools. */
export const ownTools = new WeakSet<object>();

const OBSERVED = Symbol.for("pedelec.webmcp.observed");

type Holder = { modelContext?: ModelContextLike };

function holders(): { doc: Holder | undefined; nav: Holder | undefined } {
  return {
    doc: typeof document !== "undefined" ? (document as unknown as Holder) : undefined,
    nav: typeof navigator !== "undefined" ? (navigator as unknown as Holder) : undefined,
  };
}

/**
 * Makes document.modelContext (and navigator.modelContext) usable and
 * visible to Pedelec, once; later calls return the same object. Where the
 * browser has a modelContext, it stays the browser's: its registerTool is
 * wrapped so each registration is also recorded for Pedelec sessions
 * (tools registered before this call are not seen: call it before the
 * page's WebMCP code runs). Where it has none, the SDK's polyfill is
 * installed. Returns undefined outside a browser.
 */
export function installModelContext(): ModelContextLike | undefined {
  const { doc, nav } = holders();
  if (!doc) return undefined;
  const native = doc.modelContext ?? nav?.modelContext;
  let mc: ModelContextLike;
  if (native && typeof native.registerTool === "function") {
    observe(native);
    mc = native;
  } else {
    mc = new ModelContextPolyfill() as unknown as ModelContextLike;
  }
  define(doc, mc);
  if (nav) define(nav, mc);
  return mc;
}

/** The browser's own modelContext, when it has one (not the SDK's polyfill). */
export function nativeModelContext(): ModelContextLike | undefined {
  const { doc, nav } = holders();
  const mc = doc?.modelContext ?? nav?.modelContext;
  if (!mc || typeof mc.registerTool !== "function" || mc instanceof ModelContextPolyfill) return undefined;
  return mc;
}

function define(holder: Holder, mc: ModelContextLike) {
  if (holder.modelContext === mc) return;
  try {
    Object.defineProperty(holder, "modelContext", { value: mc, configurable: true, enumerable: true });
  } catch {
    // a browser's non-configurable attribute: it is already the native one
  }
}

/** Wraps a native registerTool so the page's registrations reach Pedelec too. */
function observe(native: ModelContextLike) {
  const marked = native as ModelContextLike & { [OBSERVED]?: boolean };
  if (marked[OBSERVED]) return;
  const original = native.registerTool;
  const wrapped = function (this: unknown, tool: WebMCPTool, options?: WebMCPRegisterOptions) {
    const result = original.call(this ?? native, tool, options);
    if (tool && typeof tool === "object" && !ownTools.has(tool)) record(tool, options, result);
    return result;
  };
  try {
    Object.defineProperty(native, "registerTool", { value: wrapped, configurable: true, writable: true });
    Object.defineProperty(native, OBSERVED, { value: true });
  } catch {
    // a frozen object: its registrations stay the browser's alone
  }
}

/** Records a registration the browser accepted; its signal unregisters it here as there. */
function record(tool: WebMCPTool, options: WebMCPRegisterOptions | undefined, result: Promise<undefined>) {
  let reg: ReturnType<typeof checkRegistration>;
  try {
    // The browser answers the page; this only decides what Pedelec sees.
    if (registrations.has(tool.name)) return;
    reg = checkRegistration(tool, options);
  } catch {
    return;
  }
  const signal = options?.signal;
  if (signal?.aborted) return;
  registrations.add(reg);
  signal?.addEventListener("abort", () => registrations.remove(reg), { once: true });
  // The browser refused it: it is not a tool for anyone.
  Promise.resolve(result).catch(() => registrations.remove(reg));
}
