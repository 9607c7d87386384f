// Which browser function answers a tool call, and how whatever it does
// becomes a result the agent can read. Priority (seeds, "Handler selection"):
// a named handler, then the definition's inline handler, then the generic
// fallback, then an automatic TOOL_HANDLER_NOT_FOUND result.

import { toolErrorResult, type ErrorCode, type ToolErrorResult } from "./errors.js";
import { toJsonResult } from "./json-safety.js";
import { isMcpResult, readCallToolResult } from "./mcp-result.js";
import { isRefusal } from "./refuse.js";
import type { AnyToolDefinition, Disposer, GenericToolHandler, JsonValue, ToolCallContext } from "./types.js";

type AnyHandler = (args: unknown, ctx: ToolCallContext) => unknown;

export type HandlerSource = "named" | "inline" | "fallback" | "none";

export type Selected =
  | { source: "named" | "inline"; run: (args: unknown, ctx: ToolCallContext) => unknown }
  | { source: "fallback"; run: (args: unknown, ctx: ToolCallContext) => unknown }
  | { source: "none" };

/** The outcome of one call: the JSON to submit, and the SDK-level failure if there was one. */
export type Outcome = {
  result: JsonValue;
  source: HandlerSource;
  /** Set when the SDK produced the result itself (not the application). */
  failure?: { code: ErrorCode; message: string };
  /** Set when the handler refused the call (`throw refuse(...)`): submitted instead of a result. */
  refusal?: { code: string; message: string; retryable: boolean };
  /** The MCP content blocks of an mcpResult() answer (a WebMCP tool's CallToolResult): submitted beside the result, for MCP clients. */
  content?: JsonValue[];
};

export class HandlerRegistry {
  private readonly named = new Map<string, AnyHandler>();
  private readonly inline = new Map<string, AnyHandler>();
  private fallback: GenericToolHandler | null = null;
  /** The page's WebMCP tools' handlers, which change while the session lives (webmcp/link.ts). */
  private dynamic: ((tool: string) => AnyHandler | undefined) | null = null;

  constructor(tools: readonly AnyToolDefinition[] = []) {
    for (const tool of tools) {
      if (typeof tool?.handler === "function") this.inline.set(tool.name, tool.handler as AnyHandler);
    }
  }

  /** Registers a named handler, replacing any earlier one for the name. */
  setNamed(name: string, handler: AnyHandler): Disposer {
    this.named.set(name, handler);
    // Removes only its own registration: a later onTool for the same name
    // must survive an earlier component's cleanup.
    return () => {
      if (this.named.get(name) === handler) this.named.delete(name);
    };
  }

  /** Sets the one generic fallback, replacing the previous one. */
  setFallback(handler: GenericToolHandler): Disposer {
    this.fallback = handler;
    return () => {
      if (this.fallback === handler) this.fallback = null;
    };
  }

  /** Sets where WebMCP tools' handlers are found: after named and inline ones, before the fallback. */
  setDynamic(lookup: (tool: string) => AnyHandler | undefined) {
    this.dynamic = lookup;
  }

  select(tool: string): Selected {
    const named = this.named.get(tool);
    if (named) return { source: "named", run: named };
    const inline = this.inline.get(tool) ?? this.dynamic?.(tool);
    if (inline) return { source: "inline", run: inline };
    const fallback = this.fallback;
    if (fallback) return { source: "fallback", run: (args, ctx) => fallback(tool, args, ctx) };
    return { source: "none" };
  }

  /**
   * Runs the selected handler and turns whatever happens into a result.
   * It never throws: a throw, a rejected promise or a non-JSON value all
   * become error results, so the agent always gets an answer.
   */
  async run(tool: string, args: unknown, ctx: ToolCallContext, override?: AnyHandler): Promise<Outcome> {
    // override: a call the page answers another way (follow.ts: a call that
    // was running when the previous page navigated away).
    const selected: Selected = override ? { source: "named", run: override } : this.select(tool);
    if (selected.source === "none") {
      const message = `No handler is registered in the page for tool "${tool}". Register one with session.onTool("${tool}", handler), give its definition an inline handler, or add a fallback with session.onTool((tool, args, ctx) => ...).`;
      return sdkFailure("none", "TOOL_HANDLER_NOT_FOUND", message, { tool });
    }
    let value: unknown;
    try {
      value = await selected.run(args, ctx);
    } catch (err) {
      if (isRefusal(err)) {
        return { result: null, source: selected.source, refusal: { code: err.code, message: err.message, retryable: err.retryable } };
      }
      const message = err instanceof Error ? err.message : typeof err === "string" ? err : safeString(err);
      return sdkFailure(selected.source, "TOOL_HANDLER_ERROR", message || `The handler for ${tool} threw.`, undefined);
    }
    // Converted as JSON.stringify would, as the original did (a Date is its
    // ISO string); refused only where the original could not send it.
    const checked = toJsonResult(value);
    if (!checked.ok) {
      const { path, problem } = checked.problem;
      const message = `The handler for ${tool} returned a value that cannot be sent as JSON: ${path} is ${problem}.`;
      return sdkFailure(selected.source, "TOOL_RESULT_INVALID", message, { path });
    }
    if (!isMcpResult(value)) return { result: checked.value, source: selected.source };
    // MCP content (mcp-result.ts): its blocks for MCP clients, its meaning as the result.
    const content = (checked.value as { content: JsonValue[] }).content;
    const read = readCallToolResult(checked.value);
    if ("error" in read) return { ...sdkFailure(selected.source, "TOOL_HANDLER_ERROR", read.error, undefined), content };
    return { result: read.result, source: selected.source, content };
  }
}

function sdkFailure(source: HandlerSource, code: ErrorCode, message: string, details: unknown): Outcome {
  const result = toolErrorResult(code, message, details) as ToolErrorResult & { [k: string]: JsonValue };
  return { result: result as unknown as JsonValue, source, failure: { code, message } };
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return "a value that cannot be printed";
  }
}
