// Where Core's WebSocket is. A developer may pass the ws:// URL, or the
// base http:// URL they opened in the browser; both mean the same Core.

export const DEFAULT_URL = "ws://127.0.0.1:7077/ws";

/** Normalizes a ws(s)/http(s) URL (with or without /ws) to Core's WebSocket URL. */
export function resolveUrl(url: string | undefined, moduleUrl?: string): string {
  if (url === undefined || url === "") return defaultUrl(moduleUrl);
  let parsed: URL;
  try {
    parsed = new URL(url, typeof location !== "undefined" ? location.href : undefined);
  } catch {
    throw new TypeError(`Pedelec: ${JSON.stringify(url)} is not a URL; pass something like ${DEFAULT_URL}`);
  }
  if (parsed.protocol === "http:") parsed.protocol = "ws:";
  else if (parsed.protocol === "https:") parsed.protocol = "wss:";
  else if (parsed.protocol !== "ws:" && parsed.protocol !== "wss:") {
    throw new TypeError(`Pedelec: ${JSON.stringify(url)} must be a ws://, wss://, http:// or https:// URL`);
  }
  if (parsed.pathname === "" || parsed.pathname === "/") parsed.pathname = "/ws";
  parsed.hash = "";
  return parsed.toString();
}

/**
 * When this module was imported from Core itself (…/sdk/pedelec.js), that
 * Core is the one to talk to, whatever port it runs on; otherwise the
 * default address of `pedelec serve`.
 */
function defaultUrl(moduleUrl: string | undefined): string {
  if (moduleUrl) {
    try {
      const u = new URL(moduleUrl);
      if ((u.protocol === "http:" || u.protocol === "https:") && /\/sdk\/pedelec(\.min)?\.js$/.test(u.pathname)) {
        return `${u.protocol === "https:" ? "wss:" : "ws:"}//${u.host}/ws`;
      }
    } catch {
      // not a URL we can use
    }
  }
  return DEFAULT_URL;
}
