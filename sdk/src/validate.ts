// The definition rules Core applies at session creation, checked in the
// page first so a developer sees every problem at once, before anything is
// sent. This is a port of Go's schema/rules.go and schema/subset.go: the
// messages are part of the contract, and the unit tests replay Core's
// golden cases (schema/testdata/definitions) to keep the two identical.
// Keep the order of checks as in Go: problems come out in document order.
//
// What only JSON text can hold (repeated keys, numbers beyond a double) is
// Core's alone to report: a page's JSON.stringify never produces either.

import { checkJson } from "./json-safety.js";
import { checkStandardSchema } from "./standard-rules.js";
import type { JsonValue } from "./types.js";

export type Problem = { path: string; message: string };

/** The path that names the whole skills object. */
export const ROOT_PATH = "(root)";
export const TOOL_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_.-]*$/;
const MAX_SAFE_INTEGER = 2 ** 53 - 1;
const MAX_SCHEMA_DEPTH = 32;

type Obj = { [key: string]: JsonValue };
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

// ---- paths: tools[1].argsSchema.properties.delta, card["first name"] ----

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (p: string, k: string) => (IDENTIFIER.test(k) ? (p === "" ? k : `${p}.${k}`) : `${p}[${quoteJSON(k)}]`);
const index = (p: string, i: number) => `${p}[${i}]`;
const show = (p: string) => (p === "" ? ROOT_PATH : p);

// ---- how Go words values (schema/json.go) ----

/** Go's encoding/json without HTML escaping. */
function quoteJSON(s: string): string {
  return JSON.stringify(s).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

/** Go's quoteShort: at most 60 characters, then "…". */
function quoteShort(s: string): string {
  const runes = Array.from(s);
  return quoteJSON(runes.length > 60 ? runes.slice(0, 60).join("") + "…" : s);
}

const num = (n: number) => JSON.stringify(n);

function describe(v: JsonValue | undefined): string {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "an array";
  switch (typeof v) {
    case "string":
      return `the string ${quoteShort(v)}`;
    case "number":
      return `the number ${num(v)}`;
    case "boolean":
      return `${String(v)} (a boolean)`;
    default:
      return "an object";
  }
}

// ---- the subset (schema/subset.go) ----

const NODE_TYPES = ["string", "number", "integer", "boolean", "array", "object"];
const ANY_NODE_KEYWORDS = ["description", "default", "examples", "type", "oneOf"];
const TYPE_KEYWORDS: Record<string, string[]> = {
  string: ["enum", "minLength", "maxLength", "pattern"],
  number: ["enum", "minimum", "maximum"],
  integer: ["enum", "minimum", "maximum"],
  boolean: ["enum"],
  array: ["items", "minItems", "maxItems", "uniqueItems"],
  object: ["properties", "required"],
};
const KEYWORD_TYPES: Record<string, string[]> = {};
for (const t of NODE_TYPES) for (const k of TYPE_KEYWORDS[t] ?? []) (KEYWORD_TYPES[k] ??= []).push(t);

const UNSUPPORTED: Record<string, string> = {
  $ref: "inline the referenced schema where it is used",
  $defs: "inline each definition where it is used",
  definitions: "inline each definition where it is used",
  $schema: "remove it; the dialect is fixed",
  $id: "remove it",
  $anchor: "remove it and inline the schema",
  $comment: 'remove it, or move the text into "description"',
  title: 'use "description"',
  additionalProperties: "remove it; undeclared properties are accepted and the handler should ignore them",
  patternProperties: 'declare each property in "properties"',
  propertyNames: "check property names in the handler",
  minProperties: 'list the needed properties in "required"',
  maxProperties: "check it in the handler",
  dependentRequired: "check it in the handler",
  dependentSchemas: "check it in the handler",
  unevaluatedProperties: "remove it; undeclared properties are accepted and the handler should ignore them",
  unevaluatedItems: "remove it",
  prefixItems: 'use one "items" schema (with "oneOf" if items differ)',
  additionalItems: 'use one "items" schema',
  contains: "check it in the handler",
  minContains: "check it in the handler",
  maxContains: "check it in the handler",
  format: 'use "pattern", or describe the format in "description" and check it in the handler',
  exclusiveMinimum: 'use "minimum" (for an integer, the bound plus one)',
  exclusiveMaximum: 'use "maximum" (for an integer, the bound minus one)',
  multipleOf: 'describe it in "description" and check it in the handler',
  const: 'use "enum" with one value',
  allOf: "merge the schemas into one node",
  anyOf: 'use "oneOf" with options that do not overlap',
  not: "check it in the handler",
  if: 'use "oneOf", or check it in the handler',
  then: 'use "oneOf", or check it in the handler',
  else: 'use "oneOf", or check it in the handler',
  nullable: 'leave the property out of "required" instead of allowing null',
  contentEncoding: "check it in the handler",
  contentMediaType: "check it in the handler",
  contentSchema: "check it in the handler",
  readOnly: "remove it",
  writeOnly: "remove it",
  deprecated: 'remove it, or say so in "description"',
};

const TOOL_FIELD_HINTS: Record<string, string> = {
  parameters: "argsSchema", input_schema: "inputSchema", inputschema: "inputSchema",
  schema: "argsSchema", args: "argsSchema", args_schema: "argsSchema", argsschema: "argsSchema",
  arguments: "argsSchema", timeout: "timeoutMs", timeout_ms: "timeoutMs", timeoutMS: "timeoutMs",
  desc: "description", title: "description", toolName: "name",
  needs_approval: "needsApproval", requiresApproval: "needsApproval", requireApproval: "needsApproval",
  needsConsent: "needsApproval", approval: "needsApproval", hints: "annotations", annotation: "annotations",
  output_schema: "outputSchema", outputschema: "outputSchema", resultSchema: "outputSchema", returns: "outputSchema",
};

/** A definition's fields, for the unknown-field messages (Core's toolFields). */
const TOOL_FIELDS = "name, description, argsSchema (or inputSchema), timeoutMs, annotations, needsApproval and outputSchema";
/** The boolean annotations: MCP's tool annotations and WebMCP's. */
const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "consequentialHint", "untrustedContentHint"];
const ANNOTATION_FIELDS = "title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint, consequentialHint and untrustedContentHint";

/** A near-miss annotation name (readOnly, read_only_hint) to the one meant, or "" (Core's annotationHint). */
function annotationHint(k: string): string {
  const norm = k.replace(/_/g, "").toLowerCase();
  return HINTS.find((h) => norm === h.toLowerCase() || norm + "hint" === h.toLowerCase()) ?? "";
}

const orList = (names: string[]) => (names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`);
const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
const get = (o: Obj, k: string): JsonValue | undefined => (has(o, k) ? o[k] : undefined);

// ---- patterns: Core runs them on RE2 (schema/pattern.go) ----

const LOOKAROUND =
  "lookahead and lookbehind ((?=, (?!, (?<=, (?<!) are not supported because patterns run on RE2, which matches in linear time; rewrite the pattern without them, or check the rule in the handler";
const BACKREF =
  "backreferences (\\1, \\k<name>) are not supported because patterns run on RE2, which matches in linear time; rewrite the pattern without them, or check the rule in the handler";
const SYNTAX = "check its syntax (patterns are JavaScript regular expressions without lookaround or backreferences, run on RE2)";

/**
 * Why Core cannot run a pattern, or null. The page has no RE2, so this
 * refuses what RE2 surely cannot run (lookaround, backreferences, a
 * JavaScript syntax error); anything subtler is left to Core, which is
 * the authority and answers INVALID_INPUT with the same message.
 */
export function patternProblem(pattern: string): string | null {
  const plain = pattern.split("\\\\").join("");
  if (/\(\?(=|!|<=|<!)/.test(plain)) return LOOKAROUND;
  if (/\\[1-9]|\\k</.test(plain)) return BACKREF;
  try {
    new RegExp(pattern);
  } catch {
    return SYNTAX;
  }
  return null;
}

// ---- the checker (schema/rules.go) ----

class Checker {
  readonly problems: Problem[] = [];

  add(p: string, message: string) {
    this.problems.push({ path: show(p), message });
  }

  skills(v: JsonValue | undefined) {
    if (!isObject(v)) {
      this.add("", `skills must be an object {"guidance": "...", "tools": [...]}; got ${describe(v)}`);
      return;
    }
    let sawTools = false;
    for (const k of Object.keys(v)) {
      const val = v[k];
      if (k === "guidance") {
        if (typeof val !== "string") this.add(key("", "guidance"), `guidance must be a string of instructions for the agent; got ${describe(val)}`);
      } else if (k === "tools") {
        sawTools = true;
        this.tools(val, key("", "tools"));
      } else {
        this.add(key("", k), `unknown field ${quoteShort(k)} in skills; skills has only guidance and tools, so remove it`);
      }
    }
    if (!sawTools) this.add(key("", "tools"), 'tools is missing; add "tools": [...] with the tool definitions ([] for a session without tools)');
  }

  tools(v: JsonValue | undefined, p: string) {
    if (!Array.isArray(v)) {
      this.add(p, `tools must be an array of tool definitions; got ${describe(v)}`);
      return;
    }
    const firstUse = new Map<string, number>();
    v.forEach((e, i) => this.tool(e, index(p, i), i, firstUse));
  }

  tool(v: JsonValue, p: string, i: number, firstUse: Map<string, number>) {
    if (!isObject(v)) {
      this.add(p, `a tool definition must be an object {name, description, argsSchema, timeoutMs?}; got ${describe(v)}`);
      return;
    }
    let sawName = false, sawDescription = false, sawArgs = false, sawInput = false, sawStandard = false;
    // Beside an inputSchema, the outputSchema is in the standard dialects too.
    const standard = has(v, "inputSchema");
    for (const k of Object.keys(v)) {
      const val = v[k] as JsonValue;
      const fp = key(p, k);
      switch (k) {
        case "name":
          sawName = true;
          this.name(val, fp, i, firstUse);
          break;
        case "description":
          sawDescription = true;
          if (typeof val !== "string") this.add(fp, `description must be a string; got ${describe(val)}`);
          else if (val.trim() === "") this.add(fp, "description is empty; say what the tool does, what it reads or changes, and when to prefer another tool");
          break;
        case "timeoutMs":
          this.timeout(val, fp);
          break;
        case "annotations":
          this.annotations(val, fp);
          break;
        case "needsApproval":
          this.flag(val, fp, "needsApproval", "true asks the user before every call");
          break;
        case "argsSchema":
          sawArgs = true;
          this.argsSchema(val, fp);
          break;
        case "inputSchema":
          sawStandard = true;
          this.standardSchema(val, fp, "inputSchema", "arguments are always a JSON object");
          break;
        case "outputSchema":
          if (standard) this.standardSchema(val, fp, "outputSchema", "a declared result is a JSON object, as MCP's structuredContent is");
          else this.outputSchema(val, fp);
          break;
        case "input":
          sawInput = true;
          this.add(fp, 'the legacy "input" shorthand is not supported; rename it to "argsSchema" and write an object schema: {"type": "object", "properties": {...}, "required": [...]}');
          break;
        case "handler":
          this.add(fp, "handler cannot be part of the manifest: handlers stay in the browser (the SDK removes them before sending the definitions); remove it from the JSON");
          break;
        default: {
          const want = has(TOOL_FIELD_HINTS, k) ? TOOL_FIELD_HINTS[k] : undefined;
          if (want) this.add(fp, `unknown field ${quoteShort(k)} in a tool definition; did you mean ${quoteJSON(want)}? A definition has only ${TOOL_FIELDS}`);
          else this.add(fp, `unknown field ${quoteShort(k)} in a tool definition; a definition has only ${TOOL_FIELDS}, so remove it`);
        }
      }
    }
    if (!sawName) this.add(key(p, "name"), 'name is missing; add a name such as "update_counter" (an ASCII letter, then letters, digits, _, . or -)');
    if (!sawDescription) this.add(key(p, "description"), "description is missing; say what the tool does, what it reads or changes, and when to prefer another tool");
    if (sawArgs && sawStandard) {
      this.add(key(p, "inputSchema"), "a tool gives argsSchema or inputSchema, not both; keep inputSchema for standard JSON Schema, argsSchema for Pedelec's subset");
    }
    if (!sawArgs && !sawInput && !sawStandard) {
      this.add(key(p, "argsSchema"), 'argsSchema is missing; every tool needs an object schema, for a tool without arguments {"type": "object", "properties": {}, "required": []}');
    }
  }

  name(v: JsonValue, p: string, i: number, firstUse: Map<string, number>) {
    if (typeof v !== "string") {
      this.add(p, `name must be a string such as "update_counter"; got ${describe(v)}`);
      return;
    }
    if (v === "") {
      this.add(p, 'name is empty; use an ASCII letter, then letters, digits, _, . or - (for example "update_counter")');
    } else if (!TOOL_NAME_PATTERN.test(v)) {
      if (!/^[a-zA-Z]/.test(v)) {
        this.add(p, `name ${quoteShort(v)} must start with an ASCII letter (the pattern is ^[a-zA-Z][a-zA-Z0-9_.-]*$); for example "update_counter"`);
      } else {
        const bad = Array.from(v).find((r) => !/^[a-zA-Z0-9_.-]$/.test(r)) ?? "";
        this.add(p, `name ${quoteShort(v)} contains ${quoteJSON(bad)}, which is not allowed; use only ASCII letters, digits, _, . and - (the pattern is ^[a-zA-Z][a-zA-Z0-9_.-]*$)`);
      }
    }
    if (v !== "") {
      const first = firstUse.get(v);
      if (first !== undefined) this.add(p, `name ${quoteShort(v)} is already used by tools[${first}]; tool names must be unique, so rename one of them`);
      else firstUse.set(v, i);
    }
  }

  annotations(v: JsonValue, p: string) {
    if (!isObject(v)) {
      this.add(p, `annotations must be an object such as {"destructiveHint": true}; got ${describe(v)}`);
      return;
    }
    for (const k of Object.keys(v)) {
      const val = v[k] as JsonValue;
      const fp = key(p, k);
      if (k === "title") {
        if (typeof val !== "string") this.add(fp, `title must be a string; got ${describe(val)}`);
      } else if (HINTS.includes(k)) {
        this.flag(val, fp, k, "a hint is a boolean; remove it to leave it unsaid");
      } else {
        const want = annotationHint(k);
        if (want) this.add(fp, `unknown annotation ${quoteShort(k)}; did you mean ${quoteJSON(want)}? annotations has only ${ANNOTATION_FIELDS}`);
        else this.add(fp, `unknown annotation ${quoteShort(k)}; annotations has only ${ANNOTATION_FIELDS}, so remove it`);
      }
    }
  }

  flag(v: JsonValue, p: string, name: string, hint: string) {
    if (typeof v !== "boolean") this.add(p, `${name} must be true or false; got ${describe(v)} (${hint})`);
  }

  timeout(v: JsonValue, p: string) {
    const fix = "remove timeoutMs to use the default of 60000";
    if (typeof v === "string") {
      this.add(p, `timeoutMs must be a number of milliseconds, not a string; got ${describe(v)} (write it without quotes, or ${fix})`);
    } else if (typeof v !== "number") {
      this.add(p, `timeoutMs must be a positive integer number of milliseconds; got ${describe(v)} (${fix})`);
    } else if (v !== Math.trunc(v)) {
      this.add(p, `timeoutMs must be a whole number of milliseconds; got ${num(v)}`);
    } else if (v <= 0) {
      this.add(p, `timeoutMs must be positive; got ${num(v)} (${fix})`);
    } else if (v > MAX_SAFE_INTEGER) {
      this.add(p, `timeoutMs ${num(v)} is too large; use at most ${MAX_SAFE_INTEGER} milliseconds`);
    }
  }

  argsSchema(v: JsonValue, p: string) {
    if (!isObject(v)) {
      this.add(p, `argsSchema must be an object schema such as {"type": "object", "properties": {...}, "required": [...]}; got ${describe(v)}`);
      return;
    }
    const t = get(v, "type");
    if (!has(v, "type")) {
      this.add(key(p, "type"), 'the argsSchema root must have "type": "object" (arguments are always a JSON object); add it, with {"type": "object", "properties": {}, "required": []} for a tool without arguments');
    } else if (typeof t === "string" && t !== "object") {
      this.add(key(p, "type"), `the argsSchema root must have "type": "object" (arguments are always a JSON object); got ${quoteShort(t)} — wrap the value in a property`);
    }
    this.node(v, p, 0, "object");
  }

  // Standard JSON Schema (standard-rules.ts): what the page can check
  // without a validator; what only the validator finds is Core's.
  standardSchema(v: JsonValue, p: string, field: string, why: string) {
    checkStandardSchema({ add: (path, message) => this.add(path, message), key, index, describe, quoteShort }, v, p, field, why);
  }

  // Like argsSchema: a declared result is an object, as MCP's structuredContent is.
  outputSchema(v: JsonValue, p: string) {
    if (!isObject(v)) {
      this.add(p, `outputSchema must be an object schema such as {"type": "object", "properties": {...}, "required": [...]}; got ${describe(v)}`);
      return;
    }
    const t = get(v, "type");
    if (!has(v, "type")) {
      this.add(key(p, "type"), 'the outputSchema root must have "type": "object" (a declared result is a JSON object, as MCP\'s structuredContent is); add it');
    } else if (typeof t === "string" && t !== "object") {
      this.add(key(p, "type"), `the outputSchema root must have "type": "object" (a declared result is a JSON object, as MCP's structuredContent is); got ${quoteShort(t)} — return an object with the value in a property`);
    }
    this.node(v, p, 0, "object");
  }

  node(v: JsonValue, p: string, depth: number, assume: string) {
    if (!isObject(v)) {
      if (typeof v === "boolean") this.add(p, 'boolean schemas are not supported; write an object schema such as {"type": "string"}');
      else this.add(p, `a schema must be an object such as {"type": "string"}; got ${describe(v)}`);
      return;
    }
    if (depth > MAX_SCHEMA_DEPTH) {
      this.add(p, `schemas nested more than ${MAX_SCHEMA_DEPTH} levels deep are not supported; flatten the arguments`);
      return;
    }
    const [typ, typeOK] = this.nodeType(v, p, assume);
    for (const k of Object.keys(v)) {
      const val = v[k] as JsonValue;
      const kp = key(p, k);
      const unsupported = has(UNSUPPORTED, k) ? UNSUPPORTED[k] : undefined;
      const applies = has(KEYWORD_TYPES, k) ? KEYWORD_TYPES[k] : undefined;
      if (ANY_NODE_KEYWORDS.includes(k)) {
        this.anyNodeKeyword(k, val, kp, depth);
      } else if (unsupported) {
        this.add(kp, `${k} is not supported by Pedelec's schema subset; ${unsupported}`);
      } else if (applies) {
        if (typeOK && (TYPE_KEYWORDS[typ] ?? []).includes(k)) this.typeKeyword(v, typ, k, val, kp, depth);
        else if (typeOK) this.add(kp, `${k} applies to ${orList(applies)} schemas, not ${typ}; remove it or change the type`);
        else if (typ === "") this.add(kp, `${k} needs a "type" (it applies to ${orList(applies)} schemas); add the type, or move ${k} into each oneOf option`);
      } else {
        this.add(kp, `${quoteShort(k)} is not a keyword of Pedelec's schema subset; ${supportedHint(typ, typeOK)}`);
      }
    }
    if (typeOK) this.pairs(v, p, typ);
  }

  nodeType(v: Obj, p: string, assume: string): [string, boolean] {
    if (!has(v, "type")) {
      if (assume !== "") return [assume, true];
      if (!["oneOf", "$ref", "allOf", "anyOf"].some((k) => has(v, k))) {
        this.add(p, `the schema has no "type"; add "type" (one of ${orList(NODE_TYPES)}), or "oneOf" with the allowed forms`);
      }
      return ["", false];
    }
    const t = v.type as JsonValue;
    if (Array.isArray(t)) this.add(key(p, "type"), 'type must be one string; a list of types is not supported, so use "oneOf" with one schema per type');
    else if (typeof t !== "string") this.add(key(p, "type"), `type must be a string, one of ${orList(NODE_TYPES)}; got ${describe(t)}`);
    else if (t === "null") this.add(key(p, "type"), 'type "null" is not supported; to make a value optional, leave it out of "required"');
    else if (!NODE_TYPES.includes(t)) this.add(key(p, "type"), `type ${quoteShort(t)} is not supported; use one of ${orList(NODE_TYPES)}`);
    else return [t, true];
    return ["invalid", false];
  }

  anyNodeKeyword(k: string, v: JsonValue, p: string, depth: number) {
    if (k === "description" && typeof v !== "string") this.add(p, `description must be a string; got ${describe(v)}`);
    if (k === "examples" && !Array.isArray(v)) this.add(p, `examples must be an array of example values; got ${describe(v)} (wrap it in [ ])`);
    if (k === "oneOf") {
      if (!Array.isArray(v)) this.add(p, `oneOf must be an array of schemas; got ${describe(v)}`);
      else if (v.length === 0) this.add(p, "oneOf is empty, so no value could ever match; list at least one schema, or remove oneOf");
      else v.forEach((e, i) => this.node(e, index(p, i), depth + 1, ""));
    }
  }

  typeKeyword(n: Obj, typ: string, k: string, v: JsonValue, p: string, depth: number) {
    switch (k) {
      case "enum":
        return this.enum(typ, v, p);
      case "minLength":
      case "maxLength":
      case "minItems":
      case "maxItems":
        if (typeof v !== "number") this.add(p, `${k} must be a non-negative integer; got ${describe(v)}`);
        else if (v !== Math.trunc(v) || v < 0) this.add(p, `${k} must be a non-negative integer; got ${num(v)}`);
        return;
      case "minimum":
      case "maximum":
        if (typeof v !== "number") this.add(p, `${k} must be a number; got ${describe(v)}`);
        return;
      case "pattern":
        if (typeof v !== "string") this.add(p, `pattern must be a string holding a regular expression; got ${describe(v)}`);
        else {
          const why = patternProblem(v);
          if (why) this.add(p, `pattern ${quoteShort(v)} is not a regular expression Pedelec can run; ${why}`);
        }
        return;
      case "uniqueItems":
        if (typeof v !== "boolean") this.add(p, `uniqueItems must be true or false; got ${describe(v)}`);
        return;
      case "items":
        if (Array.isArray(v)) {
          this.add(p, 'items must be one schema; a list of schemas (tuple form) is not supported, so use one schema, with "oneOf" if items differ');
          return;
        }
        return this.node(v, p, depth + 1, "");
      case "properties":
        if (!isObject(v)) {
          this.add(p, `properties must be an object mapping each property name to its schema; got ${describe(v)}`);
          return;
        }
        for (const name of Object.keys(v)) this.node(v[name] as JsonValue, key(p, name), depth + 1, "");
        return;
      case "required":
        return this.required(n, v, p);
    }
  }

  enum(typ: string, v: JsonValue, p: string) {
    if (!Array.isArray(v)) {
      this.add(p, `enum must be an array of the allowed ${typ} values; got ${describe(v)}`);
      return;
    }
    if (v.length === 0) {
      this.add(p, `enum is empty, so no value could ever match; list the allowed ${typ} values, or remove enum`);
      return;
    }
    v.forEach((e, i) => {
      if (!matchesType(typ, e)) this.add(index(p, i), `enum values must be of the schema's type ${typ}; got ${describe(e)}`);
    });
  }

  required(n: Obj, v: JsonValue, p: string) {
    if (!Array.isArray(v)) {
      this.add(p, `required must be an array of property names; got ${describe(v)}`);
      return;
    }
    const props = get(n, "properties");
    v.forEach((e, i) => {
      if (typeof e !== "string") this.add(index(p, i), `required must list property names as strings; got ${describe(e)}`);
      else if (!isObject(props)) this.add(index(p, i), `required names ${quoteShort(e)}, but the schema has no properties; declare it in "properties" or remove it from required`);
      else if (!has(props, e)) this.add(index(p, i), `required names ${quoteShort(e)}, which is not in properties; declare it in "properties" or remove it from required`);
    });
  }

  pairs(v: Obj, p: string, typ: string) {
    for (const [lo, hi] of [["minLength", "maxLength"], ["minimum", "maximum"], ["minItems", "maxItems"]] as const) {
      if (!(TYPE_KEYWORDS[typ] ?? []).includes(lo)) continue;
      const l = get(v, lo);
      const h = get(v, hi);
      if (typeof l === "number" && typeof h === "number" && l > h) {
        this.add(key(p, lo), `${lo} (${num(l)}) is greater than ${hi} (${num(h)}), so no value could match; lower ${lo} or raise ${hi}`);
      }
    }
  }
}

function matchesType(typ: string, v: JsonValue): boolean {
  switch (typ) {
    case "string":
      return typeof v === "string";
    case "number":
      return typeof v === "number";
    case "integer":
      return typeof v === "number" && v === Math.trunc(v);
    case "boolean":
      return typeof v === "boolean";
    case "array":
      return Array.isArray(v);
    case "object":
      return isObject(v);
  }
  return false;
}

function supportedHint(typ: string, typeOK: boolean): string {
  if (typeOK) return `a ${typ} schema may use ${[...ANY_NODE_KEYWORDS, ...(TYPE_KEYWORDS[typ] ?? [])].join(", ")}`;
  return `every schema may use ${ANY_NODE_KEYWORDS.join(", ")}, plus the keywords of its type`;
}

/**
 * Checks a skills manifest (plain JSON: function handlers already stripped,
 * see toManifest) and returns every problem in document order, with Core's
 * paths and messages. An empty list means Core accepts it.
 */
export function validateManifest(manifest: unknown): Problem[] {
  const c = new Checker();
  c.skills(manifest as JsonValue);
  return c.problems;
}

/** The one problem that keeps skills from being plain JSON at all, or null. */
export function plainJsonProblem(value: unknown): Problem | null {
  const checked = checkJson(value);
  if (checked.ok) return null;
  const { path, problem } = checked.problem;
  return { path: path === "$" ? ROOT_PATH : path.replace(/^\$\.?/, ""), message: `skills must be plain JSON, but this is ${problem}` };
}
