// The definition rules Core applies at session creation (schema/ in Go),
// checked in the page first so a developer sees every problem at once,
// before anything is sent. The messages must be the same as Core's: the
// unit tests replay Core's golden cases (schema/testdata/definitions).

import { checkJson } from "./json-safety.js";
import type { JsonValue } from "./types.js";

export type Problem = { path: string; message: string };

export const TOOL_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_.-]*$/;

type Obj = { [key: string]: JsonValue };

const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  switch (typeof v) {
    case "string":
      return `the string ${JSON.stringify(v)}`;
    case "number":
      return `the number ${String(v)}`;
    case "boolean":
      return `${String(v)} (a boolean)`;
    default:
      return "an object";
  }
}

const TOOL_FIELDS = new Set(["name", "description", "argsSchema", "timeoutMs", "handler"]);

/**
 * Checks a manifest (plain JSON: handlers already stripped, see toManifest)
 * and returns every problem in document order. An empty list means Core
 * will accept it.
 */
export function validateManifest(manifest: unknown): Problem[] {
  const problems: Problem[] = [];
  const add = (path: string, message: string) => problems.push({ path, message });

  if (!isObject(manifest)) {
    add("", `skills must be an object with guidance and tools, got ${jsonType(manifest)}`);
    return problems;
  }
  if (typeof manifest.guidance !== "string") {
    add("guidance", manifest.guidance === undefined ? "is required: a string of operating guidance for the agent" : `must be a string, got ${jsonType(manifest.guidance)}`);
  }
  const tools = manifest.tools;
  if (!Array.isArray(tools)) {
    add("tools", tools === undefined ? "is required: an array of tool definitions" : `must be an array of tool definitions, got ${jsonType(tools)}`);
    return problems;
  }
  const seen = new Map<string, number>();
  tools.forEach((tool, i) => {
    const at = `tools[${i}]`;
    if (!isObject(tool)) {
      add(at, `must be an object, got ${jsonType(tool)}`);
      return;
    }
    checkName(tool, at, i, seen, add);
    checkDescription(tool, at, add);
    checkTimeout(tool, at, add);
    if ("input" in tool && !("argsSchema" in tool)) {
      add(`${at}.input`, 'the legacy "input" shorthand is not supported: write argsSchema: {"type":"object","properties":{...},"required":[...]} instead');
    } else if ("input" in tool) {
      add(`${at}.input`, 'the legacy "input" shorthand is not supported: remove it and keep argsSchema');
    }
    if (!("argsSchema" in tool)) {
      if (!("input" in tool)) add(`${at}.argsSchema`, 'is required: an object schema such as {"type":"object","properties":{},"required":[]}');
    } else {
      checkRoot(tool.argsSchema, `${at}.argsSchema`, add);
    }
    for (const key of Object.keys(tool)) {
      if (!TOOL_FIELDS.has(key) && key !== "input") add(`${at}.${key}`, `unknown field "${key}": a tool has name, description, argsSchema and timeoutMs`);
    }
  });
  return problems;
}

type Add = (path: string, message: string) => void;

function checkName(tool: Obj, at: string, i: number, seen: Map<string, number>, add: Add) {
  const name = tool.name;
  if (name === undefined) return add(`${at}.name`, "is required");
  if (typeof name !== "string") return add(`${at}.name`, `must be a string, got ${jsonType(name)}`);
  if (!TOOL_NAME_PATTERN.test(name)) {
    return add(`${at}.name`, `${JSON.stringify(name)} does not match ^[a-zA-Z][a-zA-Z0-9_.-]*$: start with an ASCII letter, then use letters, digits, _, . or -`);
  }
  const first = seen.get(name);
  if (first !== undefined) return add(`${at}.name`, `${JSON.stringify(name)} is already used by tools[${first}]: tool names must be unique`);
  seen.set(name, i);
}

function checkDescription(tool: Obj, at: string, add: Add) {
  const d = tool.description;
  if (d === undefined) return add(`${at}.description`, "is required: say what the tool does, what it reads or changes, and its constraints");
  if (typeof d !== "string") return add(`${at}.description`, `must be a string, got ${jsonType(d)}`);
  if (d.trim() === "") add(`${at}.description`, "must not be empty: say what the tool does, what it reads or changes, and its constraints");
}

function checkTimeout(tool: Obj, at: string, add: Add) {
  if (!("timeoutMs" in tool)) return;
  const t = tool.timeoutMs;
  if (typeof t !== "number" || !Number.isInteger(t) || t <= 0) {
    add(`${at}.timeoutMs`, `must be a positive integer (milliseconds), got ${jsonType(t)}`);
  }
}

function checkRoot(schema: JsonValue | undefined, at: string, add: Add) {
  if (!isObject(schema)) return add(at, `must be an object schema ({"type":"object",...}), got ${jsonType(schema)}`);
  if (schema.type !== "object") {
    return add(`${at}.type`, schema.type === undefined ? 'is required at the root: the root must be {"type":"object",...}' : `must be "object" at the root, got ${jsonType(schema.type)}`);
  }
  checkNode(schema, at, add);
}

const COMMON = ["description", "default", "examples"];
const BY_TYPE: Record<string, string[]> = {
  string: ["enum", "minLength", "maxLength", "pattern"],
  number: ["enum", "minimum", "maximum"],
  integer: ["enum", "minimum", "maximum"],
  boolean: ["enum"],
  array: ["items", "minItems", "maxItems", "uniqueItems"],
  object: ["properties", "required"],
};
const UNSUPPORTED = new Set([
  "$ref", "$defs", "definitions", "additionalProperties", "format", "exclusiveMinimum", "exclusiveMaximum",
  "multipleOf", "allOf", "anyOf", "not", "if", "then", "else", "patternProperties", "const",
]);

function checkNode(node: JsonValue | undefined, at: string, add: Add) {
  if (!isObject(node)) return add(at, `must be a schema object, got ${jsonType(node)}`);
  if ("oneOf" in node) {
    const alts = node.oneOf;
    if (!Array.isArray(alts)) add(`${at}.oneOf`, `must be an array of schemas, got ${jsonType(alts)}`);
    else alts.forEach((alt, i) => checkNode(alt, `${at}.oneOf[${i}]`, add));
    for (const key of Object.keys(node)) {
      if (key !== "oneOf" && key !== "type" && !COMMON.includes(key)) unsupported(key, at, add);
    }
    return;
  }
  const type = node.type;
  if (type === undefined) return add(`${at}.type`, 'is required: one of "string", "number", "integer", "boolean", "array", "object" (or use oneOf)');
  if (typeof type !== "string" || !(type in BY_TYPE)) {
    return add(`${at}.type`, `must be one of "string", "number", "integer", "boolean", "array", "object", got ${jsonType(type)}`);
  }
  const allowed = BY_TYPE[type] ?? [];
  for (const key of Object.keys(node)) {
    if (key === "type" || COMMON.includes(key) || allowed.includes(key)) continue;
    unsupported(key, at, add, type);
  }
  checkKeywords(node, type, at, add);
}

function unsupported(key: string, at: string, add: Add, type?: string) {
  if (UNSUPPORTED.has(key)) add(`${at}.${key}`, `"${key}" is not supported by Pedelec's schema subset`);
  else if (type) add(`${at}.${key}`, `"${key}" is not a supported keyword for type "${type}"`);
  else add(`${at}.${key}`, `"${key}" is not supported next to oneOf`);
}

function nonNegInt(v: unknown) {
  return typeof v === "number" && Number.isInteger(v) && v >= 0;
}

function checkKeywords(node: Obj, type: string, at: string, add: Add) {
  if (node.description !== undefined && typeof node.description !== "string") {
    add(`${at}.description`, `must be a string, got ${jsonType(node.description)}`);
  }
  if (node.examples !== undefined && !Array.isArray(node.examples)) add(`${at}.examples`, `must be an array, got ${jsonType(node.examples)}`);
  if (node.enum !== undefined && !Array.isArray(node.enum)) add(`${at}.enum`, `must be an array, got ${jsonType(node.enum)}`);
  for (const k of ["minLength", "maxLength", "minItems", "maxItems"]) {
    if (node[k] !== undefined && !nonNegInt(node[k])) add(`${at}.${k}`, `must be a non-negative integer, got ${jsonType(node[k])}`);
  }
  for (const k of ["minimum", "maximum"]) {
    if (node[k] !== undefined && typeof node[k] !== "number") add(`${at}.${k}`, `must be a number, got ${jsonType(node[k])}`);
  }
  if (node.uniqueItems !== undefined && typeof node.uniqueItems !== "boolean") add(`${at}.uniqueItems`, `must be a boolean, got ${jsonType(node.uniqueItems)}`);
  if (node.pattern !== undefined) {
    if (typeof node.pattern !== "string") add(`${at}.pattern`, `must be a string, got ${jsonType(node.pattern)}`);
    else {
      try {
        new RegExp(node.pattern, "u");
      } catch {
        add(`${at}.pattern`, `is not a valid regular expression: ${JSON.stringify(node.pattern)}`);
      }
    }
  }
  if (type === "array" && node.items !== undefined) checkNode(node.items, `${at}.items`, add);
  if (type === "object") {
    const props = node.properties;
    if (props !== undefined && !isObject(props)) add(`${at}.properties`, `must be an object mapping names to schemas, got ${jsonType(props)}`);
    if (isObject(props)) for (const [name, sub] of Object.entries(props)) checkNode(sub, `${at}.properties.${name}`, add);
    const req = node.required;
    if (req !== undefined) {
      if (!Array.isArray(req)) add(`${at}.required`, `must be an array of property names, got ${jsonType(req)}`);
      else
        req.forEach((name, i) => {
          if (typeof name !== "string") add(`${at}.required[${i}]`, `must be a string, got ${jsonType(name)}`);
          else if (!isObject(props) || !(name in props)) add(`${at}.required[${i}]`, `names "${name}", which is not defined in properties`);
        });
    }
  }
}

/** Checks that skills are plain JSON once handlers are stripped; returns the problem or null. */
export function plainJsonProblem(value: unknown): Problem | null {
  const checked = checkJson(value);
  if (checked.ok) return null;
  const path = checked.problem.path.replace(/^\$\.?/, "");
  return { path, message: `is ${checked.problem.problem}: the manifest must be plain JSON` };
}
