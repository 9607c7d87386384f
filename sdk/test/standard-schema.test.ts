import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { Type } from "@sinclair/typebox";
import { defineTool } from "../src/define-tool.js";
import { checkedManifest, toManifest } from "../src/manifest.js";
import { isStandardSchema } from "../src/standard-schema.js";
import { PedelecError } from "../src/errors.js";

test("defineTool turns a Zod 4 schema into its JSON Schema, through ~standard.jsonSchema", () => {
  const schema = z.object({ email: z.email(), seats: z.number().positive() });
  const def = defineTool({ name: "invite", description: "Invite.", inputSchema: schema, handler: (a) => a.email });
  assert.equal(isStandardSchema(def.inputSchema), false);
  const { "~standard": _std, ...json } = schema["~standard"].jsonSchema.input({ target: "draft-2020-12" });
  assert.deepEqual(def.inputSchema, json);
  assert.equal(JSON.stringify(def.inputSchema).includes("~standard"), false);
  assert.equal((def.inputSchema as { type?: unknown }).type, "object");
  assert.equal(typeof def.handler, "function");
});

test("toManifest converts a Standard Schema written without defineTool, and sends TypeBox's schema as JSON", () => {
  const manifest = toManifest({
    guidance: "",
    tools: [
      { name: "a", description: "A.", inputSchema: z.object({ n: z.int() }) as never },
      { name: "b", description: "B.", inputSchema: Type.Object({ q: Type.String() }, { additionalProperties: false }) },
    ],
  });
  const [a, b] = manifest.tools as { inputSchema: Record<string, unknown> }[];
  assert.equal((a!.inputSchema.properties as { n: { type: string } }).n.type, "integer");
  assert.deepEqual(b!.inputSchema, { type: "object", properties: { q: { type: "string" } }, required: ["q"], additionalProperties: false });
});

test("a Standard Schema without a JSON Schema export is refused with the way out", () => {
  const bare = { "~standard": { version: 1, vendor: "acme", validate: () => ({ value: 1 }) } };
  assert.throws(
    () => defineTool({ name: "x", description: "X.", inputSchema: bare as unknown as z.ZodObject }),
    (err: unknown) => err instanceof PedelecError && err.code === "INVALID_INPUT" && /acme without a JSON Schema export/.test(err.message),
  );
});

test("the page checks an inputSchema's root and leaves every keyword to Core", () => {
  assert.doesNotThrow(() =>
    checkedManifest({ guidance: "", tools: [{ name: "x", description: "X.", inputSchema: { type: "object", additionalProperties: false, properties: { a: { anyOf: [{ type: "string" }, { type: "null" }] } } } }] }),
  );
  assert.throws(
    () => checkedManifest({ guidance: "", tools: [{ name: "x", description: "X.", inputSchema: { type: "string" } }] }),
    /tools\[0\]\.inputSchema\.type: the inputSchema root must have "type": "object"/,
  );
  assert.throws(
    () => checkedManifest({ guidance: "", tools: [{ name: "x", description: "X.", argsSchema: { type: "object" }, inputSchema: { type: "object" } }] }),
    /argsSchema or inputSchema, not both/,
  );
});
