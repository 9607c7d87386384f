import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ERROR_CODES, PedelecError } from "../src/errors.js";

// The SDK's codes are Core's codes: read them out of runtime/wire/errors.go.
test("ERROR_CODES lists exactly the codes of runtime/wire/errors.go, in order", () => {
  const src = readFileSync(join(process.env.PEDELEC_SDK_ROOT!, "..", "runtime", "wire", "errors.go"), "utf8");
  const consts = new Map<string, string>();
  for (const m of src.matchAll(/^\s*(Code\w+)\s*=\s*"([A-Z_]+)"/gm)) consts.set(m[1]!, m[2]!);
  const list = /var Codes = \[\]string\{([\s\S]*?)\n\}/.exec(src)?.[1] ?? "";
  const go = [...list.matchAll(/Code\w+/g)].map((m) => consts.get(m[0]));
  assert.ok(go.length > 20, "found the Codes list");
  assert.deepEqual([...ERROR_CODES], go);
});

test("PedelecError keeps code, message and details and serializes to the wire shape", () => {
  const e = PedelecError.from({ code: "SESSION_BUSY", message: "busy", details: { turnId: "t" } });
  assert.ok(e instanceof Error);
  assert.equal(e.code, "SESSION_BUSY");
  assert.deepEqual(JSON.parse(JSON.stringify(e)), { code: "SESSION_BUSY", message: "busy", details: { turnId: "t" } });
});
