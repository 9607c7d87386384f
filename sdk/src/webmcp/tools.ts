// A WebMCP tool as a Pedelec tool: what maps to what (docs/webmcp.md).
//   name, description          → name, description
//   title                      → annotations.title
//   inputSchema (JSON Schema)  → inputSchema, standard JSON Schema that Core
//                                checks with every keyword's meaning
//   annotations                → annotations (readOnlyHint alone never asks for
//                                consent; untrustedContentHint marks results)
//   execute(input, {signal})   → the handler; signal aborts when the agent
//                                cancels, the deadline passes or the session ends
// What Core's validator would not check (a key that is no keyword, a
// format it does not know, a $ref out of the schema) is refused by tool
// and keyword, never checked by ignoring it (docs/decisions.md).

import { PedelecError } from "../errors.js";
import type { AnyToolDefinition, JsonObjectSchema, JsonValue, ToolAnnotations, ToolCallContext } from "../types.js";
import { validateManifest, type Problem } from "../validate.js";
import { isCallToolResult, mcpResult, type McpResult, type McpToolResult } from "../mcp-result.js";
import { isNavigation } from "./form-call.js";
import type { WebMCPRegistration } from "./registrations.js";

/** One WebMCP tool converted, or why a Pedelec session cannot offer it. */
export type Converted = { reg: WebMCPRegistration; def: AnyToolDefinition } | { reg: WebMCPRegistration; problems: Problem[] };

const NO_INPUT: JsonObjectSchema = { type: "object", properties: {} };

/**
 * What a session does with a call whose form submission navigates this
 * page: the answer to wait for instead (leaving.ts), or null to answer it
 * here.
 */
export type Leaving = (toolRequestId: string, value: JsonValue) => Promise<JsonValue> | null;

/** The handler a session runs for a WebMCP tool; an MCP CallToolResult from execute is MCP content (mcp-result.ts). */
export function webmcpHandler(reg: WebMCPRegistration, leaving?: Leaving) {
  return async (args: unknown, ctx: ToolCallContext): Promise<JsonValue | McpResult> => {
    const raw = await reg.execute(args as Record<string, unknown>, { signal: ctx.signal });
    const held = leaving && isNavigation(raw) ? leaving(ctx.toolRequestId, raw) : null;
    if (held) return held;
    const value = asJson(raw);
    return isCallToolResult(value) ? mcpResult(value as McpToolResult) : value;
  };
}

/**
 * The value as JSON.stringify would send it, since a WebMCP execute may
 * resolve anything: undefined (and functions, symbols) become null, a
 * Date its ISO string, a Map {}; what JSON.stringify throws on (a cycle, a
 * BigInt) is the handler's error, with JSON.stringify's message.
 */
export function asJson(value: unknown): JsonValue {
  const text = JSON.stringify(value);
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
}

/** Converts one registration and checks it as Core will; leaving goes to its handler (webmcpHandler). */
export function convert(reg: WebMCPRegistration, leaving?: Leaving): Converted {
  // WebMCP's inputSchema is standard JSON Schema, and Core checks it as such.
  const inputSchema = reg.inputSchema === undefined ? NO_INPUT : (JSON.parse(reg.inputSchema) as JsonObjectSchema);
  let annotations: ToolAnnotations | undefined;
  if (reg.annotations || reg.title !== undefined) {
    annotations = { ...(reg.annotations as ToolAnnotations | undefined) };
    if (reg.title !== undefined) annotations.title = reg.title;
  }
  const def: AnyToolDefinition = { name: reg.name, description: reg.description, inputSchema };
  if (annotations) def.annotations = annotations;
  const problems = validateManifest({ guidance: "", tools: [JSON.parse(JSON.stringify(def))] }).map((p) => ({
    path: p.path.replace(/^tools\[0\]\.inputSchema/, "inputSchema").replace(/^tools\[0\]\.?/, ""),
    message: p.message,
  }));
  if (problems.length > 0) return { reg, problems };
  def.handler = webmcpHandler(reg, leaving);
  return { reg, def };
}

/** The INVALID_INPUT error for WebMCP tools a session cannot offer, naming each tool and keyword. */
export function refusedTools(refused: { reg: WebMCPRegistration; problems: Problem[] }[]): PedelecError {
  const problems = refused.flatMap(({ reg, problems }) =>
    problems.map((p) => ({ path: `webmcp[${JSON.stringify(reg.name)}].${p.path || "(tool)"}`, message: p.message, tool: reg.name })),
  );
  const parts = problems.map((p) => `WebMCP tool ${JSON.stringify(p.tool)}: ${p.path.replace(/^webmcp\[[^\]]*\]\./, "")}: ${p.message}`);
  const n = refused.length === 1 ? "1 WebMCP tool" : `${refused.length} WebMCP tools`;
  return new PedelecError(
    "INVALID_INPUT",
    `${n} cannot be offered to Pedelec's agents: ${parts.join("; ")}. Pedelec takes a subset of JSON Schema and refuses other keywords rather than ignore them (docs/webmcp.md)`,
    { problems, tools: refused.map((r) => r.reg.name) },
  );
}
