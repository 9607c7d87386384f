// A tool's answer as MCP content: MCP's CallToolResult, {content: [...],
// structuredContent?, isError?}. A WebMCP tool's execute returns it as
// MCP-B's runtime and the hook libraries built on it (usewebmcp,
// @mcp-b/react-webmcp) do, a thrown error becoming {content: [{type:
// "text", text: "Error: ..."}], isError: true}; a Pedelec handler returns
// it deliberately with mcpResult(). MCP clients get the blocks as they
// are (submit_tool_result's mcpContent); everyone else (`pedelec
// tool-call`, a model Core drives, the browser's own agent) gets what the
// result means:
//   isError: true        → the handler failed, with the text content as
//                          its message (TOOL_HANDLER_ERROR for the agent)
//   structuredContent    → the result
//   text content only    → the text (one block) or the texts, as the result
//   other content blocks → the content array, unchanged, as the result

import { PedelecError } from "./errors.js";
import type { JsonValue } from "./types.js";

/** MCP's annotations of a content block. */
export type McpAnnotations = { audience?: ("user" | "assistant")[]; priority?: number; lastModified?: string };

type BlockExtras = { annotations?: McpAnnotations; _meta?: { [key: string]: JsonValue } };

/** One MCP content block a tool result may hold; Core checks each (a known type, its required fields). */
export type McpContentBlock = BlockExtras &
  (
    | { type: "text"; text: string }
    | { type: "image"; data: string; mimeType: string }
    | { type: "audio"; data: string; mimeType: string }
    | { type: "resource_link"; uri: string; name: string; title?: string; description?: string; mimeType?: string; size?: number }
    | { type: "resource"; resource: { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string } }
  );

/** An MCP CallToolResult, as a handler returns it with mcpResult(). */
export type McpToolResult = {
  content: McpContentBlock[];
  structuredContent?: { [key: string]: JsonValue };
  isError?: boolean;
};

const BRAND = Symbol.for("pedelec.mcpResult");

/** A handler's answer made with mcpResult(). */
export type McpResult = McpToolResult & { readonly [BRAND]: true };

/**
 * Marks a handler's answer as MCP content: `return mcpResult({content:
 * [{type: "image", data, mimeType: "image/png"}], structuredContent})`.
 * MCP clients get these blocks as they are; `pedelec tool-call` gets what
 * they mean (structuredContent, else the text, else the blocks), and
 * isError: true is the handler's error with the text as its message.
 */
export function mcpResult(result: McpToolResult): McpResult {
  if (!isCallToolResult(result)) {
    throw new PedelecError("INVALID_INPUT", "mcpResult() takes {content: [blocks, each with a type], structuredContent?, isError?: boolean}");
  }
  return Object.defineProperty({ ...result }, BRAND, { value: true }) as McpResult;
}

/** Whether value was made by mcpResult(), in this copy of the SDK or another. */
export function isMcpResult(value: unknown): value is McpResult {
  return typeof value === "object" && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
}

type Block = { type?: unknown; text?: unknown };

/** Whether value has the shape of an MCP CallToolResult (content: an array of typed blocks). */
export function isCallToolResult(value: unknown): value is { content: Block[]; structuredContent?: unknown; isError?: unknown } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const v = value as { content?: unknown; isError?: unknown };
  if (!Array.isArray(v.content)) return false;
  if (v.isError !== undefined && typeof v.isError !== "boolean") return false;
  return v.content.every((b) => typeof b === "object" && b !== null && typeof (b as Block).type === "string");
}

/** What a CallToolResult means: its result, or (isError: true) the handler's error message. */
export function readCallToolResult(value: JsonValue): { result: JsonValue } | { error: string } {
  if (!isCallToolResult(value)) return { result: value };
  const texts = value.content.filter((b) => b.type === "text" && typeof b.text === "string").map((b) => b.text as string);
  if (value.isError === true) {
    return { error: texts.join("\n") || "the tool reported an error (isError: true) without a text content block" };
  }
  if (value.structuredContent !== undefined) return { result: value.structuredContent as JsonValue };
  if (texts.length === value.content.length) return { result: texts.length === 1 ? texts[0]! : texts.join("\n") };
  return { result: value.content as JsonValue };
}
