import { isStandardSchema, standardToJsonSchema, type StandardSchemaInput, type StandardSchemaV1 } from "./standard-schema.js";
import type { InputSchemaToolDefinition, JsonObjectSchema, ToolDefinition, ToolDefinitionFields } from "./types.js";

/** Pedelec Core addition: a definition whose inputSchema is a Standard Schema object (Zod 4, ...). */
export type StandardToolDefinition<S extends StandardSchemaV1, TResult = unknown, TName extends string = string> = ToolDefinitionFields<
  StandardSchemaInput<S>,
  TResult,
  TName
> & { inputSchema: S; argsSchema?: undefined };

/**
 * Declares a tool. It returns the definition unchanged, but for an
 * inputSchema given as a Standard Schema object (Zod 4's z.object(...),
 * and any library implementing "~standard" with its JSON Schema export),
 * which becomes its JSON Schema; the handler's arguments are then typed
 * from the schema. Its value is type inference (the literal name, the
 * handler's argument and result types) and one consistent way to write
 * tools. The rules are checked when the tools are used to create a session.
 *
 * With explicit generics (defineTool<Args, Result>(...)) TypeScript cannot
 * also infer the name; pass it as the third generic to keep the literal.
 */
export function defineTool<
  TArgs = unknown,
  TResult = unknown,
  const TName extends string = string,
  const S extends StandardSchemaV1 | JsonObjectSchema | undefined = undefined,
>(
  definition: S extends StandardSchemaV1
    ? StandardToolDefinition<S, TResult, TName>
    : S extends JsonObjectSchema
      ? InputSchemaToolDefinition<TArgs, TResult, TName> & { inputSchema: S }
      : ToolDefinition<TArgs, TResult, TName> & { inputSchema?: S },
): S extends StandardSchemaV1
  ? InputSchemaToolDefinition<StandardSchemaInput<S>, TResult, TName>
  : S extends JsonObjectSchema
    ? InputSchemaToolDefinition<TArgs, TResult, TName>
    : ToolDefinition<TArgs, TResult, TName>;
export function defineTool(definition: { name: string; inputSchema?: unknown }): unknown {
  if (isStandardSchema(definition.inputSchema)) {
    return { ...definition, inputSchema: standardToJsonSchema(definition.inputSchema, definition.name) };
  }
  return definition;
}

/** The consent rule Core applies (schema.Tool.AsksConsent): whether a call of tool waits for the user. */
export function asksConsent(tool: Pick<ToolDefinitionFields, "annotations" | "needsApproval">): boolean {
  if (tool.needsApproval === true) return true;
  const a = tool.annotations;
  // readOnlyHint spares a tool only when it claims nothing else: destructive wins.
  if (!a) return false;
  return a.destructiveHint === true || a.consequentialHint === true;
}
