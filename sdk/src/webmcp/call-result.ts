// A WebMCP execute's value written as MCP's CallToolResult, as MCP-B's
// runtime and the hook libraries built on it (usewebmcp,
// @mcp-b/react-webmcp) return it: {content: [...], structuredContent?,
// isError?}, a thrown error becoming {content: [{type: "text", text:
// "Error: ..."}], isError: true}. Read as what it means:
//   isError: true        → the handler failed, with the text content as
//                          its message (TOOL_HANDLER_ERROR for the agent)
//   structuredContent    → the result
//   text content only    → the text (one block) or the texts, as the result
//   other content blocks → the content array, unchanged, as the result
// Any other value is the result as it is.

import type { JsonValue } from "../types.js";

type Block = { type?: unknown; text?: unknown };

/** Whether value has the shape of an MCP CallToolResult (content: an array of typed blocks). */
export function isCallToolResult(value: unknown): value is { content: Block[]; structuredContent?: unknown; isError?: unknown } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const v = value as { content?: unknown; isError?: unknown };
  if (!Array.isArray(v.content)) return false;
  if (v.isError !== undefined && typeof v.isError !== "boolean") return false;
  return v.content.every((b) => typeof b === "object" && b !== null && typeof (b as Block).type === "string");
}

/** The error a CallToolResult with isError: true stands for. */
export class CallToolError extends Error {
  override name = "CallToolError";
}

/** The result a CallToolResult stands for; throws CallToolError for isError: true. */
export function fromCallToolResult(value: JsonValue): JsonValue {
  if (!isCallToolResult(value)) return value;
  const texts = value.content.filter((b) => b.type === "text" && typeof b.text === "string").map((b) => b.text as string);
  if (value.isError === true) {
    throw new CallToolError(texts.join("\n") || "the tool reported an error (isError: true) without a text content block");
  }
  if (value.structuredContent !== undefined) return value.structuredContent as JsonValue;
  if (texts.length === value.content.length) return texts.length === 1 ? texts[0]! : texts.join("\n");
  return value.content as JsonValue;
}
