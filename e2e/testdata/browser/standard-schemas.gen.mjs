// Writes standard-schemas.json: argument schemas as Zod 4's z.toJSONSchema()
// and TypeBox write them, for the page of TestBrowserStandardSchemas. Run
// from the repository root after `npm ci --prefix sdk`:
//   node e2e/testdata/browser/standard-schemas.gen.mjs > e2e/testdata/browser/standard-schemas.json
import { createRequire } from "node:module";

const require = createRequire(new URL("../../../sdk/package.json", import.meta.url));
const { z } = require("zod");
const { Type } = require("@sinclair/typebox");

// Zod 4: a registered schema (meta id) becomes $defs and $ref.
const Address = z.object({ city: z.string().min(1), zip: z.string().regex(/^[0-9]{5}$/) }).meta({ id: "Address" });
const invite = z.object({
  email: z.email(),
  seats: z.number().int().positive(),
  contact: z.union([z.email(), z.number().int()]),
  address: Address,
  role: z.literal("editor"),
});

// TypeBox: Type.Ref to a schema with an $id, kept in $defs.
const Item = Type.Object({ sku: Type.String({ minLength: 3 }), qty: Type.Integer({ minimum: 1 }) }, { $id: "Item", additionalProperties: false });
const order = Type.Object(
  {
    item: Type.Ref("Item"),
    total: Type.Number({ exclusiveMinimum: 0 }),
    when: Type.String({ format: "date-time" }),
    pay: Type.Union([Type.Object({ card: Type.String() }, { additionalProperties: false }), Type.Object({ iban: Type.String() }, { additionalProperties: false })]),
  },
  { additionalProperties: false, $defs: { Item } },
);

process.stdout.write(JSON.stringify({ zod: { invite: z.toJSONSchema(invite) }, typebox: { order: JSON.parse(JSON.stringify(order)) } }, null, 2) + "\n");
