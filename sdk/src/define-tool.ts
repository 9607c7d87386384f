import type { ToolDefinition } from "./types.js";

/**
 * Declares a tool. It returns the definition unchanged: its value is type
 * inference (the literal name, the handler's argument and result types)
 * and one consistent way to write tools. The rules are checked when the
 * tools are used to create a session.
 *
 * With explicit generics (defineTool<Args, Result>(...)) TypeScript cannot
 * also infer the name; pass it as the third generic to keep the literal.
 */
export function defineTool<TArgs = unknown, TResult = unknown, const TName extends string = string>(
  definition: ToolDefinition<TArgs, TResult, TName>,
): ToolDefinition<TArgs, TResult, TName> {
  return definition;
}

/** The consent rule Core applies (schema.Tool.AsksConsent): whether a call of tool waits for the user. */
export function asksConsent(tool: Pick<ToolDefinition, "annotations" | "needsApproval">): boolean {
  if (tool.needsApproval === true) return true;
  const a = tool.annotations;
  // readOnlyHint spares a tool only when it claims nothing else: destructive wins.
  if (!a) return false;
  return a.destructiveHint === true || a.consequentialHint === true;
}
