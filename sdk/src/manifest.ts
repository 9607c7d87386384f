// The serializable half of skills: what leaves the page. Handlers are
// stripped here and nowhere else, so there is one place that decides what
// Core (and `pedelec validate-tools`) sees.

import { PedelecError } from "./errors.js";
import type { AnyToolDefinition, JsonValue, SerializableSkillsManifest, SkillsInput } from "./types.js";
import { isStandardSchema, standardToJsonSchema } from "./standard-schema.js";
import { plainJsonProblem, validateManifest, type Problem } from "./validate.js";

/**
 * Removes function handlers and turns a Standard Schema inputSchema into its
 * JSON Schema. Anything else in a handler field is left for the rules to
 * report, as Core would.
 */
function stripHandlers(skills: unknown): unknown {
  if (typeof skills !== "object" || skills === null || Array.isArray(skills)) return skills;
  const tools = (skills as { tools?: unknown }).tools;
  if (!Array.isArray(tools)) return skills;
  return {
    ...skills,
    tools: tools.map((tool: unknown) => {
      if (typeof tool !== "object" || tool === null || Array.isArray(tool)) return tool;
      const t = tool as Record<string, unknown>;
      // A Standard Schema object written without defineTool leaves as its JSON Schema too.
      const withSchema = isStandardSchema(t.inputSchema) ? { ...t, inputSchema: standardToJsonSchema(t.inputSchema, String(t.name)) } : t;
      if (typeof withSchema.handler !== "function") return withSchema;
      const { handler: _handler, ...def } = withSchema;
      return def;
    }),
  };
}

/**
 * Returns the plain JSON manifest of skills, handlers stripped: exactly
 * what Core receives. Write it to a file and check it in your own CI with
 * `pedelec validate-tools manifest.json`. Throws INVALID_INPUT only when
 * the definitions cannot be JSON at all (a function inside argsSchema, a
 * cycle, ...); the other rules are for validate-tools and createSession.
 */
export function toManifest(skills: SkillsInput<readonly AnyToolDefinition[]>): SerializableSkillsManifest {
  const stripped = stripHandlers(skills);
  const problem = plainJsonProblem(stripped);
  if (problem) throw invalidInput([problem]);
  return JSON.parse(JSON.stringify(stripped)) as SerializableSkillsManifest;
}

/** Strips handlers, checks every rule, and returns the manifest or throws INVALID_INPUT. */
export function checkedManifest(skills: unknown): JsonValue {
  const stripped = stripHandlers(skills);
  const jsonProblem = plainJsonProblem(stripped);
  if (jsonProblem) throw invalidInput([jsonProblem]);
  const clean = JSON.parse(JSON.stringify(stripped ?? null)) as JsonValue;
  const problems = validateManifest(clean);
  if (problems.length > 0) throw invalidInput(problems);
  return clean;
}

/** The same error Core answers (schema.InvalidInput): every problem in the message and in details. */
export function invalidInput(problems: Problem[]): PedelecError {
  const n = problems.length === 1 ? "1 problem" : `${problems.length} problems`;
  const parts = problems.map((p) => `${p.path}: ${p.message}`).join("; ");
  return new PedelecError("INVALID_INPUT", `${n} in the tool definitions: ${parts}`, { problems });
}
