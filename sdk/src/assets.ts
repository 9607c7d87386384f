// Session assets: the files the page and the agent share, in the session's
// assets/ directory. Only listings and tickets travel over the WebSocket;
// the bytes go over plain HTTP to Core's own port (a PUT or a GET), each
// authorised by a single-use ticket for one path, so a large file never
// sits in a WebSocket frame. Applications never see tickets or URLs.

import type { Connection } from "./client/connection.js";
import type { AssetTicket } from "./client/protocol.gen.js";
import { PedelecError } from "./errors.js";
import type { JsonValue, ReadAssetType, SandboxAsset, SandboxAssetPath } from "./types.js";

/** The limit of one upload and of one read: 100 MiB. */
export const MAX_ASSET_BYTES = 100 * 1024 * 1024;

/** @internal What a session hands the asset functions. */
export type AssetSession = {
  connection: Connection;
  sessionId: string;
  ended: () => boolean;
};

const HEADER_NAME = "X-Pedelec-Asset-Name";
const HEADER_MODIFIED = "X-Pedelec-Asset-Modified-At";

/** The same rules as Core's, so a bad path fails before any request. */
export function assetPathError(path: unknown): PedelecError | null {
  const invalid = (why: string) =>
    new PedelecError("ASSET_PATH_INVALID", `asset path ${JSON.stringify(path)} is invalid: ${why}`, { path });
  if (typeof path !== "string" || path === "") return invalid("use a path like /report.json");
  if (!path.startsWith("/")) return invalid("it must start with / (the assets directory is its root)");
  if (path.includes("\\")) return invalid("it contains a backslash; separate segments with /");
  if (path.includes("\0")) return invalid("it contains a NUL character");
  const unsafe = unsafeChar(path);
  if (unsafe) {
    const { at, code, kind } = unsafe;
    const hex = code.toString(16).toUpperCase().padStart(4, "0");
    return new PedelecError(
      "ASSET_PATH_INVALID",
      `asset path ${shown(path)} is invalid: it contains U+${hex} at byte ${at} (${kind}); names may not hold control or bidirectional formatting characters`,
      { path, character: `U+${hex}`, offset: at },
    );
  }
  for (const seg of path.slice(1).split("/")) {
    const decoded = seg.toLowerCase().replaceAll("%2e", ".");
    if (seg === "") return invalid("it has an empty segment (a double or trailing /)");
    if (seg === "." || seg === "..") return invalid(`it has a ${seg} segment`);
    if (decoded === "." || decoded === "..") return invalid(`it has a percent-encoded ${decoded} segment`);
    if (seg.startsWith(".pedelec-")) return invalid("segments starting with .pedelec- are reserved for Pedelec");
  }
  return null;
}

/**
 * The first character an asset name must not hold, as Core finds it
 * (runtime/assets/dir.go, unsafeRune): control characters split log lines and
 * listings, bidirectional formatting characters make a name display as
 * something else. `at` is the UTF-8 byte offset, as Core reports it.
 */
function unsafeChar(path: string): { at: number; code: number; kind: string } | null {
  let at = 0;
  for (const ch of path) {
    const code = ch.codePointAt(0)!;
    if (code < 0x20 || code === 0x7f || (code >= 0x80 && code <= 0x9f)) return { at, code, kind: "a control character" };
    if ((code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069) || code === 0x200e || code === 0x200f || code === 0x061c) {
      return { at, code, kind: "a bidirectional formatting character" };
    }
    at += new TextEncoder().encode(ch).length;
  }
  return null;
}

/** path quoted with its unsafe characters escaped, so the message shows what the name is. */
function shown(path: string): string {
  return JSON.stringify(path).replace(/[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c]/g, (c) => {
    return "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");
  });
}

function checkLive(s: AssetSession): void {
  if (s.ended()) throw new PedelecError("SESSION_ENDED", `Session ${s.sessionId} has ended; its assets are gone`);
}

/** Core's http(s) base URL, from the WebSocket URL the connection uses. */
function transferUrl(s: AssetSession, relative: string): string {
  const base = new URL(s.connection.url);
  base.protocol = base.protocol === "wss:" ? "https:" : "http:";
  return new URL(relative, base).toString();
}

/** Core's {ok:false, error} answer, or a fallback naming the HTTP status. */
async function httpError(resp: Response, fallback: string, what: string, path: string): Promise<PedelecError> {
  try {
    const body = (await resp.json()) as { error?: unknown };
    if (body && typeof body === "object" && body.error) return PedelecError.from(body.error);
  } catch {
    // not Core's JSON: report the status below
  }
  return new PedelecError(fallback, `${what} ${path} failed with HTTP ${resp.status}`, { path, status: resp.status });
}

export async function uploadAsset(s: AssetSession, file: Blob, targetPath?: SandboxAssetPath): Promise<SandboxAssetPath> {
  checkLive(s);
  if (typeof Blob === "undefined" || !(file instanceof Blob)) {
    throw new PedelecError("INVALID_INPUT", "uploadAsset(file, targetPath?): file must be a File or Blob");
  }
  const name = typeof File !== "undefined" && file instanceof File ? file.name : "";
  const path = targetPath ?? (`/${name}` as SandboxAssetPath);
  if (targetPath === undefined && !name) {
    throw new PedelecError("ASSET_PATH_INVALID", "uploadAsset(blob) needs a targetPath: a Blob has no file name", { path: null });
  }
  const bad = assetPathError(path);
  if (bad) throw bad;
  if (file.size > MAX_ASSET_BYTES) {
    throw new PedelecError("ASSET_TOO_LARGE", `${path} is ${file.size} bytes; an asset may be at most ${MAX_ASSET_BYTES} bytes (100 MiB)`, {
      path,
      sizeBytes: file.size,
      limit: MAX_ASSET_BYTES,
    });
  }
  let ticket: AssetTicket;
  try {
    ticket = await s.connection.request("asset_upload_ticket", { sessionId: s.sessionId, path, sizeBytes: file.size });
  } catch (err) {
    throw asOriginalBusy(PedelecError.from(err));
  }
  const url = transferUrl(s, ticket.url);
  let resp: Response;
  try {
    resp = await fetch(url, {
      method: "PUT",
      body: file,
      headers: { "Content-Type": "application/octet-stream" },
      credentials: "omit",
      cache: "no-store",
    });
  } catch (err) {
    checkLive(s); // the session ended meanwhile: that is the reason
    throw new PedelecError("ASSET_UPLOAD_SERVER_UNAVAILABLE", `Could not upload ${path} to Pedelec Core at ${new URL(url).origin}: ${String(err)}`, {
      path,
      url: new URL(url).origin,
    });
  }
  if (!resp.ok) throw asOriginalBusy(await httpError(resp, "ASSET_UPLOAD_FAILED", "upload of", path));
  try {
    const body = (await resp.json()) as { asset?: { path?: string } };
    return (body.asset?.path ?? path) as SandboxAssetPath;
  } catch (err) {
    throw new PedelecError("ASSET_UPLOAD_FAILED", `upload of ${path}: Core's answer was not readable: ${String(err)}`, { path });
  }
}

/**
 * Core says ASSET_UPLOAD_BUSY (its own code, for every client); the
 * original SDK says SESSION_BUSY for a second concurrent upload, so the
 * page gets that, Core's code kept in details.coreCode.
 */
function asOriginalBusy(e: PedelecError): PedelecError {
  if (e.code !== "ASSET_UPLOAD_BUSY") return e;
  const details = typeof e.details === "object" && e.details !== null ? e.details : {};
  return new PedelecError("SESSION_BUSY", e.message, { ...details, coreCode: e.code });
}

export async function listAssets(s: AssetSession): Promise<SandboxAsset[]> {
  checkLive(s);
  const r = await s.connection.request("list_assets", { sessionId: s.sessionId });
  // Core's paths start with "/", as SandboxAssetPath says.
  return (r.assets ?? []).map((a) => ({ ...a, path: a.path.startsWith("/") ? (a.path as SandboxAssetPath) : `/${a.path}` }));
}

export async function readAsset(s: AssetSession, path: SandboxAssetPath, type: ReadAssetType): Promise<string | JsonValue | File> {
  checkLive(s);
  if (type !== "text" && type !== "json" && type !== "file") {
    // The original's code for a read it cannot make (its asset errors are all ASSET_*).
    throw new PedelecError("ASSET_PATH_INVALID", `readAsset(path, type): type must be "text", "json" or "file", not ${JSON.stringify(type)}`, { path, type: String(type) });
  }
  const bad = assetPathError(path);
  if (bad) throw bad;
  const ticket = await s.connection.request("asset_read_ticket", { sessionId: s.sessionId, path });
  const url = transferUrl(s, ticket.url);
  const failed = (why: string) => new PedelecError("ASSET_READ_FAILED", `read of ${path} failed: ${why}`, { path });
  let resp: Response;
  try {
    resp = await fetch(url, { method: "GET", credentials: "omit", cache: "no-store" });
  } catch (err) {
    checkLive(s);
    throw failed(`Pedelec Core at ${new URL(url).origin} did not answer (${String(err)})`);
  }
  if (!resp.ok) throw await httpError(resp, "ASSET_READ_FAILED", "read of", path);
  let bytes: ArrayBuffer;
  try {
    // A body cut short (the file shrank, the session ended) rejects here.
    bytes = await resp.arrayBuffer();
  } catch (err) {
    checkLive(s);
    throw failed(`the transfer was cut short (${String(err)})`);
  }
  if (type === "file") {
    const name = decodeName(resp.headers.get(HEADER_NAME)) ?? ticket.asset?.name ?? path.slice(path.lastIndexOf("/") + 1);
    const modified = Number(resp.headers.get(HEADER_MODIFIED) ?? ticket.asset?.modifiedAt ?? Date.now());
    const mime = resp.headers.get("Content-Type") ?? ticket.mimeType ?? "application/octet-stream";
    return new File([bytes], name, { type: mime, lastModified: modified });
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new PedelecError("ASSET_TEXT_DECODE_FAILED", `${path} is not valid UTF-8 text; read it as "file" instead`, { path });
  }
  if (type === "text") return text;
  try {
    return JSON.parse(text) as JsonValue;
  } catch (err) {
    throw new PedelecError("ASSET_INVALID_JSON", `${path} is not valid JSON: ${(err as Error).message}`, {
      path,
      message: (err as Error).message,
    });
  }
}

function decodeName(header: string | null): string | null {
  if (!header) return null;
  try {
    return decodeURIComponent(header);
  } catch {
    return null;
  }
}
