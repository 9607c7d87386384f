// The definition rules of an inputSchema that the page can check without a
// JSON Schema library: a port of Go's schema/standard_rules.go (and the
// keyword tables of schema/standard_dialect.go). What the validator cannot
// compile (a keyword's value of the wrong type, a $ref to a place that is
// not there) only Core finds; it answers createSession with INVALID_INPUT.
// The messages are the contract: the unit tests replay Core's golden cases.

import type { JsonValue } from "./types.js";

type Obj = { [key: string]: JsonValue };
type Dialect = { name: string; keywords: ReadonlySet<string>; draft07: boolean };

const DRAFT_2020_URL = "https://json-schema.org/draft/2020-12/schema";
const DRAFT_07_URL = "http://json-schema.org/draft-07/schema#";
const ACCEPTED_SCHEMAS = `"${DRAFT_2020_URL}" (the default when $schema is absent) or "${DRAFT_07_URL}"`;
/** The address a schema is read at; it names no real document (Go's standardBase). */
const BASE = "https://pedelec.invalid/schema.json";
const MAX_DEPTH = 32;

const DRAFT_2020: Dialect = {
  name: "draft 2020-12",
  draft07: false,
  keywords: new Set([
    "$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment", "$defs",
    "prefixItems", "items", "contains", "additionalProperties", "properties", "patternProperties",
    "dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf", "not",
    "unevaluatedItems", "unevaluatedProperties",
    "type", "const", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
    "maxProperties", "minProperties", "required", "dependentRequired",
    "title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples",
    "format", "contentEncoding", "contentMediaType", "contentSchema",
    "definitions", "dependencies",
  ]),
};

const DRAFT_07: Dialect = {
  name: "draft-07",
  draft07: true,
  keywords: new Set([
    "$schema", "$id", "$ref", "$comment", "definitions",
    "title", "description", "default", "readOnly", "writeOnly", "examples",
    "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
    "maxLength", "minLength", "pattern", "additionalItems", "items", "maxItems", "minItems", "uniqueItems", "contains",
    "maxProperties", "minProperties", "required", "additionalProperties", "properties", "patternProperties",
    "dependencies", "propertyNames", "const", "enum", "type", "format",
    "contentMediaType", "contentEncoding", "if", "then", "else", "allOf", "anyOf", "oneOf", "not",
  ]),
};

const BESIDE_07_REF = new Set(["$ref", "$schema", "$comment", "definitions", "title", "description", "default", "examples", "readOnly", "writeOnly"]);
const ONE_SUBSCHEMA = new Set(["not", "if", "then", "else", "contains", "additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "additionalItems", "items"]);
const SUBSCHEMA_ARRAY = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const SUBSCHEMA_MAP = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"]);
const KNOWN_FORMATS = [
  "date-time", "date", "time", "duration", "period", "email", "hostname", "ipv4", "ipv6", "uri", "uri-reference",
  "iri", "iri-reference", "uri-template", "uuid", "json-pointer", "relative-json-pointer", "regex", "semver",
];

const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** How the rules word values and paths (validate.ts's, passed in to keep one copy). */
export type Wording = {
  add(path: string, message: string): void;
  key(path: string, k: string): string;
  index(path: string, i: number): string;
  describe(v: JsonValue | undefined): string;
  quoteShort(s: string): string;
};

function dialectOf(s: string): Dialect | undefined {
  const u = s.replace(/#$/, "").replace(/^https?:\/\//, "");
  if (u === "json-schema.org/draft/2020-12/schema") return DRAFT_2020;
  if (u === "json-schema.org/draft-07/schema") return DRAFT_07;
  return undefined;
}

/** The document a reference leads to, or undefined when it is not a URI reference. */
function resolve(base: string, ref: string): string | undefined {
  try {
    const u = new URL(ref, base);
    u.hash = "";
    return u.href;
  } catch {
    return undefined;
  }
}

/** Checks a schema in the standard dialects (Go's checker.standardSchema). */
export function checkStandardSchema(w: Wording, v: JsonValue, p: string, field: string, why: string): void {
  if (!isObject(v)) {
    w.add(p, `${field} must be a JSON Schema object such as {"type": "object", "properties": {...}}; got ${w.describe(v)}`);
    return;
  }
  if (!has(v, "type")) w.add(w.key(p, "type"), `the ${field} root must have "type": "object" (${why}); add it`);
  else if (v.type !== "object") w.add(w.key(p, "type"), `the ${field} root must have "type": "object" (${why}); got ${w.describe(v.type)}`);
  let d = DRAFT_2020;
  if (has(v, "$schema")) {
    const s = v.$schema;
    const known = typeof s === "string" ? dialectOf(s) : undefined;
    if (!known) {
      w.add(w.key(p, "$schema"), `$schema must name a dialect Core validates: ${ACCEPTED_SCHEMAS}; got ${w.describe(s)}`);
      return;
    }
    d = known;
  }
  const ids = new Set([BASE]);
  walk(w, d, ids, v, p, BASE, 0, true);
  walk(w, d, ids, v, p, BASE, 0, false);
}

function walk(w: Wording, d: Dialect, ids: Set<string>, v: JsonValue, p: string, base: string, depth: number, collect: boolean): void {
  if (typeof v === "boolean") return;
  if (!isObject(v)) {
    if (!collect) w.add(p, `a schema must be an object or true or false; got ${w.describe(v)}`);
    return;
  }
  if (depth > MAX_DEPTH) {
    if (!collect) w.add(p, `schemas nested more than ${MAX_DEPTH} levels deep are not supported; flatten the arguments`);
    return;
  }
  const id = v.$id;
  if (typeof id === "string" && !(d.draft07 && id.startsWith("#"))) {
    const u = resolve(base, id);
    if (u !== undefined) {
      base = u;
      ids.add(u);
    }
  }
  const hasRef = has(v, "$ref");
  for (const k of Object.keys(v)) {
    const val = v[k] as JsonValue;
    const kp = w.key(p, k);
    if (!collect && !keyword(w, d, ids, v, k, val, kp, base, hasRef)) continue;
    if (ONE_SUBSCHEMA.has(k)) {
      if (k === "items" && Array.isArray(val) && d.draft07) val.forEach((e, i) => walk(w, d, ids, e, w.index(kp, i), base, depth + 1, collect));
      else walk(w, d, ids, val, kp, base, depth + 1, collect);
    } else if (SUBSCHEMA_ARRAY.has(k)) {
      if (Array.isArray(val)) val.forEach((e, i) => walk(w, d, ids, e, w.index(kp, i), base, depth + 1, collect));
    } else if (SUBSCHEMA_MAP.has(k) && isObject(val)) {
      for (const name of Object.keys(val)) {
        const e = val[name] as JsonValue;
        if (k === "dependencies" && Array.isArray(e)) continue; // names, not a schema
        walk(w, d, ids, e, w.key(kp, name), base, depth + 1, collect);
      }
    }
  }
}

function keyword(w: Wording, d: Dialect, ids: Set<string>, n: Obj, k: string, val: JsonValue, kp: string, base: string, hasRef: boolean): boolean {
  if (!d.keywords.has(k)) {
    w.add(kp, `${w.quoteShort(k)} is not a keyword of JSON Schema ${d.name}, so nothing would check it; remove it (notes belong in "description" or "$comment")`);
    return false;
  }
  if (hasRef && d.draft07 && !BESIDE_07_REF.has(k)) {
    w.add(kp, `draft-07 ignores every keyword beside "$ref", so ${k} would not be checked; put the $ref and ${k} in an "allOf", or use draft 2020-12 (leave "$schema" out)`);
    return false;
  }
  const checked = has(n, "pattern");
  switch (k) {
    case "$ref":
    case "$dynamicRef": {
      if (typeof val !== "string") return true;
      const u = resolve(base, val);
      if (u !== undefined && !ids.has(u)) {
        w.add(kp, `${k} ${w.quoteShort(val)} refers outside this schema, and Core never fetches schemas; copy the definition into "$defs" and refer to it as "#/$defs/Name"`);
        return false;
      }
      return true; // a reference that is no URI: Core says so
    }
    case "format":
      if (typeof val === "string" && !KNOWN_FORMATS.includes(val) && !checked) {
        w.add(kp, `format ${w.quoteShort(val)} is not one Core checks, so it would be ignored; use one of ${KNOWN_FORMATS.join(", ")}, or add a "pattern" that checks it`);
        return false;
      }
      return true;
    case "contentEncoding":
      if (typeof val === "string" && val !== "base64" && !checked) {
        w.add(kp, `contentEncoding ${w.quoteShort(val)} is not one Core decodes, so it would be ignored; use "base64", add a "pattern" that checks it, or remove it`);
        return false;
      }
      return true;
    case "contentMediaType":
      if (typeof val === "string" && val !== "application/json") {
        w.add(kp, `contentMediaType ${w.quoteShort(val)} is not one Core checks, so it would be ignored; use "application/json", or remove it`);
        return false;
      }
      return true;
  }
  return true;
}
