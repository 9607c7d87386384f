// The seeds' TypeScript examples (shared/seeds/*.txt), as written, compiled
// by `npm run typecheck` against the SDK's types. The browser tests
// (e2e/browser_seed_*_test.go) run the same code without its annotations.
// Only what the examples take for granted from the app is declared here.
import { Pedelec, defineTool, type SkillsInput, type ToolArgsSchema, type ToolDefinition } from "../src/index.js";

declare const pedelec: Pedelec;
declare const counter: { value: number };
declare const canvas: { resize(width: number, height: number): { width: number; height: number } };
declare const counterStore: { add(delta: number): Promise<number> };
declare const store: { value: number };
declare const api: { save(args: unknown): Promise<{ id: string; savedAt: string }> };
declare function save(args: unknown): Promise<{ ok: boolean; status: number; data: unknown }>;
declare function canDeleteDocument(id: string): boolean;
declare function deleteDocument(id: string): { deleted: string };
declare function invalidArgs(message: string): { error: { code: string; message: string } };
declare const handleA: () => unknown, handleB: () => unknown, handleFallback: () => unknown;
declare const date: Date, uint8Array: Uint8Array, selection: { start: number; end: number };
declare const documentId: string;

// ---- overview ----

const getCurrentPage = defineTool({
  name: "get_current_page",
  description: "Read the title, URL, and selected text of the current browser page.",
  argsSchema: {
    type: "object",
    properties: {},
    required: [],
  },
  handler: (_args, ctx) => ({
    title: document.title,
    url: location.href,
    selectedText: window.getSelection()?.toString() ?? "",
    observedForTurn: ctx.turnId,
  }),
});

type Skills = SkillsInput<readonly ToolDefinition[]>;
void (null as unknown as Skills);

async function overview() {
  const session = await pedelec.createSession({
    provider: "codex",
    skills: {
      guidance: "Call get_current_page instead of guessing page state.",
      tools: [getCurrentPage],
    },
  });

  const wide = await pedelec.resumeSession("s_1");
  wide.onTool("delete_document", async (args) => {
    const { documentId } = args as { documentId?: unknown };

    if (typeof documentId !== "string") {
      return {
        error: {
          code: "INVALID_DOCUMENT_ID",
          message: "documentId must be a string.",
        },
      };
    }

    if (!canDeleteDocument(documentId)) {
      return {
        error: {
          code: "NOT_ALLOWED",
          message: "The current user cannot delete this document.",
        },
      };
    }

    return deleteDocument(documentId);
  });
  void session;
}

// ---- defining tools ----

const updateCounter = defineTool({
  name: "update_counter",
  description: "Increase or decrease the visible counter by a signed delta.",
  argsSchema: {
    type: "object",
    properties: {
      delta: {
        type: "integer",
        description: "Signed amount to add to the counter.",
        minimum: -100,
        maximum: 100,
      },
    },
    required: ["delta"],
  },
  timeoutMs: 10_000,
  handler: (args: { delta: number }) => {
    counter.value += args.delta;
    return { value: counter.value };
  },
});

const noArgs = {
  type: "object",
  properties: {},
  required: [],
} satisfies ToolArgsSchema;

const argsSchema = {
  type: "object",
  properties: {
    documentId: {
      type: "string",
      description: "Application document identifier.",
      minLength: 1,
    },
    mode: {
      type: "string",
      enum: ["append", "replace"],
    },
  },
  required: ["documentId", "mode"],
} satisfies ToolArgsSchema;
void argsSchema;

const readSelection = defineTool({
  name: "get_selected_text",
  description: "Read the text currently selected in the page.",
  argsSchema: noArgs,
  handler: () => ({
    text: window.getSelection()?.toString() ?? "",
  }),
});
void readSelection;

defineTool({
  name: "resize_canvas",
  description: "Resize the current canvas.",
  argsSchema: {
    type: "object",
    properties: {
      width: { type: "integer", minimum: 1 },
      height: { type: "integer", minimum: 1 },
    },
    required: ["width", "height"],
  },
  handler: (args: { width: number; height: number }) => {
    canvas.resize(args.width, args.height);
    return { width: args.width, height: args.height };
  },
});

type ResizeArgs = { width: number; height: number };
type ResizeResult = { width: number; height: number };
declare const resizeSchema: ToolArgsSchema;

const resize = defineTool<ResizeArgs, ResizeResult>({
  name: "resize_canvas",
  description: "Resize the current canvas.",
  argsSchema: resizeSchema,
  handler: (args) => canvas.resize(args.width, args.height),
});
void resize;

const createCard = defineTool({
  name: "create_card",
  description: "Create a card in the active board column.",
  argsSchema: {
    type: "object",
    properties: {
      card: {
        type: "object",
        properties: {
          title: { type: "string", minLength: 1, maxLength: 120 },
          labels: {
            type: "array",
            items: { type: "string" },
            maxItems: 10,
            uniqueItems: true,
          },
        },
        required: ["title"],
      },
    },
    required: ["card"],
  },
});
void createCard;

async function literals(handleCounter: (args: { delta: number }) => { value: number }) {
  const tools = [getCurrentPage, updateCounter] as const;

  const session = await pedelec.createSession({
    provider: "codex",
    skills: {
      guidance: "Use the declared tools for page operations.",
      tools,
    },
  });

  session.onTool("update_counter", handleCounter);
  // A misspelled literal can be rejected by TypeScript for this session type.
  // @ts-expect-error "update_countr" is not a declared tool
  session.onTool("update_countr", handleCounter);
}

// ---- handlers ----

async function handlers() {
  const session = await pedelec.createSession({
    skills: {
      guidance: "g",
      tools: [
        updateCounter,
        getCurrentPage,
        { name: "read_value", description: "d", argsSchema: noArgs },
        { name: "save_document", description: "d", argsSchema: noArgs },
        { name: "tool_a", description: "d", argsSchema: noArgs },
        { name: "tool_b", description: "d", argsSchema: noArgs },
      ],
    },
  });

  const offUpdateCounter = session.onTool(
    "update_counter",
    async (args: { delta: number }, ctx) => {
      console.debug(ctx.toolRequestId, ctx.turnId);
      const value = await counterStore.add(args.delta);
      return { value };
    },
  );

  const offFallback = session.onTool(async (tool, args, ctx) => {
    switch (tool) {
      case "get_current_page":
        return { title: document.title, url: location.href };
      default:
        return {
          error: {
            code: "UNSUPPORTED_TOOL",
            message: `No application handler for ${tool}`,
          },
        };
    }
  });

  session.onTool("read_value", () => ({ value: store.value }));

  session.onTool("save_document", async (args) => {
    const result = await api.save(args);
    return { id: result.id, savedAt: result.savedAt };
  });

  session.onTool("save_document", async (args) => {
    const response = await save(args);
    if (!response.ok) {
      throw new Error(`Save failed with ${response.status}`);
    }
    return response.data;
  });

  session.onTool("read_value", () => {
    return {
      savedAt: date.toISOString(),
      bytes: Array.from(uint8Array),
      selection: {
        start: selection.start,
        end: selection.end,
      },
    };
  });

  session.onTool("read_value", () => {
    return {
      error: {
        code: "NO_SELECTION",
        message: "There is no active editor selection.",
        details: { documentId },
      },
    };
  });

  const disposers = [
    session.onTool("tool_a", handleA),
    session.onTool("tool_b", handleB),
    session.onTool(handleFallback),
  ];

  function cleanup() {
    for (const dispose of disposers) dispose();
  }

  session.onTool("update_counter", (args: { delta: number }) => {
    // The annotation improves authoring, but runtime args still came from an agent.
    if (!Number.isFinite(args.delta)) {
      return invalidArgs("delta must be finite");
    }
    return counterStore.add(args.delta);
  });

  offUpdateCounter();
  offFallback();
  cleanup();
}
void overview;
void literals;
void handlers;
