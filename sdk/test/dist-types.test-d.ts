// The same promises, checked against the built dist/pedelec.d.ts that users
// get, so the bundled declarations cannot drift from the source's.
import { Pedelec, defineTool } from "../dist/pedelec.js";

const a = defineTool({
  name: "update_counter",
  description: "Increase the counter.",
  argsSchema: { type: "object", properties: { delta: { type: "integer" } }, required: ["delta"] },
  handler: (args: { delta: number }) => ({ value: args.delta }),
});

async function check(pedelec: Pedelec) {
  const session = await pedelec.createSession({ skills: { guidance: "g", tools: [a] as const } });
  session.onTool("update_counter", (args) => ({ value: args.delta + 1 }));
  // @ts-expect-error a misspelled tool name is a compile error
  session.onTool("update_countr", () => ({ value: 1 }));
}
void check;
