import assert from "node:assert/strict";
import { test } from "node:test";
import { HandlerRegistry } from "../src/handlers.js";
import { refuse, ToolRefusal } from "../src/refuse.js";
import { PedelecError } from "../src/errors.js";
import type { ToolContext } from "../src/types.js";

const ctx = { tool: "buy" } as ToolContext;

test("a handler that throws refuse() gives a refusal, not a result or a failure", async () => {
  const r = new HandlerRegistry();
  r.setNamed("buy", () => {
    throw refuse({ code: "OUT_OF_STOCK", message: "Item 42 is sold out", retryable: false });
  });
  const out = await r.run("buy", {}, ctx);
  assert.deepEqual(out.refusal, { code: "OUT_OF_STOCK", message: "Item 42 is sold out", retryable: false });
  assert.equal(out.failure, undefined);

  r.setNamed("buy", async () => {
    throw refuse({ code: "BUSY", message: "Another payment runs" }); // retryable defaults to false
  });
  assert.deepEqual((await r.run("buy", {}, ctx)).refusal, { code: "BUSY", message: "Another payment runs", retryable: false });
});

test("refuse() checks what it is given, where it is written", () => {
  assert.ok(refuse({ code: "NOT_SIGNED_IN", message: "Sign in first", retryable: true }) instanceof ToolRefusal);
  for (const bad of [
    { code: "out_of_stock", message: "m" },
    { code: "", message: "m" },
    { code: "X", message: "  " },
    { code: "X", message: "m", retryable: "yes" },
  ]) {
    assert.throws(() => refuse(bad as never), (e: unknown) => e instanceof PedelecError && e.code === "INVALID_INPUT", JSON.stringify(bad));
  }
});
