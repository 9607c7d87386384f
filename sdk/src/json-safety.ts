// Tool results and manifests must be plain JSON. JSON.stringify alone is not
// a check: it silently drops functions and undefined, turns NaN into null,
// calls toJSON on Dates, and throws on cycles and BigInt. The agent would
// then see something other than what the handler meant, or the SDK would
// crash. So every value is walked first and the first problem is named with
// its path, and only a value that passes is serialized.

import type { JsonValue } from "./types.js";

export type JsonProblem = {
  /** Where the bad value is, from `$` (the value itself): `$.items[2].node`. */
  path: string;
  /** What the value is and how to fix it, for a person. */
  problem: string;
};

export type JsonCheck = { ok: true; value: JsonValue } | { ok: false; problem: JsonProblem };

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function childPath(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return IDENT.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * Names a value no JSON conversion can send (a DOM node, a Promise, a
 * window): both the strict check and the original's conversion refuse it.
 */
function unsendable(value: object): string | null {
  if (typeof Node !== "undefined" && value instanceof Node) {
    return `a DOM node (${(value as Node).nodeName}); return the data you need from it (text, ids, attributes) instead`;
  }
  if (typeof Promise !== "undefined" && value instanceof Promise) {
    return "a Promise nested inside the result; await it before returning";
  }
  if (typeof Window !== "undefined" && value instanceof Window) return "a window object";
  return null;
}

/** Names a non-plain value and says how to convert it. */
function describe(value: object): string | null {
  const never = unsendable(value);
  if (never) return never;
  if (value instanceof Date) return "a Date; convert it explicitly, for example date.toISOString()";
  if (value instanceof Map) return "a Map; convert it explicitly, for example Object.fromEntries(map)";
  if (value instanceof Set) return "a Set; convert it explicitly, for example Array.from(set)";
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
    return "binary data (ArrayBuffer / typed array); convert it explicitly, for example Array.from(bytes)";
  }
  if (value instanceof RegExp) return "a RegExp; return its source string instead";
  if (value instanceof Error) return `an Error (${value.message}); return {error: {code, message}} or throw it`;
  return null;
}

/**
 * Checks that value is plain JSON and returns a clean copy of it.
 * Object properties whose value is undefined are left out, as JSON does;
 * anything else that JSON would silently change or drop is a problem.
 */
export function checkJson(value: unknown): JsonCheck {
  const ancestors: object[] = [];
  let problem: JsonProblem | null = null;

  const fail = (path: string, text: string): undefined => {
    problem ??= { path, problem: text };
    return undefined;
  };

  const walk = (v: unknown, path: string): JsonValue | undefined => {
    switch (typeof v) {
      case "string":
      case "boolean":
        return v;
      case "number":
        return Number.isFinite(v) ? v : fail(path, `${String(v)}, which JSON cannot represent; return a finite number or null`);
      case "bigint":
        return fail(path, "a BigInt; convert it explicitly, for example String(n) or Number(n)");
      case "undefined":
        return fail(path, "undefined; return null or leave the property out");
      case "function":
        return fail(path, `a function${v.name ? ` (${v.name})` : ""}; functions never leave the page`);
      case "symbol":
        return fail(path, "a symbol; return a string instead");
    }
    if (v === null) return null;
    const obj = v as object;
    if (ancestors.includes(obj)) {
      return fail(path, "a cycle: this value contains itself; return a copy without the back reference");
    }
    if (Array.isArray(obj)) {
      ancestors.push(obj);
      const out: JsonValue[] = [];
      for (let i = 0; i < obj.length && !problem; i++) {
        const item: unknown = obj[i];
        if (item === undefined) {
          fail(childPath(path, i), "undefined inside an array (JSON would turn it into null); use null");
          break;
        }
        const c = walk(item, childPath(path, i));
        if (c !== undefined) out.push(c);
      }
      ancestors.pop();
      return problem ? undefined : out;
    }
    const rich = describe(obj);
    if (rich) return fail(path, rich);
    const proto = Object.getPrototypeOf(obj);
    if (proto !== Object.prototype && proto !== null) {
      const name = (proto?.constructor as { name?: string } | undefined)?.name || "an unknown class";
      return fail(
        path,
        `an instance of ${name}; class instances can hide state, so return a plain object with the fields you mean`,
      );
    }
    ancestors.push(obj);
    const out: { [key: string]: JsonValue } = {};
    for (const key of Object.keys(obj)) {
      if (problem) break;
      let item: unknown;
      try {
        item = (obj as Record<string, unknown>)[key];
      } catch (err) {
        fail(childPath(path, key), `a getter that threw: ${err instanceof Error ? err.message : String(err)}`);
        break;
      }
      if (item === undefined) continue;
      const c = walk(item, childPath(path, key));
      if (c !== undefined) out[key] = c;
    }
    ancestors.pop();
    return problem ? undefined : out;
  };

  const clean = walk(value, "$");
  if (problem) return { ok: false, problem };
  return { ok: true, value: clean as JsonValue };
}

/**
 * A tool result as the original SDK sent it: converted the way
 * JSON.stringify converts (toJSON is called, so a Date is its ISO string;
 * NaN and Infinity become null; undefined properties are left out and
 * undefined array items become null; a class instance is its own
 * enumerable fields; a Map or a Set is {}), and refused only where the
 * original could not send it either: a BigInt or a cycle (JSON.stringify
 * throws), a function, a symbol, a DOM node, a Promise or a window (no
 * structured clone of them exists). A top-level undefined (a handler that
 * returns nothing) is null.
 */
export function toJsonResult(value: unknown): JsonCheck {
  const ancestors: object[] = [];
  let problem: JsonProblem | null = null;
  const fail = (path: string, text: string): undefined => {
    problem ??= { path, problem: text };
    return undefined;
  };
  const SKIP = Symbol("skip");

  const walk = (input: unknown, key: string, path: string): JsonValue | typeof SKIP | undefined => {
    let v = input;
    if ((typeof v === "object" && v !== null) || typeof v === "bigint") {
      const toJSON = (v as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === "function") {
        try {
          v = toJSON.call(v, key);
        } catch (err) {
          return fail(path, `a value whose toJSON() threw: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    }
    if (v instanceof Number || v instanceof String || v instanceof Boolean) v = v.valueOf();
    switch (typeof v) {
      case "string":
      case "boolean":
        return v;
      case "number":
        return Number.isFinite(v) ? v : null;
      case "bigint":
        return fail(path, "a BigInt, which JSON cannot hold; convert it explicitly, for example String(n) or Number(n)");
      case "undefined":
        return SKIP;
      case "function":
        return fail(path, `a function${v.name ? ` (${v.name})` : ""}; functions never leave the page`);
      case "symbol":
        return fail(path, "a symbol; return a string instead");
    }
    if (v === null) return null;
    const obj = v as object;
    const never = unsendable(obj);
    if (never) return fail(path, never);
    if (ancestors.includes(obj)) return fail(path, "a cycle: this value contains itself; return a copy without the back reference");
    ancestors.push(obj);
    try {
      if (Array.isArray(obj)) {
        const out: JsonValue[] = [];
        for (let i = 0; i < obj.length && !problem; i++) {
          const c = walk(obj[i], String(i), childPath(path, i));
          out.push(c === SKIP || c === undefined ? null : c);
        }
        return problem ? undefined : out;
      }
      const out: { [key: string]: JsonValue } = {};
      for (const k of Object.keys(obj)) {
        if (problem) break;
        let item: unknown;
        try {
          item = (obj as Record<string, unknown>)[k];
        } catch (err) {
          return fail(childPath(path, k), `a getter that threw: ${err instanceof Error ? err.message : String(err)}`);
        }
        const c = walk(item, k, childPath(path, k));
        if (c !== SKIP && c !== undefined) out[k] = c;
      }
      return problem ? undefined : out;
    } finally {
      ancestors.pop();
    }
  };

  const clean = walk(value, "", "$");
  if (problem) return { ok: false, problem };
  return { ok: true, value: clean === SKIP || clean === undefined ? null : clean };
}
