import assert from "node:assert/strict";
import { test } from "node:test";
import { checkJson } from "../src/json-safety.js";

const bad = (v: unknown) => {
  const r = checkJson(v);
  assert.equal(r.ok, false, `expected a problem for ${String(v)}`);
  return (r as { ok: false; problem: { path: string; problem: string } }).problem;
};

test("plain JSON passes and is copied", () => {
  const v = { ok: true, updatedCount: 4, affectedIds: ["a", "b"], nested: { n: null, f: 1.5 } };
  const r = checkJson(v);
  assert.deepEqual(r, { ok: true, value: v });
  assert.notEqual((r as { value: unknown }).value, v);
  assert.deepEqual(checkJson(Object.create(null)), { ok: true, value: {} });
});

test("undefined properties are left out, as JSON does", () => {
  assert.deepEqual(checkJson({ a: 1, b: undefined }), { ok: true, value: { a: 1 } });
});

test("each kind of non-JSON value is named with its path", () => {
  const cases: [unknown, string, RegExp][] = [
    [undefined, "$", /undefined/],
    [() => 1, "$", /a function/],
    [{ a: { b: () => 1 } }, "$.a.b", /function/],
    [{ n: NaN }, "$.n", /NaN/],
    [{ n: Infinity }, "$.n", /Infinity/],
    [{ big: 10n }, "$.big", /BigInt/],
    [{ s: Symbol("x") }, "$.s", /symbol/],
    [{ d: new Date(0) }, "$.d", /Date.*toISOString/],
    [{ m: new Map() }, "$.m", /Map/],
    [{ s: new Set([1]) }, "$.s", /Set/],
    [{ bytes: new Uint8Array(2) }, "$.bytes", /Array\.from/],
    [{ list: [1, undefined] }, "$.list[1]", /undefined inside an array/],
    [{ "odd key": { x: new (class Store {})() } }, '$["odd key"].x', /instance of Store/],
  ];
  for (const [value, path, pattern] of cases) {
    const p = bad(value);
    assert.equal(p.path, path);
    assert.match(p.problem, pattern);
  }
});

test("cycles are reported, shared references are fine", () => {
  const a: Record<string, unknown> = { name: "a" };
  a.self = a;
  const p = bad({ root: a });
  assert.equal(p.path, "$.root.self");
  assert.match(p.problem, /cycle/);
  const shared = { x: 1 };
  assert.equal(checkJson({ one: shared, two: shared }).ok, true);
});

test("a getter that throws is a problem, not a crash", () => {
  const v = {
    get boom() {
      throw new Error("nope");
    },
  };
  const p = bad(v);
  assert.equal(p.path, "$.boom");
  assert.match(p.problem, /nope/);
});
