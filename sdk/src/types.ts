// Public types of the SDK. The wire frames themselves live in
// client/protocol.ts; these are what application code touches.

import type { PedelecError } from "./errors.js";

/** A plain JSON value: what a tool result, an argument or a manifest may contain. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

// ---- the argument schema: Pedelec's supported subset of JSON Schema ----

type NodeCommon = {
  description?: string;
  default?: unknown;
  examples?: readonly unknown[];
};

export type StringSchema = NodeCommon & {
  type: "string";
  enum?: readonly string[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
};

export type NumberSchema = NodeCommon & {
  type: "number" | "integer";
  enum?: readonly number[];
  minimum?: number;
  maximum?: number;
};

export type BooleanSchema = NodeCommon & {
  type: "boolean";
  enum?: readonly boolean[];
};

export type ArraySchema = NodeCommon & {
  type: "array";
  items?: SchemaNode;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
};

export type ObjectSchema = NodeCommon & {
  type: "object";
  properties?: { readonly [name: string]: SchemaNode };
  required?: readonly string[];
};

export type OneOfSchema = NodeCommon & {
  oneOf: readonly SchemaNode[];
};

/** One node of an argument schema. */
export type SchemaNode = StringSchema | NumberSchema | BooleanSchema | ArraySchema | ObjectSchema | OneOfSchema;

/** The root of a tool's argument schema: always an object schema, even for no arguments. */
export type ToolArgsSchema = ObjectSchema;

// ---- tools and handlers ----

/** Everything a handler knows about the call it is answering. */
export type ToolContext = {
  /** The Pedelec session the call belongs to. */
  sessionId: string;
  /** Unique id of this call; the result is submitted under it. */
  toolRequestId: string;
  /** The tool's name. */
  tool: string;
  /** The turn (the sendText call) the agent made this call in. */
  turnId: string;
  /** When that turn started (unix ms). */
  turnStartedAt: number;
  /** When the page received this call (unix ms). */
  eventReceivedAt: number;
  /** When Core stops waiting for the result (unix ms); a later result is refused. */
  deadline: number;
  /** The tool's timeout in ms, as Core applies it. */
  timeoutMs: number;
  /** True when Core sent this call again to a page that resumed the session. */
  redelivered: boolean;
  /**
   * Aborts when the result is no longer wanted: the deadline passed, Core
   * settled the call (timeout, session ended) or the session ended. Use it
   * to close a modal or cancel a fetch. `signal.reason` is a PedelecError
   * (TOOL_TIMEOUT or SESSION_ENDED). The SDK cannot stop your JavaScript:
   * check the signal yourself.
   */
  signal: AbortSignal;
};

// The method-shaped type makes handler parameters bivariant, so a handler
// may annotate the arguments it expects ((args: {delta: number}) => ...)
// even where the definition leaves them unknown: agent arguments are
// untrusted at run time either way, and the seeds show exactly that style.
type Bivariant<F extends (...args: never[]) => unknown> = { fn(...args: Parameters<F>): ReturnType<F> }["fn"];

/** A handler for one tool: may be sync or async; its value is submitted as the result. */
export type ToolSpecificHandler<TArgs = unknown, TResult = unknown> = Bivariant<
  (args: TArgs, ctx: ToolContext) => TResult | Promise<TResult>
>;

/** The generic fallback handler: receives every call that has no named or inline handler. */
export type GenericToolHandler<TName extends string = string> = (
  tool: TName,
  args: unknown,
  ctx: ToolContext,
) => unknown;

/** A tool the page offers the agent. Only name, description, argsSchema and timeoutMs leave the page. */
export type ToolDefinition<TArgs = unknown, TResult = unknown, TName extends string = string> = {
  name: TName;
  description: string;
  argsSchema: ToolArgsSchema;
  timeoutMs?: number;
  handler?: ToolSpecificHandler<TArgs, TResult>;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyToolDefinition = ToolDefinition<any, any, string>;

/** What an application declares when it creates a session. */
export type SkillsInput<TTools extends readonly AnyToolDefinition[] = readonly AnyToolDefinition[]> = {
  guidance: string;
  tools: TTools;
};

/** The union of tool names of a tools array (`string` when the array is not literal). */
export type ToolName<TTools extends readonly AnyToolDefinition[]> = TTools[number]["name"];

type DefinitionNamed<TTools extends readonly AnyToolDefinition[], N extends string> = Extract<
  TTools[number],
  { name: N }
>;

/** The argument type a tool's definition declares (unknown when none). */
export type ToolArgs<TTools extends readonly AnyToolDefinition[], N extends string> =
  DefinitionNamed<TTools, N> extends ToolDefinition<infer A, unknown, string> ? A : unknown;

/** The result type a tool's definition declares (unknown when none). */
export type ToolResult<TTools extends readonly AnyToolDefinition[], N extends string> =
  DefinitionNamed<TTools, N> extends ToolDefinition<unknown, infer R, string> ? R : unknown;

/** The plain JSON form of one tool: what Core and `pedelec validate-tools` see. */
export type ToolManifestEntry = {
  name: string;
  description: string;
  argsSchema: JsonValue;
  timeoutMs?: number;
};

/** The plain JSON form of skills, handlers stripped. */
export type SkillsManifest = {
  guidance: string;
  tools: ToolManifestEntry[];
};

// ---- sessions ----

export type SessionStatus = "idle" | "running" | "waiting_tool_result" | "ended" | "error";

export type PendingTool = { toolRequestId: string; tool: string };

export type StatusEvent = {
  status: SessionStatus;
  previousStatus: SessionStatus;
  /** "core" when Core reported the change, "sdk" when the page knew first. */
  source: "sdk" | "core";
  /** While waiting_tool_result: the calls the agent waits on, oldest first. */
  waitingOn: PendingTool[];
};

export type ChatEvent = {
  turnId: string;
  /** The new text of this delta. */
  delta: string;
  /** The assistant's whole message for this turn so far (all deltas joined). */
  text: string;
};

/** Why a session ended: the page ended it, the page went away (with
 * autoEndOnDisconnect), Core stopped, or a detached session was not resumed
 * within Core's resume window. Other strings may come from newer Cores. */
export type EndReason = "end_session" | "disconnect" | "shutdown" | "resume_window_expired" | (string & {});

export type EndedEvent = {
  reason: EndReason;
};

/** What sendText and prepare resolve with once the turn's done event arrives. */
export type TurnResult = {
  turnId: string;
  startedAt: number;
  /** The assistant's whole message for this turn. */
  text: string;
};

export type ProviderInfo = {
  name: string;
  available: boolean;
  version?: string;
  path?: string;
  /** Why the provider is unavailable. */
  reason?: string;
  defaultModel?: string;
  description?: string;
};

export type ProviderList = {
  providers: ProviderInfo[];
  defaultProvider: string;
};

export type CreateSessionOptions<TTools extends readonly AnyToolDefinition[]> = {
  /** Provider name (codex, claude, openai, script, ...); Core's default when omitted. */
  provider?: string;
  model?: string;
  skills: SkillsInput<TTools>;
  /** End the session when this page disconnects (default true). */
  autoEndOnDisconnect?: boolean;
};

export type ResumeSessionOptions<TTools extends readonly AnyToolDefinition[]> = {
  /** The same tool definitions the page declared, to restore their inline handlers. */
  tools?: TTools;
};

export type PedelecOptions = {
  /**
   * Where Core is: a ws(s):// or http(s):// URL; a base URL gets /ws appended.
   * Default: the Core that served this module when it was imported from
   * /sdk/pedelec.js, else ws://127.0.0.1:7077/ws.
   */
  url?: string;
};

export type Listener<T> = (event: T) => void;
export type Disposer = () => void;
export type ErrorListener = Listener<PedelecError>;
