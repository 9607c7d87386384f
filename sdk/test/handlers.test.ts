import assert from "node:assert/strict";
import { test } from "node:test";
import { HandlerRegistry } from "../src/handlers.js";
import { defineTool } from "../src/define-tool.js";
import type { ToolContext } from "../src/types.js";

const ctx = { tool: "update_counter" } as ToolContext;
const noArgs = { type: "object" as const, properties: {}, required: [] };

const withInline = () =>
  new HandlerRegistry([
    defineTool({ name: "update_counter", description: "d", argsSchema: noArgs, handler: () => ({ from: "inline" }) }),
    defineTool({ name: "no_inline", description: "d", argsSchema: noArgs }),
  ]);

test("priority: named, then inline, then fallback, then TOOL_HANDLER_NOT_FOUND", async () => {
  const r = withInline();
  const offNamed = r.setNamed("update_counter", () => ({ from: "named" }));
  const offFallback = r.setFallback((tool) => ({ from: "fallback", tool }));
  assert.deepEqual((await r.run("update_counter", {}, ctx)).result, { from: "named" });
  offNamed();
  assert.deepEqual((await r.run("update_counter", {}, ctx)).result, { from: "inline" });
  assert.deepEqual((await r.run("no_inline", {}, ctx)).result, { from: "fallback", tool: "no_inline" });
  offFallback();
  const missing = await r.run("no_inline", {}, ctx);
  assert.equal(missing.failure?.code, "TOOL_HANDLER_NOT_FOUND");
  assert.deepEqual(Object.keys(missing.result as object), ["error"]);
  assert.equal((missing.result as { error: { code: string } }).error.code, "TOOL_HANDLER_NOT_FOUND");
});

test("a disposer removes its registration only while it is still current", async () => {
  const r = withInline();
  const offFirst = r.setNamed("update_counter", () => "first");
  r.setNamed("update_counter", () => "second");
  offFirst();
  assert.equal((await r.run("update_counter", {}, ctx)).result, "second");

  const offA = r.setFallback(() => "A");
  r.setFallback(() => "B"); // replaces A: one fallback at a time
  assert.equal((await r.run("no_inline", {}, ctx)).result, "B");
  offA();
  assert.equal((await r.run("no_inline", {}, ctx)).result, "B");
});

test("sync and async handlers both work", async () => {
  const r = withInline();
  r.setNamed("sync", () => ({ value: 1 }));
  r.setNamed("async", async () => {
    await new Promise((res) => setTimeout(res, 5));
    return { value: 2 };
  });
  assert.deepEqual((await r.run("sync", {}, ctx)).result, { value: 1 });
  assert.deepEqual((await r.run("async", {}, ctx)).result, { value: 2 });
});

test("a throw becomes TOOL_HANDLER_ERROR with the error's message", async () => {
  const r = withInline();
  r.setNamed("save_document", async () => {
    throw new Error("Save failed with 500");
  });
  const out = await r.run("save_document", {}, ctx);
  assert.deepEqual(out.result, { error: { code: "TOOL_HANDLER_ERROR", message: "Save failed with 500" } });
});

test("a result is converted as JSON.stringify converts it, as the original (issue 23)", async () => {
  const r = withInline();
  class Point {
    constructor(readonly x: number, readonly y: number) {}
    toJSON() {
      return [this.x, this.y];
    }
  }
  class Plain {
    a = 1;
    b = undefined;
  }
  const value = { savedAt: new Date(0), at: new Point(1, 2), plain: new Plain(), nan: NaN, list: [undefined, 1], map: new Map([["k", 1]]), skipped: undefined };
  r.setNamed("rich", () => value);
  assert.deepEqual((await r.run("rich", {}, ctx)).result, JSON.parse(JSON.stringify(value)));
  r.setNamed("undef", () => undefined);
  assert.equal((await r.run("undef", {}, ctx)).result, null);
});

test("a result JSON.stringify (or the original's clone) cannot send is TOOL_RESULT_INVALID naming the path", async () => {
  const r = withInline();
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  for (const [name, value, path] of [
    ["big", { n: 1n }, "$.n"],
    ["cycle", { c: cyclic }, "$.c.self"],
    ["fn", { f: () => 1 }, "$.f"],
    ["sym", [Symbol("s")], "$[0]"],
  ] as const) {
    r.setNamed(name, () => value);
    const out = await r.run(name, {}, ctx);
    const err = (out.result as { error: { code: string; details: { path: string } } }).error;
    assert.equal(err.code, "TOOL_RESULT_INVALID", name);
    assert.equal(err.details.path, path, name);
    assert.equal(out.failure?.code, "TOOL_RESULT_INVALID");
  }
});

test("a domain error result is a normal result", async () => {
  const r = withInline();
  const domain = { error: { code: "NO_SELECTION", message: "There is no active editor selection.", details: { documentId: "d1" } } };
  r.setNamed("replace", () => domain);
  const out = await r.run("replace", {}, ctx);
  assert.deepEqual(out.result, domain);
  assert.equal(out.failure, undefined);
});
