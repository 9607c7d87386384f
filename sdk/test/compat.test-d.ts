// Type test of the original Pedelec SDK's documented API (v0.1.23
// reference: pedelec, pedelec-session, types, tools): every class,
// method, overload and exported type name, used as its pages show, and
// `@ts-expect-error` wherever the original's types forbid a call. Compiled
// by `npm run typecheck`; nothing here runs.
import {
  Pedelec,
  PedelecSession,
  defineTool,
  type ApprovalStatus,
  type ChatEventContext,
  type CreateSessionInput,
  type EndedEventContext,
  type ErrorEventContext,
  type JsonPrimitive,
  type JsonValue,
  type PedelecAvailability,
  type PedelecError,
  type AnyProviderCode,
  type PedelecEventContext,
  type PedelecOptions,
  type PedelecSessionStatus,
  type PedelecSettings,
  type ProviderCode,
  type ProviderInfo,
  type ReadAssetType,
  type SandboxAsset,
  type SandboxAssetPath,
  type SerializableSkillsManifest,
  type SerializableToolManifest,
  type SkillsInput,
  type StatusEventContext,
  type ToolArgsArraySchema,
  type ToolArgsBooleanSchema,
  type ToolArgsIntegerSchema,
  type ToolArgsNumberSchema,
  type ToolArgsObjectSchema,
  type ToolArgsOneOfSchema,
  type ToolArgsSchema,
  type ToolArgsSchemaMeta,
  type ToolArgsSchemaNode,
  type ToolArgsStringSchema,
  type ToolCallContext,
  type ToolDefinition,
  type ToolNameOf,
  type ToolSpecificHandler,
} from "../src/index.js";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const expectType = <T extends true>(_: T) => {};
declare const file: File;
declare function renderStatus(status: PedelecSessionStatus): void;

// ---- Pedelec: constructor and options ----
new Pedelec();
new Pedelec({});
new Pedelec({ bridgeTimeoutMs: 30_000 });
new Pedelec({ url: "http://127.0.0.1:7077" }); // ours, added to the original's options
// @ts-expect-error bridgeTimeoutMs is a number
new Pedelec({ bridgeTimeoutMs: "30s" });
const options: PedelecOptions = { bridgeTimeoutMs: 1 };
void options;

const codes: ProviderCode[] = ["codex", "antigravity", "opencode", "cursor", "claude", "ollama"];
void codes;
// Exactly the original's six (issue 23): a Record over them and an
// exhaustive switch compile; Core's own providers are AnyProviderCode.
const labels: Record<ProviderCode, string> = { codex: "C", antigravity: "A", opencode: "O", cursor: "Cu", claude: "Cl", ollama: "Ol" };
void labels;
function exhaustive(code: ProviderCode): number {
  switch (code) {
    case "codex": case "antigravity": case "opencode": case "cursor": case "claude": case "ollama":
      return 1;
    default: {
      const never: never = code;
      return never;
    }
  }
}
void exhaustive;
// @ts-expect-error script is ours, not the original's
const notOriginal: ProviderCode = "script";
void notOriginal;
const ours: AnyProviderCode[] = ["codex", "script", "openai", "gemini", "copilot", "mcp", "qwen"];
void ours;
// @ts-expect-error not a provider code
const badCode: ProviderCode = "chatgpt";
void badCode;

async function client(pedelec: Pedelec) {
  // Ours beside the original's six (issue 23): createSession takes any
  // provider Core has; {all: true} lists them, typed AnyProviderCode.
  await pedelec.createSession({ provider: "script", model: "deterministic" });
  const six: ProviderCode[] = (await pedelec.listProviders()).map((p) => p.code);
  const every: AnyProviderCode[] = (await pedelec.listProviders({ all: true })).map((p) => p.code);
  // @ts-expect-error {all: true} may name a code outside the original's six
  const narrowed: ProviderCode[] = (await pedelec.listProviders({ all: true })).map((p) => p.code);
  const defaultAny: AnyProviderCode | null = (await pedelec.getSettings({ all: true })).defaultProvider;
  const defaultSix: ProviderCode | null = (await pedelec.getSettings()).defaultProvider;
  void [six, every, narrowed, defaultAny, defaultSix];
  // createSession(): both overloads.
  const byDefault = await pedelec.createSession();
  expectType<Equal<typeof byDefault, PedelecSession<string>>>(true);
  await pedelec.createSession({ provider: "codex", autoEndOnDisconnect: true });
  await pedelec.createSession({ provider: "claude", model: "sonnet" });
  await pedelec.createSession({ autoEndOnDisconnect: false });
  await pedelec.createSession({ provider: undefined });
  // @ts-expect-error a model without a provider is refused
  await pedelec.createSession({ model: "some-model" });
  // @ts-expect-error provider must be a ProviderCode
  await pedelec.createSession({ provider: "gpt" });
  // @ts-expect-error skills needs guidance and tools
  await pedelec.createSession({ provider: "codex", skills: { tools: [] } });
  const input: CreateSessionInput = { provider: "ollama", model: "llama3" };
  await pedelec.createSession(input);

  // Tool names flow into the session's type.
  const tools = [
    defineTool({ name: "get_current_page", description: "d", argsSchema: { type: "object", properties: {}, required: [] } }),
    defineTool({
      name: "update_counter",
      description: "d",
      argsSchema: { type: "object", properties: { delta: { type: "integer" } }, required: ["delta"] },
      handler: (args: { delta: number }) => ({ value: args.delta }),
    }),
  ] as const;
  const session = await pedelec.createSession({ provider: "codex", skills: { guidance: "g", tools } });
  type Names = ToolNameOf<typeof tools>;
  expectType<Equal<Names, "get_current_page" | "update_counter">>(true);
  const asOriginal: PedelecSession<Names> = session;
  void asOriginal;

  // listProviders / getSettings / getApprovalStatus / checkAvailability.
  const providers = await pedelec.listProviders();
  expectType<Equal<typeof providers, ProviderInfo[]>>(true);
  const ready = providers.filter((provider) => provider.available);
  const first = ready[0];
  if (first) {
    expectType<Equal<typeof first.code, ProviderCode>>(true);
    expectType<Equal<typeof first.error, string | null>>(true);
    expectType<Equal<typeof first.name, string>>(true);
    await pedelec.createSession({ provider: first.code });
  }
  const settings = await pedelec.getSettings();
  expectType<Equal<typeof settings, PedelecSettings>>(true);
  expectType<Equal<typeof settings.defaultProvider, ProviderCode | null>>(true);
  expectType<Equal<typeof settings.defaultModels.codex, string | undefined>>(true);
  const approval = await pedelec.getApprovalStatus();
  expectType<Equal<typeof approval, ApprovalStatus>>(true);
  expectType<Equal<typeof approval.origin, string | null>>(true);
  const availability = await pedelec.checkAvailability();
  expectType<Equal<typeof availability, PedelecAvailability>>(true);
  const launched: boolean = availability.desktop.launchAttempted && availability.extension.available && availability.approval.approved;
  void launched;
  const err: PedelecError | undefined = availability.error;
  void err;

  // resumeSession and request<T>.
  const resumed = await pedelec.resumeSession("s_1");
  expectType<Equal<typeof resumed, PedelecSession<string>>>(true);
  // @ts-expect-error the id is a string
  await pedelec.resumeSession(42);
  const created = await pedelec.request<{ sessionId: string }>("create_session", { input: { provider: "codex" } });
  expectType<Equal<typeof created, { sessionId: string }>>(true);
  const anything = await pedelec.request("list_providers");
  expectType<Equal<typeof anything, unknown>>(true);
}
void client;

// ---- PedelecSession ----
async function sessionApi(session: PedelecSession<"update_counter" | "get_current_page">) {
  expectType<Equal<typeof session.sessionId, string>>(true);
  expectType<Equal<typeof session.provider, string>>(true);
  expectType<Equal<typeof session.model, string | undefined>>(true);
  expectType<Equal<typeof session.sessionCreatedAt, number>>(true);
  // @ts-expect-error properties are readonly
  session.sessionId = "x";

  const prepared: Promise<void> = session.prepare();
  const sent: Promise<void> = session.sendText("Analyze the current page.");
  const ended: Promise<void> = session.end();
  void prepared, sent, ended;
  let queue = Promise.resolve();
  queue = queue.then(() => session.sendText("next"));

  // assets
  const path: SandboxAssetPath = await session.uploadAsset(file);
  await session.uploadAsset(file, "/results/input.csv");
  // @ts-expect-error an asset path starts with "/"
  await session.uploadAsset(file, "results/input.csv");
  const assets = await session.listAssets();
  expectType<Equal<typeof assets, SandboxAsset[]>>(true);
  const text = await session.readAsset(path, "text");
  expectType<Equal<typeof text, string>>(true);
  const json = await session.readAsset("/r.json", "json");
  expectType<Equal<typeof json, JsonValue>>(true);
  const typed = await session.readAsset<{ ok: boolean }>("/r.json", "json");
  expectType<Equal<typeof typed, { ok: boolean }>>(true);
  const asFile = await session.readAsset("/model.glb", "file");
  expectType<Equal<typeof asFile, File>>(true);
  // @ts-expect-error not a read type
  await session.readAsset("/a", "blob");
  const kinds: ReadAssetType[] = ["text", "json", "file"];
  void kinds;

  // listeners: (value, ctx)
  const offChat = session.onChat((delta, ctx) => {
    expectType<Equal<typeof delta, string>>(true);
    expectType<Equal<typeof ctx, ChatEventContext>>(true);
    expectType<Equal<typeof ctx.type, "chat_delta">>(true);
    expectType<Equal<typeof ctx.turnId, string>>(true);
    expectType<Equal<typeof ctx.eventReceivedAt, number>>(true);
  });
  const offStatus = session.onStatus((status, ctx) => {
    expectType<Equal<typeof status, PedelecSessionStatus>>(true);
    expectType<Equal<typeof ctx, StatusEventContext>>(true);
    expectType<Equal<typeof ctx.type, "status_changed" | "sdk_status_changed">>(true);
    expectType<Equal<typeof ctx.previousStatus, PedelecSessionStatus>>(true);
    expectType<Equal<typeof ctx.source, "core" | "sdk">>(true);
  });
  session.onStatus(renderStatus);
  const offError = session.onError((error, ctx) => {
    expectType<Equal<typeof ctx, ErrorEventContext>>(true);
    expectType<Equal<typeof ctx.type, "error" | "sdk_error">>(true);
    const code: string = error.code;
    const details: unknown = error.details;
    void code, details;
  });
  const offEnded = session.onEnded((ctx) => {
    expectType<Equal<typeof ctx, EndedEventContext>>(true);
    expectType<Equal<typeof ctx.type, "ended" | "sdk_ended">>(true);
  });
  session.onEnded(() => {});
  // @ts-expect-error onEnded's handler takes the context only
  session.onEnded((_ctx: EndedEventContext, _more: string) => {});
  const disposers: (() => void)[] = [offChat, offStatus, offError, offEnded];
  void disposers;

  // onTool: the generic fallback, and the named overload with its generics.
  session.onTool((tool, args, ctx) => {
    expectType<Equal<typeof tool, "update_counter" | "get_current_page">>(true);
    expectType<Equal<typeof args, unknown>>(true);
    expectType<Equal<typeof ctx, ToolCallContext>>(true);
    return null;
  });
  session.onTool("update_counter", (args: { delta: number }) => ({ value: args.delta }));
  session.onTool<{ delta: number }, { value: number }>("update_counter", async (args, ctx) => {
    expectType<Equal<typeof args, { delta: number }>>(true);
    expectType<Equal<typeof ctx.type, "tool_call">>(true);
    expectType<Equal<typeof ctx.toolRequestId, string>>(true);
    return { value: args.delta };
  });
  // @ts-expect-error the name must be one of the session's tools
  session.onTool("delete_everything", () => null);
  // @ts-expect-error a named handler needs a handler
  session.onTool("update_counter");

  const status: PedelecSessionStatus = session.getStatus();
  if (status === "idle") await session.sendText("go");
  // The original's union, exactly: an app's exhaustive switch over its five
  // statuses compiles (a sixth would make `never` fail).
  type OriginalStatus = "idle" | "running" | "waiting_tool_result" | "ended" | "error";
  expectType<Equal<PedelecSessionStatus, OriginalStatus>>(true);
  const original: OriginalStatus = session.getStatus();
  const label = (s: PedelecSessionStatus): string => {
    switch (s) {
      case "idle":
        return "Ready";
      case "running":
        return "Thinking";
      case "waiting_tool_result":
        return "Working";
      case "ended":
        return "Ended";
      case "error":
        return "Error";
      default: {
        const unreachable: never = s;
        return unreachable;
      }
    }
  };
  void label(original);
  // @ts-expect-error not a status
  const bad: PedelecSessionStatus = "busy";
  void bad;
}
void sessionApi;

// ---- event context base ----
const base: PedelecEventContext = { sessionId: "s", provider: "codex", sessionCreatedAt: 1, eventEmittedAt: 2, source: "sdk" };
void base;
// @ts-expect-error source is "core" or "sdk"
const badBase: PedelecEventContext = { sessionId: "s", provider: "codex", sessionCreatedAt: 1, eventEmittedAt: 2, source: "page" };
void badBase;

// ---- tools ----
const counter = { add: (n: number) => n };
const updateCounter = defineTool<{ delta: number }, { value: number }>({
  name: "update_counter",
  description: "Update the visible counter by delta.",
  argsSchema: { type: "object", properties: { delta: { type: "integer" } }, required: ["delta"] },
  handler: ({ delta }) => ({ value: counter.add(delta) }),
});
const literal = defineTool({ name: "read_page", description: "d", argsSchema: { type: "object" } });
expectType<Equal<typeof literal.name, "read_page">>(true);
const toolsArr = [literal, updateCounter] as const;
const skills = { guidance: "Read current state before making changes.", tools: toolsArr } satisfies SkillsInput<typeof toolsArr>;
void skills;
const def: ToolDefinition = { name: "x", description: "d", argsSchema: { type: "object" }, timeoutMs: 1000 };
void def;
const handler: ToolSpecificHandler<{ a: number }, number> = (args, ctx) => args.a + ctx.eventReceivedAt;
void handler;
const manifest: SerializableSkillsManifest = { guidance: "", tools: [{ name: "x", description: "d", argsSchema: { type: "object" } }] };
// @ts-expect-error a manifest entry has no handler
const withHandler: SerializableToolManifest = { name: "x", description: "d", argsSchema: { type: "object" }, handler: () => 1 };
void manifest, withHandler;
defineTool({
  name: "legacy",
  description: "d",
  argsSchema: { type: "object" },
  // @ts-expect-error the legacy input shorthand is not a field
  input: { type: "object" },
});

// ---- schema nodes ----
const str: ToolArgsStringSchema = { type: "string", enum: ["a"], minLength: 1, maxLength: 2, pattern: "^a$", default: "a", examples: ["a"] };
// @ts-expect-error a string schema's default is a string
const strBad: ToolArgsStringSchema = { type: "string", default: 1 };
const num: ToolArgsNumberSchema = { type: "number", minimum: 0, maximum: 1 };
const int: ToolArgsIntegerSchema = { type: "integer", enum: [1, 2] };
const bool: ToolArgsBooleanSchema = { type: "boolean", default: false };
const arr: ToolArgsArraySchema = { type: "array", items: str, minItems: 1, maxItems: 3, uniqueItems: true };
const obj: ToolArgsObjectSchema = { type: "object", properties: { s: str, n: num }, required: ["s"] };
const one: ToolArgsOneOfSchema = { oneOf: [str, int] };
const meta: ToolArgsSchemaMeta<number> = { description: "d", default: 1, examples: [1] };
const node: ToolArgsSchemaNode[] = [str, num, int, bool, arr, obj, one];
const root: ToolArgsSchema = obj;
// @ts-expect-error the root is an object schema
const rootBad: ToolArgsSchema = str;
void strBad, meta, node, root, rootBad;

// ---- JSON ----
const prim: JsonPrimitive[] = ["a", 1, true, null];
const val: JsonValue = { a: [1, "b", { c: null }] };
// @ts-expect-error undefined is not JSON
const notJson: JsonValue = { a: undefined };
void prim, val, notJson;
