import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { validateManifest } from "../src/validate.js";
import { checkedManifest } from "../src/manifest.js";
import { PedelecError } from "../src/errors.js";

// Core's golden cases: every <case>.json is a skills object, every
// <case>.golden.json the exact problems Core reports. The SDK must report
// the same, message for message.
const dir = join(process.env.PEDELEC_SDK_ROOT!, "..", "schema", "testdata", "definitions");

/**
 * Cases whose JSON text holds what a page can never send (repeated keys,
 * numbers JSON.parse rounds, number spellings JSON.stringify rewrites):
 * only Core reads text, so only Core can report them.
 */
function pageCannotSend(text: string): boolean {
  const tokens = text.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const numbers = tokens.match(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g) ?? [];
  if (numbers.some((n) => JSON.stringify(Number(n)) !== n)) return true;
  const parsed = JSON.parse(text);
  return JSON.stringify(parsed).length !== JSON.stringify(JSON.parse(JSON.stringify(parsed))).length || hasDuplicateKeys(text);
}

function hasDuplicateKeys(text: string): boolean {
  let dup = false;
  JSON.parse(text, function (this: Record<string, unknown>, _k, v) {
    return v;
  });
  // A cheap scan: the same "key": twice at one nesting level.
  const stack: Set<string>[] = [];
  const re = /"((?:[^"\\]|\\.)*)"\s*:|[{}]/g;
  for (const m of text.matchAll(re)) {
    if (m[0] === "{") stack.push(new Set());
    else if (m[0] === "}") stack.pop();
    else {
      const top = stack[stack.length - 1];
      if (top?.has(m[1]!)) dup = true;
      top?.add(m[1]!);
    }
  }
  return dup;
}

const cases = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".json") && !f.endsWith(".golden.json")).sort() : [];

test("Core's golden definition cases are present", () => {
  assert.ok(cases.length > 50, `expected golden cases in ${dir}`);
});

for (const file of cases) {
  const name = file.replace(/\.json$/, "");
  const text = readFileSync(join(dir, file), "utf8");
  const skip = !name.startsWith("valid_") && pageCannotSend(text) ? "holds JSON text a page cannot send (Core-only case)" : false;
  test(`golden ${name}`, { skip }, () => {
    const want = JSON.parse(readFileSync(join(dir, `${name}.golden.json`), "utf8"));
    assert.deepEqual(validateManifest(JSON.parse(text)), want);
  });
}

test("createSession's check strips function handlers and reports like Core", () => {
  const ok = checkedManifest({
    guidance: "g",
    tools: [{ name: "a", description: "A.", argsSchema: { type: "object" }, handler: () => 1 }],
  });
  assert.deepEqual(ok, { guidance: "g", tools: [{ name: "a", description: "A.", argsSchema: { type: "object" } }] });
  assert.throws(
    () => checkedManifest({ guidance: "g", tools: [{ name: "a b", description: " ", argsSchema: { type: "object" } }] }),
    (e: PedelecError) =>
      e.code === "INVALID_INPUT" &&
      e.message.startsWith("2 problems in the tool definitions: tools[0].name: name \"a b\" contains \" \"") &&
      (e.details as { problems: unknown[] }).problems.length === 2,
  );
  assert.throws(
    () => checkedManifest({ guidance: "g", tools: [{ name: "a", description: "A.", argsSchema: { type: "object", default: () => 1 } }] }),
    (e: PedelecError) => e.code === "INVALID_INPUT" && /tools\[0\]\.argsSchema\.default: skills must be plain JSON, but this is a function/.test(e.message),
  );
});

test("asksConsent is Core's consent rule", async () => {
  const { asksConsent } = await import("../src/define-tool.js");
  assert.equal(asksConsent({}), false);
  assert.equal(asksConsent({ needsApproval: true }), true);
  assert.equal(asksConsent({ needsApproval: false, annotations: { destructiveHint: true } }), true);
  assert.equal(asksConsent({ annotations: { consequentialHint: true } }), true);
  assert.equal(asksConsent({ annotations: { readOnlyHint: true, destructiveHint: true } }), true);
  assert.equal(asksConsent({ annotations: { readOnlyHint: true } }), false);
  assert.equal(asksConsent({ needsApproval: true, annotations: { readOnlyHint: true } }), true);
  assert.equal(asksConsent({ annotations: { idempotentHint: true, openWorldHint: true, untrustedContentHint: true } }), false);
});
