// Where the page's WebMCP tools come from: the browser's own
// document.modelContext, observed, or the SDK's polyfill installed where
// the browser has none. The older navigator.modelContext entry point
// names the same object.

import { startDeclarativeTools } from "./declarative.js";
import { checkRegistration, isPolyfill, ModelContextPolyfill } from "./model-context.js";
import { canEnumerate, mirrorNativeTools } from "./native-tools.js";
import { registrations, type ModelContextLike, type WebMCPRegisterOptions, type WebMCPTool } from "./registrations.js";
import { pageShared } from "./shared.js";

/** Tools the SDK itself registers with a native modelContext (defineTool's): not the page's WebMCP tools. */
export const ownTools: WeakSet<object> = pageShared("ownTools.v1", () => new WeakSet<object>());

/** Resolves when the page's WebMCP tools are all in the registrations (a native list is read asynchronously). */
let ready: Promise<void> = Promise.resolve();

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
 * wrapped so each registration is also recorded for Pedelec sessions,
 * and where the browser lets the page enumerate its tools (getTools), the
 * ones registered before this call and the declarative <form toolname>
 * ones are read from it. Where it has none, the SDK's polyfill is
 * installed, and the document's <form toolname> tools are followed.
 * Returns undefined outside a browser.
 */
export function installModelContext(): ModelContextLike | undefined {
  const { doc, nav } = holders();
  if (!doc) return undefined;
  const existing = doc.modelContext ?? nav?.modelContext;
  let mc: ModelContextLike;
  if (existing && isPolyfill(existing)) {
    // Installed by the SDK's other copy (webmcp.js before pedelec.js).
    mc = existing;
    startDeclarativeTools();
  } else if (existing && typeof existing.registerTool === "function") {
    observe(existing);
    mc = existing;
    if (canEnumerate(existing)) ready = mirrorNativeTools(existing);
    else startDeclarativeTools();
  } else {
    mc = new ModelContextPolyfill() as unknown as ModelContextLike;
    startDeclarativeTools();
  }
  define(doc, mc);
  if (nav) define(nav, mc);
  return mc;
}

/** installModelContext, then the moment its first list of the page's tools is complete. */
export function webmcpReady(): Promise<void> {
  installModelContext();
  return ready;
}

/** The browser's own modelContext, when it has one (not the SDK's polyfill). */
export function nativeModelContext(): ModelContextLike | undefined {
  const { doc, nav } = holders();
  const mc = doc?.modelContext ?? nav?.modelContext;
  if (!mc || typeof mc.registerTool !== "function" || isPolyfill(mc)) return undefined;
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
