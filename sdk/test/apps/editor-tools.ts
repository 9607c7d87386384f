// Editor tools, as written against the original SDK: defineTool, a
// readonly tools array, named handlers typed by name, domain errors.
import { Pedelec, defineTool, type ToolCallContext, type ToolNameOf, type ToolSpecificHandler, type SkillsInput, type SerializableSkillsManifest, type ToolDefinition } from "@kaoruisaac/pedelec";

type Selection = { start: number; end: number; text: string };

export const getSelection = defineTool({
  name: "get_selection",
  description: "Read the current selection.",
  argsSchema: { type: "object", properties: {}, required: [] },
});

export const replaceSelection = defineTool({
  name: "replace_selection",
  description: "Replace the selected text.",
  argsSchema: {
    type: "object",
    properties: { text: { type: "string", minLength: 1, description: "The new text." } },
    required: ["text"],
  },
  timeoutMs: 10_000,
  handler: (args: { text: string }, ctx: ToolCallContext) => ({ replaced: args.text.length, turn: ctx.turnId }),
});

export const tools = [getSelection, replaceSelection] as const;
export type EditorTool = ToolNameOf<typeof tools>;

const handleGet: ToolSpecificHandler<unknown, Selection | { error: { code: string; message: string } }> = () => {
  const sel = document.getSelection();
  if (!sel || sel.isCollapsed) return { error: { code: "NO_SELECTION", message: "Select text first." } };
  return { start: sel.anchorOffset, end: sel.focusOffset, text: sel.toString() };
};

export async function connectEditor(pedelec: Pedelec) {
  const skills: SkillsInput<typeof tools> = { guidance: "Edit the document with these tools.", tools };
  const session = await pedelec.createSession({ provider: "claude", skills });
  const off = session.onTool("get_selection", handleGet);
  session.onTool((tool: EditorTool, args: unknown, ctx: ToolCallContext) => {
    console.warn("unhandled", tool, args, ctx.toolRequestId);
    return null;
  });
  return { session, off };
}

export function manifestOf(defs: readonly ToolDefinition[]): SerializableSkillsManifest {
  return { guidance: "", tools: defs.map(({ name, description, argsSchema, timeoutMs }) => ({ name, description, argsSchema, timeoutMs })) };
}

// A hand-built context for a handler test, as the original's types allow.
export const testContext: ToolCallContext = {
  type: "tool_call",
  toolRequestId: "req-1",
  tool: "replace_selection",
  turnId: "turn-1",
  turnStartedAt: 1,
  eventReceivedAt: 2,
  eventEmittedAt: 3,
  sessionId: "s-1",
  provider: "claude",
  sessionCreatedAt: 0,
  source: "core",
};
