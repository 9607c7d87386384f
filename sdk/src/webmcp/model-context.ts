// document.modelContext as the WebMCP draft describes it (W3C Web Machine
// Learning CG, "WebMCP", registerTool): the SDK installs this where the
// browser has none, so a page written against WebMCP runs unchanged, and
// its tools reach Pedelec sessions that ask for them (webmcp: true).
// Steps the draft gives a user agent that a page script cannot take
// (the permissions policy, fully active documents, origin-keyed agent
// clusters, notifying other documents) are left to a native one.

import { WEBMCP_NAME_PATTERN, type WebMCPRegistration, type WebMCPTool, type WebMCPRegisterOptions } from "./registrations.js";
import { registrations } from "./registrations.js";

const MAX_NAME_LENGTH = 128;

/** DOMException where there is one (browsers, Node 17+), else an Error with the same name. */
function domError(message: string, name: string): Error {
  if (typeof DOMException === "function") return new DOMException(message, name);
  const e = new Error(message);
  e.name = name;
  return e;
}

/** https, wss, file, and http(s) on a loopback name: the draft's "potentially trustworthy" origins. */
function potentiallyTrustworthy(url: URL): boolean {
  if (url.protocol === "https:" || url.protocol === "wss:" || url.protocol === "file:") return true;
  if (url.protocol !== "http:" && url.protocol !== "ws:") return false;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Marks the SDK's polyfill, whichever copy of the SDK made it (instanceof cannot tell across copies). */
const POLYFILL = Symbol.for("pedelec.webmcp.polyfill");

/** Whether mc is the SDK's polyfill (from this copy of the SDK or another in the page). */
export function isPolyfill(mc: object): boolean {
  return (mc as { [POLYFILL]?: boolean })[POLYFILL] === true;
}

/**
 * The stand-in ModelContext. Its tools live in the SDK's registrations
 * (registrations.ts), where a native modelContext's observed ones live
 * too, so sessions read one list whichever registered them.
 */
export class ModelContextPolyfill extends EventTarget {
  readonly [POLYFILL] = true;
  private handler: ((ev: Event) => unknown) | null = null;

  /** The toolchange event handler attribute. */
  get ontoolchange(): ((ev: Event) => unknown) | null {
    return this.handler;
  }
  set ontoolchange(fn: ((ev: Event) => unknown) | null) {
    if (this.handler) this.removeEventListener("toolchange", this.handler);
    this.handler = typeof fn === "function" ? fn : null;
    if (this.handler) this.addEventListener("toolchange", this.handler);
  }

  /**
   * Registers a tool, following the draft's registerTool steps: rejects
   * with InvalidStateError for a taken name, an empty name or description,
   * or a name that is longer than 128 or has characters other than ASCII
   * letters, digits, "_", "-" and "."; with the exception JSON
   * serialization of inputSchema throws (a TypeError when it yields
   * nothing); with the signal's reason when it is already aborted; with
   * SecurityError for an exposedTo entry that is not a potentially
   * trustworthy origin. Aborting the signal later unregisters the tool.
   */
  registerTool(tool: WebMCPTool, options: WebMCPRegisterOptions = {}): Promise<undefined> {
    let reg: WebMCPRegistration;
    try {
      reg = checkRegistration(tool, options);
    } catch (err) {
      return Promise.reject(err);
    }
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<undefined>((resolve, reject) => {
      registrations.add(reg);
      signal?.addEventListener(
        "abort",
        () => {
          if (registrations.remove(reg)) this.notify();
          reject(signal.reason);
        },
        { once: true },
      );
      // As the draft orders it: toolchange fires in a task, then the promise resolves.
      setTimeout(() => {
        this.dispatchEvent(new Event("toolchange"));
        resolve(undefined);
      }, 0);
    });
  }

  private notify() {
    setTimeout(() => this.dispatchEvent(new Event("toolchange")), 0);
  }
}

/**
 * The draft's checks of one registration, shared by the polyfill and the
 * observer of a native modelContext (which lets the browser check too).
 * Throws what registerTool rejects with.
 */
export function checkRegistration(tool: WebMCPTool, options: WebMCPRegisterOptions | undefined): WebMCPRegistration {
  if (typeof tool !== "object" || tool === null) throw new TypeError("registerTool(tool): tool must be an object {name, description, inputSchema?, execute, annotations?}");
  const { name, description, title, execute, annotations } = tool;
  if (typeof name !== "string") throw new TypeError("registerTool(tool): tool.name is required and must be a string");
  if (typeof description !== "string") throw new TypeError(`registerTool(tool): tool.description of ${JSON.stringify(name)} is required and must be a string`);
  if (typeof execute !== "function") throw new TypeError(`registerTool(tool): tool.execute of ${JSON.stringify(name)} is required and must be a function`);
  if (registrations.has(name)) throw domError(`registerTool: a tool named ${JSON.stringify(name)} is already registered; unregister it first (abort its signal)`, "InvalidStateError");
  if (name === "" || description === "") throw domError(`registerTool: the tool's name and description must not be empty (name ${JSON.stringify(name)})`, "InvalidStateError");
  if (name.length > MAX_NAME_LENGTH || !WEBMCP_NAME_PATTERN.test(name)) {
    throw domError(`registerTool: ${JSON.stringify(name)} is not a tool name: 1 to 128 ASCII letters, digits, "_", "-" and "."`, "InvalidStateError");
  }
  let inputSchema: string | undefined;
  if (tool.inputSchema !== undefined) {
    inputSchema = JSON.stringify(tool.inputSchema); // its exceptions are registerTool's
    if (inputSchema === undefined) throw new TypeError(`registerTool: the inputSchema of ${JSON.stringify(name)} does not serialize to JSON`);
  }
  const exposedTo: string[] = [];
  for (const origin of options?.exposedTo ?? []) {
    let url: URL;
    try {
      url = new URL(String(origin));
    } catch {
      throw domError(`registerTool: exposedTo entry ${JSON.stringify(origin)} is not a URL`, "SecurityError");
    }
    if (!potentiallyTrustworthy(url)) throw domError(`registerTool: exposedTo entry ${JSON.stringify(origin)} is not a potentially trustworthy origin`, "SecurityError");
    exposedTo.push(url.origin);
  }
  return {
    name,
    title: typeof title === "string" ? title : undefined,
    description,
    inputSchema,
    execute: execute as WebMCPRegistration["execute"],
    readOnlyHint: annotations?.readOnlyHint === true,
    untrustedContentHint: annotations?.untrustedContentHint === true,
    annotations: annotations && typeof annotations === "object" ? { ...annotations } : undefined,
    exposedTo,
  };
}
