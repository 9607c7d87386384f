// Public types of the SDK. The names, fields and signatures follow the
// original Pedelec SDK's reference (v0.1.23), so an app written against it
// compiles unchanged; what is ours alone is marked "Pedelec Core addition".
// The wire frames themselves live in client/protocol.ts.

import type { PedelecError } from "./errors.js";
import type { AnyProviderCode, ProviderCode } from "./providers.gen.js";

// ---- JSON ----

export type JsonPrimitive = string | number | boolean | null;

/** A plain JSON value: what a tool result, an argument or a manifest may contain. */
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };

// ---- the argument schema: Pedelec's supported subset of JSON Schema ----

/** What every schema node may say about itself. */
export type ToolArgsSchemaMeta<TDefault extends JsonValue = JsonValue> = {
  description?: string;
  default?: TDefault;
  examples?: readonly TDefault[];
};

export type ToolArgsStringSchema = ToolArgsSchemaMeta<string> & {
  type: "string";
  enum?: readonly string[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
};

export type ToolArgsNumberSchema = ToolArgsSchemaMeta<number> & {
  type: "number";
  enum?: readonly number[];
  minimum?: number;
  maximum?: number;
};

export type ToolArgsIntegerSchema = ToolArgsSchemaMeta<number> & {
  type: "integer";
  enum?: readonly number[];
  minimum?: number;
  maximum?: number;
};

export type ToolArgsBooleanSchema = ToolArgsSchemaMeta<boolean> & {
  type: "boolean";
  enum?: readonly boolean[];
};

export type ToolArgsArraySchema = ToolArgsSchemaMeta<JsonValue[]> & {
  type: "array";
  /** Required by the original's types; Core also accepts an array schema without it (any items). */
  items?: ToolArgsSchemaNode;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
};

export type ToolArgsObjectSchema = ToolArgsSchemaMeta<Record<string, JsonValue>> & {
  type: "object";
  properties?: { readonly [name: string]: ToolArgsSchemaNode };
  required?: readonly string[];
};

export type ToolArgsOneOfSchema = ToolArgsSchemaMeta & {
  oneOf: readonly ToolArgsSchemaNode[];
};

/** One node of an argument schema. */
export type ToolArgsSchemaNode =
  | ToolArgsStringSchema
  | ToolArgsNumberSchema
  | ToolArgsIntegerSchema
  | ToolArgsBooleanSchema
  | ToolArgsArraySchema
  | ToolArgsObjectSchema
  | ToolArgsOneOfSchema;

/** The root of a tool's argument schema: always an object schema, even for no arguments. */
export type ToolArgsSchema = ToolArgsObjectSchema;

// ---- standard JSON Schema (inputSchema) ----

/**
 * Pedelec Core addition: any JSON Schema of draft 2020-12 (the default) or
 * draft-07, as WebMCP, MCP, Zod's z.toJSONSchema() and TypeBox write it.
 * Core checks every keyword; see docs/schema.md.
 */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** Pedelec Core addition: a JSON Schema whose root is an object schema, as arguments and declared results are. */
export type JsonObjectSchema = JsonSchema & { readonly type: "object" };

// ---- status and event contexts ----
// Every field Pedelec Core adds to a context is optional in the type
// (always set at run time), so an app's hand-built test doubles of the
// original's contexts still compile (issue 23).

/**
 * The original's five statuses, exactly, so an app's exhaustive switch over
 * them keeps compiling. A call waiting for the user's consent is
 * "waiting_tool_result" here (the agent waits on a tool's result); the
 * finer state is getDetailedStatus() and ctx.detailedStatus.
 */
export type PedelecSessionStatus = "idle" | "running" | "waiting_tool_result" | "ended" | "error";

/**
 * Pedelec Core addition, opt in: the status with Core's consent state,
 * "waiting_approval" (a call waits for the user's consent, or, while
 * reconnecting, this origin waits for the user's approval).
 */
export type PedelecDetailedStatus = PedelecSessionStatus | "waiting_approval";

/**
 * A call the agent is waiting on (Pedelec Core addition). While the
 * detailed status is waiting_approval, approvalId names the call's consent request: the
 * user answers it in Core's console or with `pedelec approve <approvalId>`.
 */
export type PendingTool = { toolRequestId: string; tool: string; approvalId?: string };

/** What every listener receives as its context. IDs are opaque; times are browser ms. */
export type PedelecEventContext = {
  sessionId: string;
  provider: string;
  model?: string;
  sessionCreatedAt: number;
  /** When the page received Core's event; absent for changes the SDK made itself. */
  eventReceivedAt?: number;
  eventEmittedAt: number;
  turnId?: string;
  turnStartedAt?: number;
  turnKind?: "user" | "prepare";
  /** "core" when Core reported it, "sdk" when the SDK knew first. */
  source: "core" | "sdk";
};

export type ChatEventContext = PedelecEventContext & {
  type: "chat_delta";
  turnId: string;
  turnStartedAt: number;
  eventReceivedAt: number;
  /** Pedelec Core addition: the turn's assistant message so far, this delta included. */
  text?: string;
};

export type StatusEventContext = PedelecEventContext & {
  type: "status_changed" | "sdk_status_changed";
  status: PedelecSessionStatus;
  previousStatus: PedelecSessionStatus;
  /**
   * Pedelec Core addition: the status with Core's consent state
   * ("waiting_approval" where status says "waiting_tool_result", or "error"
   * while a reconnect waits for the origin's approval). A change of the
   * detailed status alone is told too, with status equal to previousStatus.
   */
  detailedStatus?: PedelecDetailedStatus;
  previousDetailedStatus?: PedelecDetailedStatus;
  /**
   * Pedelec Core addition: while waiting_tool_result, the calls the agent
   * waits on, oldest first; while the detailed status is waiting_approval,
   * the calls waiting for the user's consent (each with its approvalId).
   */
  waitingOn?: PendingTool[];
  /**
   * Pedelec Core addition: on a detailed waiting_approval a reconnect set (no
   * calls), the origin approval the session waits for before it resumes:
   * Core came back without approving this origin, and the user decides in
   * the window at url.
   */
  originApproval?: ApprovalPending;
  /**
   * Pedelec Core addition (issue 26): set when a running handler reported
   * its progress (ctx.progress): an sdk_status_changed whose status stays
   * what it was, with the report and the call it is about.
   */
  progress?: ToolProgress & { toolRequestId: string; tool: string };
  /**
   * Pedelec Core addition (issue 25): set when the agent used a tool of its
   * own (an ACP agent's shell, a file read) or Pedelec answered its
   * permission request: a status_changed whose status stays what it was.
   * Display only; the page runs nothing for it.
   */
  activity?: AgentActivity;
};

/**
 * Pedelec Core addition (issue 25): one step of a tool of the agent's own.
 * status is ACP's (pending, in_progress, completed, failed) or Pedelec's
 * answer to a permission request (allowed, rejected, with the reason).
 */
export type AgentActivity = { toolCallId: string; title: string; kind?: string; status: string; reason?: string };

/**
 * Pedelec Core addition (issue 26): how far a running call is, the fields
 * of MCP's notifications/progress. progress grows with each report; total
 * is where it ends, when known; message says what is happening.
 */
export type ToolProgress = { progress: number; total?: number; message?: string };

export type ErrorEventContext = PedelecEventContext & {
  type: "error" | "sdk_error";
};

/**
 * Pedelec Core addition: why a session ended: the page ended it, the page
 * went away (with autoEndOnDisconnect), Core stopped, or a detached session
 * was not resumed within Core's resume window. Other strings may come from
 * newer Cores.
 */
export type EndReason = "end_session" | "disconnect" | "shutdown" | "resume_window_expired" | "origin_revoked" | (string & {});

export type EndedEventContext = PedelecEventContext & {
  type: "ended" | "sdk_ended";
  /** Pedelec Core addition: why it ended. */
  reason?: EndReason;
};

/** Everything a tool handler knows about the call it is answering. */
export type ToolCallContext = PedelecEventContext & {
  type: "tool_call";
  /** Unique id of this call; the SDK submits the result under it. */
  toolRequestId: string;
  /** The tool's name. */
  tool: string;
  /** The turn (the sendText call) the agent made this call in. */
  turnId: string;
  turnStartedAt: number;
  eventReceivedAt: number;
  /** Pedelec Core addition: when Core stops waiting for the result (unix ms); a later result is refused. */
  deadline?: number;
  /** Pedelec Core addition: the tool's timeout in ms, as Core applies it. */
  timeoutMs?: number;
  /** Pedelec Core addition: true when Core sent this call again to a page that resumed the session. */
  redelivered?: boolean;
  /**
   * Pedelec Core addition: aborts when the result is no longer wanted (the
   * deadline passed, Core settled the call, the session ended).
   * `signal.reason` is a PedelecError: TOOL_TIMEOUT, TOOL_CALL_CANCELLED (the
   * agent gave up), TURN_INTERRUPTED (Core stopped) or SESSION_ENDED. The
   * SDK cannot stop your JavaScript: listen to it to close a modal or cancel
   * a fetch.
   */
  signal?: AbortSignal;
  /**
   * Pedelec Core addition (issue 26): report how far the call is. The agent
   * sees it (tool-call's stderr, MCP notifications/progress), as do
   * onStatus (an sdk_status_changed with ctx.progress) and Core's console. Call it as often
   * as you like: at most four reports a second are sent, the latest wins.
   * Throws INVALID_INPUT for a report that is not { progress >= 0, total?, message? }.
   * Optional in the type so contexts made by hand (tests) still type-check;
   * the SDK always sets it.
   */
  progress?: (report: ToolProgress) => void;
};

// ---- tools and handlers ----

// The method-shaped type makes handler parameters bivariant, so a handler
// may annotate the arguments it expects ((args: {delta: number}) => ...)
// even where the definition leaves them unknown: agent arguments are
// untrusted at run time either way, and the seeds show exactly that style.
type Bivariant<F extends (...args: never[]) => unknown> = { fn(...args: Parameters<F>): ReturnType<F> }["fn"];

/** A handler for one tool: may be sync or async; its value is submitted as the result. */
export type ToolSpecificHandler<TArgs = unknown, TResult = unknown> = Bivariant<
  (args: TArgs, ctx: ToolCallContext) => TResult | Promise<TResult>
>;

/** The generic fallback handler: receives every call that has no named or inline handler. */
export type GenericToolHandler<TName extends string = string> = (
  tool: TName,
  args: unknown,
  ctx: ToolCallContext,
) => unknown | Promise<unknown>;

/**
 * What a tool's calls do: MCP's tool annotations and WebMCP's. Core passes
 * them to the agent (its prompt, tool-spec) and to MCP clients (tools/list).
 * destructiveHint or consequentialHint true makes Core ask the user before
 * each call, even with readOnlyHint true (destructive wins); readOnlyHint alone never asks.
 */
export type ToolAnnotations = {
  /** A human-readable name for the tool. */
  title?: string;
  /** MCP/WebMCP: the tool only reads. Core never asks before calling it. */
  readOnlyHint?: boolean;
  /** MCP: the tool may delete or overwrite. Core asks the user before each call. */
  destructiveHint?: boolean;
  /** MCP: calling it again with the same arguments has no further effect. */
  idempotentHint?: boolean;
  /** MCP: the tool reaches beyond the page (the network, other people). */
  openWorldHint?: boolean;
  /** WebMCP: the call has consequences for the user (pays, sends, publishes). Core asks the user before each call. */
  consequentialHint?: boolean;
  /** WebMCP: the result carries content the page does not vouch for. */
  untrustedContentHint?: boolean;
};

/** A tool the page offers the agent. Everything but the handler leaves the page. */
export type ToolDefinition<TArgs = unknown, TResult = unknown, TName extends string = string> = ToolDefinitionFields<TArgs, TResult, TName> & {
  argsSchema: ToolArgsSchema;
  /**
   * Pedelec Core addition (MCP's outputSchema): the result's shape, an
   * object schema in the same subset as argsSchema. Core checks each result
   * against it: one that breaks it fails the agent's call with
   * TOOL_RESULT_INVALID and reaches onError as the handler's bug. MCP
   * clients receive it in tools/list, and results as structuredContent.
   */
  outputSchema?: ToolArgsObjectSchema;
};

/**
 * Pedelec Core addition: a tool whose arguments' schema is standard JSON
 * Schema (inputSchema, as WebMCP and MCP name it) rather than Pedelec's
 * subset (argsSchema). defineTool also takes a Standard Schema object
 * (Zod 4, ...) as inputSchema and converts it.
 */
export type InputSchemaToolDefinition<TArgs = unknown, TResult = unknown, TName extends string = string> = ToolDefinitionFields<TArgs, TResult, TName> & {
  inputSchema: JsonObjectSchema;
  argsSchema?: undefined;
  /** The result's shape, in standard JSON Schema as inputSchema is; see ToolDefinition.outputSchema. */
  outputSchema?: JsonObjectSchema;
};

/** Everything a tool definition holds but its arguments' schema. */
export type ToolDefinitionFields<TArgs = unknown, TResult = unknown, TName extends string = string> = {
  name: TName;
  description: string;
  timeoutMs?: number;
  /** Hints about what a call does; see ToolAnnotations for which ones ask the user first. */
  annotations?: ToolAnnotations;
  /**
   * Pedelec Core addition (as Vercel AI SDK's needsApproval): true makes
   * Core ask the user (the console, `pedelec approve`) before each call
   * runs; the handler runs only once approved. The call waits in the
   * session status "waiting_approval"; a denial is TOOL_CALL_DENIED and no
   * answer within timeoutMs is TOOL_CONSENT_TIMEOUT.
   */
  needsApproval?: boolean;
  handler?: ToolSpecificHandler<TArgs, TResult>;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyToolDefinition = ToolDefinition<any, any, string> | InputSchemaToolDefinition<any, any, string>;

/** What an application declares when it creates a session. */
export type SkillsInput<TTools extends readonly AnyToolDefinition[] = readonly ToolDefinition[]> = {
  guidance: string;
  tools: TTools;
};

/** The union of tool names of a tools array (`string` when the array is not literal). */
export type ToolNameOf<TTools extends readonly AnyToolDefinition[]> = Extract<TTools[number]["name"], string>;

type DefinitionNamed<TTools extends readonly AnyToolDefinition[], N extends string> = Extract<TTools[number], { name: N }>;

/** Pedelec Core addition: the argument type a tool's definition declares (unknown when none). */
export type ToolArgs<TTools extends readonly AnyToolDefinition[], N extends string> =
  DefinitionNamed<TTools, N> extends ToolDefinitionFields<infer A, unknown, string> ? A : unknown;

/** Pedelec Core addition: the result type a tool's definition declares (unknown when none). */
export type ToolResult<TTools extends readonly AnyToolDefinition[], N extends string> =
  DefinitionNamed<TTools, N> extends ToolDefinitionFields<unknown, infer R, string> ? R : unknown;

/** The plain JSON form of one tool: what Core and `pedelec validate-tools` see. */
export type SerializableToolManifest = {
  name: string;
  description: string;
  argsSchema: ToolArgsSchema;
  timeoutMs?: number;
  annotations?: ToolAnnotations;
  needsApproval?: boolean;
  outputSchema?: ToolArgsObjectSchema;
};

/** Pedelec Core addition: the plain JSON form of a tool that gives inputSchema. */
export type SerializableInputSchemaToolManifest = Omit<SerializableToolManifest, "argsSchema" | "outputSchema"> & {
  inputSchema: JsonObjectSchema;
  outputSchema?: JsonObjectSchema;
};

/** The plain JSON form of skills, handlers stripped. */
export type SerializableSkillsManifest = {
  guidance: string;
  tools: (SerializableToolManifest | SerializableInputSchemaToolManifest)[];
};

// ---- client input and answers ----

// Both are generated from Core's registry of providers (go generate
// ./runtime/wire). ProviderCode is exactly the original's six, so an app's
// Record<ProviderCode, ...> and exhaustive switches keep compiling; Core's
// other providers are in AnyProviderCode, which createSession() takes and
// listProviders({all: true}) reports (docs/decisions.md).
export type { AnyProviderCode, ProviderCode };

/** Pedelec Core addition: listProviders()'s and getSettings()'s option. */
export type ProviderListOptions = {
  /** true: every provider Core has (AnyProviderCode), not only the original's six. */
  all?: boolean;
};

/**
 * createSession's input. The union forbids `model` without `provider`
 * (runtime validation rejects it too, with INVALID_INPUT).
 */
export type CreateSessionInput<
  TTools extends readonly AnyToolDefinition[] = readonly ToolDefinition[],
  /** Pedelec Core addition: createSession() itself takes AnyProviderCode. */
  TProvider extends string = ProviderCode,
> =
  | {
      provider: TProvider;
      model?: string;
      skills?: SkillsInput<TTools>;
      /** End the session when this page disconnects (default true). */
      autoEndOnDisconnect?: boolean;
    } & WebMCPSessionOptions & FollowPageOptions
  | ({
      provider?: undefined;
      model?: never;
      skills?: SkillsInput<TTools>;
      autoEndOnDisconnect?: boolean;
    } & WebMCPSessionOptions & FollowPageOptions);

/** Pedelec Core addition: a session that continues when the page navigates (docs/sdk.md, "Sessions that follow the page"). */
export type FollowPageOptions = {
  /**
   * Keep this session across same-origin navigations and reloads in this
   * tab: its id is kept in sessionStorage, and createSession() on the next
   * page (with followPage: true) resumes it with that page's tools. A tab
   * closed for good still ends it, once Core's grace (10 s) has passed.
   * Implies autoEndOnDisconnect (a false one is INVALID_INPUT). Default false.
   */
  followPage?: boolean;
};

/** Pedelec Core addition: a call that was running when the previous page navigated away, as the next page sees it. */
export type NavigatedCall = {
  toolRequestId: string;
  tool: string;
  args: unknown;
  /** The page the call was running in. */
  from: string;
  /** This page. */
  to: string;
  /**
   * What the previous page knew of the call as it left, when it knew
   * something: for a declarative WebMCP form whose submission navigated,
   * {submitted: true, navigated: true, url, method}.
   */
  left?: JsonValue;
};

/** Pedelec Core addition (issue 24): how a session meets the page's WebMCP tools (docs/webmcp.md). */
export type WebMCPSessionOptions = {
  /**
   * The tools the page registers with document.modelContext.registerTool
   * are tools of this session too, from the moment they are registered
   * until their signal aborts (default false).
   */
  webmcp?: boolean;
  /**
   * Register this session's defineTool tools with the browser's own
   * document.modelContext, where it has one, so the browser's agent can
   * use the same handlers (default true; no effect without a native one).
   */
  exposeToBrowser?: boolean;
};

/** One provider as listProviders() reports it (TCode is a Pedelec Core addition: AnyProviderCode with {all: true}). */
export type ProviderInfo<TCode extends string = ProviderCode> = {
  /** Human-readable name for a picker. */
  name: string;
  /** The value to pass as createSession({provider}). */
  code: TCode;
  available: boolean;
  /** Why it is unavailable (install it, fix PATH, configure it); null when available. */
  error: string | null;
};

/** Pedelec Core addition: everything Core says about one provider (listProviderDetails()). */
export type ProviderDetails = {
  name: string;
  available: boolean;
  version?: string;
  path?: string;
  /** Why the provider is unavailable. */
  reason?: string;
  defaultModel?: string;
  description?: string;
  /** The models the provider's server has, where it can list them (ollama). */
  models?: string[];
};

/** Pedelec Core addition: listProviderDetails()'s answer. */
export type ProviderList = {
  providers: ProviderDetails[];
  defaultProvider: string;
};

/** The defaults Core's configuration gives sessions that name no provider or model. */
export type PedelecSettings<TCode extends string = ProviderCode> = {
  /** null also when Core's default is not one of TCode (ask getSettings({all: true})). */
  defaultProvider: TCode | null;
  defaultModels: Partial<Record<TCode, string>>;
};

/**
 * Whether this page may use Core. `installed` and `appConnected`: Core
 * answers at its address; `approved`: Core's origin allowlist admits this
 * page's origin.
 */
export type ApprovalStatus = {
  installed: boolean;
  approved: boolean;
  origin: string | null;
  appConnected: boolean;
};

/**
 * Every layer checked: `extension` is Core answering at its address,
 * `approval` the origin allowlist, `desktop` Core answering a settings
 * request over the page's connection.
 */
export type PedelecAvailability = {
  available: boolean;
  extension: { available: boolean };
  approval: { approved: boolean; origin: string | null };
  desktop: { available: boolean; launchAttempted: boolean };
  error?: PedelecError;
};

export type PedelecOptions = {
  /**
   * How long a request waits for Core's answer before it rejects with
   * SDK_BRIDGE_TIMEOUT (default 30 000 ms; below 1 counts as 1). It does not
   * limit a whole turn: sendText waits for the agent as long as it works.
   */
  bridgeTimeoutMs?: number;
  /**
   * Pedelec Core addition: where Core is, a ws(s):// or http(s):// URL (a
   * base URL gets /ws appended). Default: the Core that served this module
   * when it was imported from /sdk/pedelec.js, else ws://127.0.0.1:7077/ws.
   */
  url?: string;
  /**
   * Pedelec Core addition: told while a createSession/resumeSession waits
   * for the user to approve this origin: the approval window's URL, and
   * an OPEN_POPUP_FAILED error when the browser blocked the window (open
   * the URL by hand, or run `pedelec approve <origin>`; the call keeps
   * waiting).
   */
  onApprovalPending?: (pending: ApprovalPending) => void;
  /**
   * Pedelec Core addition: which providers listProviders() and getSettings()
   * report when not given {all}: "original" (default), the original SDK's
   * six codes; "all", every provider Core has (their types still say
   * ProviderCode: typed code should ask with {all: true} instead). Importing
   * the SDK from Core's URL with ?providers=all sets "all" too.
   */
  providers?: "original" | "all";
};

/** Pedelec Core addition: an origin approval the SDK is waiting for. */
export type ApprovalPending = {
  origin: string;
  requestId: string;
  url: string;
  /** OPEN_POPUP_FAILED when the browser blocked the approval window. */
  error?: PedelecError;
};

/** Pedelec Core addition: what sendTurn resolves with once the turn is over. */
export type TurnResult = {
  turnId: string;
  startedAt: number;
  /** The assistant's whole message for this turn. */
  text: string;
};

// ---- session assets ----

/** A path in the session's shared assets/ directory, always starting with "/". */
export type SandboxAssetPath = `/${string}`;

/** How readAsset converts the file: strict UTF-8 text, parsed JSON, or a browser File. */
export type ReadAssetType = "text" | "json" | "file";

/** One completed regular file of the session's assets/ directory. */
export type SandboxAsset = {
  /** The basename. */
  name: string;
  /** The whole public path, relative to assets/: "/results/report.json". */
  path: SandboxAssetPath;
  sizeBytes: number;
  /** Filesystem modification time (unix ms). */
  modifiedAt: number;
};

export type Disposer = () => void;

// ---- names of our previous API, kept so apps written against it still compile ----

/** @deprecated Use ToolCallContext. */
export type ToolContext = ToolCallContext;
/** @deprecated Use PedelecSessionStatus. */
export type SessionStatus = PedelecSessionStatus;
/** @deprecated Use ToolArgsSchemaNode. */
export type SchemaNode = ToolArgsSchemaNode;
/** @deprecated Use ToolArgsStringSchema. */
export type StringSchema = ToolArgsStringSchema;
/** @deprecated Use ToolArgsNumberSchema or ToolArgsIntegerSchema. */
export type NumberSchema = ToolArgsNumberSchema | ToolArgsIntegerSchema;
/** @deprecated Use ToolArgsBooleanSchema. */
export type BooleanSchema = ToolArgsBooleanSchema;
/** @deprecated Use ToolArgsArraySchema. */
export type ArraySchema = ToolArgsArraySchema;
/** @deprecated Use ToolArgsObjectSchema. */
export type ObjectSchema = ToolArgsObjectSchema;
/** @deprecated Use ToolArgsOneOfSchema. */
export type OneOfSchema = ToolArgsOneOfSchema;
/** @deprecated Use ToolNameOf. */
export type ToolName<TTools extends readonly AnyToolDefinition[]> = ToolNameOf<TTools>;
/** @deprecated Use SerializableToolManifest. */
export type ToolManifestEntry = SerializableToolManifest;
/** @deprecated Use SerializableSkillsManifest. */
export type SkillsManifest = SerializableSkillsManifest;
/** @deprecated Use CreateSessionInput. */
export type CreateSessionOptions<TTools extends readonly AnyToolDefinition[] = readonly ToolDefinition[]> = CreateSessionInput<TTools>;

/** Pedelec Core addition: resumeSession's second argument. */
export type ResumeSessionOptions<TTools extends readonly AnyToolDefinition[] = readonly ToolDefinition[]> = {
  /** The same tool definitions the page declared, to restore their inline handlers. */
  tools?: TTools;
  /**
   * Pedelec Core addition (issue 24): follow the page's WebMCP tools, as
   * createSession({webmcp: true}) does. The session's tools become `tools`
   * plus the page's WebMCP tools, sent to Core at once.
   */
  webmcp?: boolean;
};
