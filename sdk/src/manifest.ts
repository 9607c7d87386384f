// The serializable half of skills: what leaves the page. Handlers are
// stripped here and nowhere else, so there is one place that decides what
// Core (and `pedelec validate-tools`) sees.

import { PedelecError } from "./errors.js";
import type { AnyToolDefinition, JsonValue, SkillsInput, SkillsManifest } from "./types.js";
import { plainJsonProblem, validateManifest, type Problem } from "./validate.js";

function stripHandlers(skills: unknown): unknown {
  if (typeof skills !== "object" || skills === null || Array.isArray(skills)) return skills;
  const { tools, ...rest } = skills as { tools?: unknown; [k: string]: unknown };
  if (!Array.isArray(tools)) return skills;
  return {
    ...rest,
    tools: tools.map((tool: unknown) => {
      if (typeof tool !== "object" || tool === null || Array.isArray(tool)) return tool;
      const { handler: _handler, ...def } = tool as Record<string, unknown>;
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
export function toManifest(skills: SkillsInput<readonly AnyToolDefinition[]>): SkillsManifest {
  const stripped = stripHandlers(skills);
  const problem = plainJsonProblem(stripped);
  if (problem) throw invalidInput([problem]);
  return JSON.parse(JSON.stringify(stripped)) as SkillsManifest;
}

/** Strips handlers, checks every rule, and returns the manifest or throws INVALID_INPUT. */
export function checkedManifest(skills: unknown): JsonValue {
  const stripped = stripHandlers(skills);
  const jsonProblem = plainJsonProblem(stripped);
  if (jsonProblem) throw invalidInput([jsonProblem]);
  const tools = (skills as { tools?: unknown })?.tools;
  const problems: Problem[] = [];
  if (Array.isArray(tools)) {
    tools.forEach((tool: unknown, i) => {
      const handler = (tool as { handler?: unknown } | null)?.handler;
      if (handler !== undefined && typeof handler !== "function") {
        problems.push({ path: `tools[${i}].handler`, message: "must be a function (it stays in the page)" });
      }
    });
  }
  const clean = JSON.parse(JSON.stringify(stripped)) as JsonValue;
  problems.unshift(...validateManifest(clean));
  if (problems.length > 0) throw invalidInput(problems);
  return clean;
}

export function invalidInput(problems: Problem[]): PedelecError {
  const first = problems[0];
  const where = (p: Problem) => (p.path ? `${p.path}: ${p.message}` : p.message);
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
  return new PedelecError(
    "INVALID_INPUT",
    `Invalid skills: ${first ? where(first) : "unknown problem"}${more}`,
    { problems },
  );
}
