// Standard Schema (standardschema.dev): Zod 4, Valibot, ArkType and others
// describe their schemas through one "~standard" property. A tool's
// inputSchema may be such an object; what leaves the page is its JSON
// Schema, through the Standard JSON Schema interface
// ("~standard".jsonSchema), which Zod 4 implements. The handler's
// arguments are typed from the schema's input type: Core checks the
// arguments against the JSON Schema of that input and the page receives
// them as the agent sent them (no defaults added, no transforms run).

import { PedelecError } from "./errors.js";
import type { JsonObjectSchema } from "./types.js";

/** The part of Standard Schema v1 Pedelec reads; any library's schema object that implements it fits. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    readonly jsonSchema?: {
      readonly input: (options: { readonly target: string }) => Record<string, unknown>;
    };
  };
}

/** The arguments type a Standard Schema describes: its input type. */
export type StandardSchemaInput<S> = S extends StandardSchemaV1<infer I, unknown> ? I : unknown;

/** Whether v is a Standard Schema object rather than plain JSON Schema. */
export function isStandardSchema(v: unknown): v is StandardSchemaV1 {
  if ((typeof v !== "object" && typeof v !== "function") || v === null) return false;
  const s = (v as { "~standard"?: unknown })["~standard"];
  return typeof s === "object" && s !== null && (s as { version?: unknown }).version === 1;
}

/**
 * The JSON Schema (draft 2020-12) of a Standard Schema's input. A library
 * without the Standard JSON Schema interface is refused with the way out:
 * convert with the library's own export and pass the JSON Schema.
 */
export function standardToJsonSchema(s: StandardSchemaV1, tool: string): JsonObjectSchema {
  const std = s["~standard"];
  const convert = std.jsonSchema?.input;
  if (typeof convert !== "function") {
    throw new PedelecError(
      "INVALID_INPUT",
      `tool ${JSON.stringify(tool)}: its inputSchema is a Standard Schema of ${std.vendor} without a JSON Schema export ("~standard".jsonSchema); convert it with the library's own JSON Schema export and pass the result as inputSchema`,
      { tool, vendor: std.vendor },
    );
  }
  let schema: Record<string, unknown>;
  try {
    schema = convert({ target: "draft-2020-12" });
  } catch (err) {
    throw new PedelecError(
      "INVALID_INPUT",
      `tool ${JSON.stringify(tool)}: ${std.vendor} cannot write its inputSchema as JSON Schema (${err instanceof Error ? err.message : String(err)}); change the schema to one JSON Schema can express`,
      { tool, vendor: std.vendor },
    );
  }
  return withoutStandard(JSON.parse(JSON.stringify(schema))) as JsonObjectSchema;
}

// Zod's JSON Schema carries its own "~standard" property, which is not a
// JSON Schema keyword (Core would refuse it): what leaves is the schema alone.
function withoutStandard(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutStandard);
  if (typeof v !== "object" || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v)) if (k !== "~standard") out[k] = withoutStandard(val);
  return out;
}
