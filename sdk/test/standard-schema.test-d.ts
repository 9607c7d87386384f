// defineTool with a Standard Schema object: the handler's arguments are
// typed from the schema (Zod 4 here; any "~standard" implementation fits).
import { z } from "zod";
import { Type } from "@sinclair/typebox";
import { defineTool, type InputSchemaToolDefinition, type ToolArgs } from "../src/index.js";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(_: T) {}

const invite = defineTool({
  name: "invite",
  description: "Invite someone by e-mail.",
  inputSchema: z.object({ email: z.email(), seats: z.number().int().positive(), note: z.string().optional() }),
  handler: (args) => {
    expectType<Equal<typeof args.email, string>>(true);
    expectType<Equal<typeof args.seats, number>>(true);
    expectType<Equal<typeof args.note, string | undefined>>(true);
    // @ts-expect-error no such argument
    void args.missing;
    return { invited: args.email };
  },
});
expectType<Equal<typeof invite.name, "invite">>(true);
const tools = [invite] as const;
expectType<Equal<ToolArgs<typeof tools, "invite">, { email: string; seats: number; note?: string | undefined }>>(true);
const asDefinition: InputSchemaToolDefinition = invite;
void asDefinition;

// A plain JSON Schema (TypeBox's objects are plain JSON Schema) as inputSchema.
const box = defineTool({
  name: "search",
  description: "Search.",
  inputSchema: Type.Object({ q: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  handler: (args: { q: string }) => args.q.length,
});
expectType<Equal<typeof box, InputSchemaToolDefinition<{ q: string }, number, "search">>>(true);

defineTool({
  name: "both",
  description: "x",
  // @ts-expect-error argsSchema or inputSchema, not both
  argsSchema: { type: "object" },
  inputSchema: z.object({}),
});
