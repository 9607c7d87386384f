// Type tests: `npm run typecheck` (tsc --noEmit) compiles this file, and
// every `@ts-expect-error` must be an error, so each line below proves a
// promise of the typed API. Nothing here runs.
import { Pedelec, defineTool, toManifest, type PedelecSession, type ToolArgsSchema, type ToolCallContext } from "../src/index.js";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const expectType = <T extends true>(_: T) => {};

declare const pedelec: Pedelec;
const noArgs = { type: "object", properties: {}, required: [] } satisfies ToolArgsSchema;

// defineTool keeps the literal name and infers handler types from the annotation.
const updateCounter = defineTool({
  name: "update_counter",
  description: "Increase or decrease the visible counter by a signed delta.",
  argsSchema: {
    type: "object",
    properties: { delta: { type: "integer", description: "Signed amount.", minimum: -100, maximum: 100 } },
    required: ["delta"],
  },
  timeoutMs: 10_000,
  handler: (args: { delta: number }) => ({ value: args.delta }),
});
expectType<Equal<typeof updateCounter.name, "update_counter">>(true);

const getCurrentPage = defineTool({
  name: "get_current_page",
  description: "Read the title and URL.",
  argsSchema: noArgs,
  handler: (_args, ctx) => {
    expectType<Equal<typeof ctx, ToolCallContext>>(true);
    expectType<Equal<typeof ctx.signal, AbortSignal | undefined>>(true);
    return { title: "t", observedForTurn: ctx.turnId };
  },
});

// Generics: argument and result types flow into the handler.
type ResizeArgs = { width: number; height: number };
type ResizeResult = { width: number; height: number };
defineTool<ResizeArgs, ResizeResult>({
  name: "resize_canvas",
  description: "Resize the current canvas.",
  argsSchema: noArgs,
  handler: (args) => {
    expectType<Equal<typeof args, ResizeArgs>>(true);
    return { width: args.width, height: args.height };
  },
});
defineTool<ResizeArgs, ResizeResult>({
  name: "resize_canvas",
  description: "Resize the current canvas.",
  argsSchema: noArgs,
  // @ts-expect-error the result must be a ResizeResult
  handler: (args) => ({ width: String(args.width) }),
});

// The root of argsSchema must be an object schema.
defineTool({
  name: "bad_root",
  description: "x",
  // @ts-expect-error root type must be "object"
  argsSchema: { type: "string" },
});

async function sessions() {
  const tools = [getCurrentPage, updateCounter] as const;
  const session = await pedelec.createSession({
    provider: "codex",
    skills: { guidance: "Use the declared tools for page operations.", tools },
  });

  // Named handlers: the tool name is narrowed to the declared literals.
  session.onTool("update_counter", async (args: { delta: number }, ctx) => {
    expectType<Equal<typeof ctx.toolRequestId, string>>(true);
    return { value: args.delta };
  });
  session.onTool("update_counter", (args) => {
    expectType<Equal<typeof args, { delta: number }>>(true);
    return { value: 1 };
  });
  // @ts-expect-error a misspelled tool name is a compile error
  session.onTool("update_countr", () => ({ value: 1 }));
  // A named handler may answer a domain error instead of the default shape.
  session.onTool("update_counter", () => ({ error: { code: "NOT_ALLOWED", message: "no" } }));
  // As in the original, a handler may annotate its own argument type (agent arguments are untrusted anyway).
  session.onTool("update_counter", (args: { delta: string }) => args.delta);

  // The fallback receives the union of names.
  const off = session.onTool((tool, args, ctx) => {
    expectType<Equal<typeof tool, "get_current_page" | "update_counter">>(true);
    expectType<Equal<typeof args, unknown>>(true);
    return { tool, at: ctx.eventReceivedAt };
  });
  off();

  // Without literal names (a widened array), any name is allowed.
  const wide: PedelecSession = await pedelec.resumeSession("s_123");
  wide.onTool("delete_document", async (args) => {
    const { documentId } = args as { documentId?: unknown };
    return typeof documentId === "string" ? { ok: true } : { error: { code: "INVALID_DOCUMENT_ID", message: "documentId must be a string." } };
  });

  const status: "idle" | "running" | "waiting_tool_result" | "ended" | "error" = session.getStatus();
  const detailed: "idle" | "running" | "waiting_tool_result" | "waiting_approval" | "ended" | "error" = session.getDetailedStatus();
  // @ts-expect-error getStatus() is the original's five; waiting_approval is the detailed status's
  const notFive: "waiting_approval" = session.getStatus();
  void detailed, notFive;
  session.onStatus((s, e) => {
    const source: "sdk" | "core" = e.source;
    void source;
    void s;
    void e.previousStatus;
  });
  const turn = await session.sendTurn("hi");
  expectType<Equal<typeof turn.text, string>>(true);
  void status;

  // toManifest strips handlers: the result has no handler field.
  const manifest = toManifest({ guidance: "g", tools });
  // @ts-expect-error handlers never appear in the manifest type
  void manifest.tools[0]?.handler;
}
void sessions;
