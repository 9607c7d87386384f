// @kaoruisaac/pedelec: the Pedelec browser SDK. Generated from sdk/src by `npm run build`; do not edit.

/** Every error code Core, the CLI and the SDK use, in the order of docs/errors.md. */
export declare const ERROR_CODES: readonly [
	"INVALID_INPUT",
	"UNKNOWN_METHOD",
	"MESSAGE_TOO_LARGE",
	"ORIGIN_NOT_ALLOWED",
	"HOST_NOT_ALLOWED",
	"SESSION_BUSY",
	"SESSION_ENDED",
	"CORE_SHUTTING_DOWN",
	"THREAD_NOT_FOUND",
	"THREAD_ACCESS_DENIED",
	"PROVIDER_NOT_FOUND",
	"PROVIDER_UNAVAILABLE",
	"PROVIDER_ERROR",
	"PROVIDER_TIMEOUT",
	"MODEL_REQUIRED",
	"MODEL_NOT_FOUND",
	"ENDPOINT_UNREACHABLE",
	"AUTH_FAILED",
	"BAD_MODEL_RESPONSE",
	"STEP_LIMIT_REACHED",
	"OLLAMA_UNAVAILABLE",
	"OLLAMA_AUTH_FAILED",
	"TOOL_NOT_FOUND",
	"TOOL_ARGS_INVALID",
	"TOOL_TIMEOUT",
	"TOOL_CALL_CANCELLED",
	"TOOL_REQUEST_NOT_PENDING",
	"TOO_MANY_PENDING_CALLS",
	"NO_ACTIVE_TURN",
	"TOOL_HANDLER_NOT_FOUND",
	"TOOL_HANDLER_ERROR",
	"TOOL_RESULT_INVALID",
	"TOOL_REFUSED",
	"SUBMIT_TOOL_RESULT_FAILED",
	"TOOL_CALL_PENDING",
	"TOOL_CALL_NOT_WAITABLE",
	"CORE_UNREACHABLE",
	"CORE_NOT_AUTHENTIC",
	"CORE_KEY_STORE_FAILED",
	"NOT_IN_SESSION",
	"INTERNAL",
	"SEND_TEXT_NOT_SUPPORTED",
	"CORE_TOKEN_INVALID",
	"DEFAULT_PROVIDER_NOT_SET",
	"DEFAULT_PROVIDER_UNAVAILABLE",
	"SDK_BRIDGE_TIMEOUT",
	"SDK_PROTOCOL_ERROR",
	"PEER_NOT_ALLOWED",
	"INVALID_FRAME",
	"TOO_MANY_SESSIONS",
	"TOO_MANY_CONNECTION_SESSIONS",
	"TOO_MANY_TOOLS",
	"TOOL_NAME_TOO_LONG",
	"DESCRIPTION_TOO_LONG",
	"GUIDANCE_TOO_LONG",
	"SCHEMA_TOO_LARGE",
	"SCHEMA_TOO_DEEP",
	"ASSET_PATH_INVALID",
	"ASSET_NOT_FOUND",
	"ASSET_NOT_FILE",
	"ASSET_TOO_LARGE",
	"ASSET_QUOTA_EXCEEDED",
	"ASSET_READ_TOO_LARGE",
	"ASSET_UPLOAD_BUSY",
	"ASSET_UPLOAD_SERVER_UNAVAILABLE",
	"ASSET_UPLOAD_TICKET_EXPIRED",
	"ASSET_UPLOAD_UNAUTHORIZED",
	"ASSET_UPLOAD_SIZE_MISMATCH",
	"ASSET_UPLOAD_FAILED",
	"ASSET_LIST_FAILED",
	"ASSET_DOWNLOAD_TICKET_EXPIRED",
	"ASSET_DOWNLOAD_UNAUTHORIZED",
	"ASSET_READ_FAILED",
	"ASSET_TEXT_DECODE_FAILED",
	"ASSET_INVALID_JSON",
	"TURN_INTERRUPTED",
	"EVENTS_TRUNCATED",
	"BATCH_TOO_LARGE",
	"APPROVAL_REJECTED",
	"APPROVAL_TIMEOUT",
	"OPEN_POPUP_FAILED",
	"CREATE_SESSION_NOT_APPROVED",
	"APPROVAL_NOT_FOUND",
	"APPROVER_NOT_ALLOWED",
	"TOOL_CALL_DENIED",
	"TOOL_CONSENT_TIMEOUT",
	"ADDR_IN_USE"
];
/** A stable upper-snake error code. Unknown codes from a newer Core still arrive as strings. */
export type ErrorCode = (typeof ERROR_CODES)[number];
/** The wire shape of a failure. */
export type PedelecErrorData = {
	code: ErrorCode | (string & {});
	message: string;
	details?: unknown;
};
/**
 * The original SDK's PedelecError: a plain object type, so test doubles
 * (`const e: PedelecError = {code, message}`) compile. Narrow by `code`;
 * `details` has no global shape.
 */
export type PedelecError = {
	code: string;
	message: string;
	details?: unknown;
};
/**
 * What every SDK promise rejects with and every onError listener receives:
 * a real Error (so devtools, Playwright and test runners show
 * "PedelecError: CODE: message" with its stack, not a bare class name) that
 * is also the original's PedelecError shape: code, message and details are
 * own enumerable fields, so `{...err}` and `JSON.stringify(err)` keep them.
 * structuredClone and postMessage copy an Error as name, message and stack
 * only: post `err.toJSON()` to keep the code (docs/sdk.md, "Errors").
 */
export declare class PedelecSdkError extends Error {
	readonly code: ErrorCode | (string & {});
	readonly message: string;
	readonly details?: unknown;
	constructor(code: ErrorCode | (string & {}), message: string, details?: unknown);
	/** Builds a PedelecSdkError from a wire error object (or anything else). */
	static from(value: unknown): PedelecSdkError;
	/** The plain JSON form, as it travels on the wire. */
	toJSON(): PedelecErrorData;
	/** "PedelecError: CODE: message", as an Error prints. */
	toString(): string;
}
/**
 * The value of the same name: the class, so `new PedelecError(code,
 * message)`, `PedelecError.from(x)` and `err instanceof PedelecError` keep
 * working; the type of the same name is the original's plain object.
 */
export declare const PedelecError: typeof PedelecSdkError;
/** The recommended shape of a tool's error result (a normal result, not a throw). */
export type ToolErrorResult = {
	error: {
		code: string;
		message: string;
		details?: unknown;
		retryable?: boolean;
	};
};
/**
 * The original SDK's provider codes, exactly: what listProviders() and
 * getSettings() report unless asked for all (AnyProviderCode).
 */
export type ProviderCode = "codex" | "antigravity" | "opencode" | "cursor" | "claude" | "ollama";
/**
 * Every provider Core registers: the original's six and Pedelec Core's
 * own. createSession() takes any of them; listProviders({all: true})
 * lists them.
 */
export type AnyProviderCode = ProviderCode | "gemini" | "copilot" | "openai" | "qwen" | "claude-acp" | "codex-acp" | "script" | "mcp";
/** The original's codes, for filtering at run time. */
export declare const ORIGINAL_PROVIDER_CODES: readonly ProviderCode[];
/** Each provider's name for a person, for a provider picker. */
export declare const PROVIDER_TITLES: Readonly<Record<AnyProviderCode, string>>;
export type JsonPrimitive = string | number | boolean | null;
/** A plain JSON value: what a tool result, an argument or a manifest may contain. */
export type JsonValue = JsonPrimitive | JsonValue[] | {
	[key: string]: JsonValue;
};
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
	properties?: {
		readonly [name: string]: ToolArgsSchemaNode;
	};
	required?: readonly string[];
};
export type ToolArgsOneOfSchema = ToolArgsSchemaMeta & {
	oneOf: readonly ToolArgsSchemaNode[];
};
/** One node of an argument schema. */
export type ToolArgsSchemaNode = ToolArgsStringSchema | ToolArgsNumberSchema | ToolArgsIntegerSchema | ToolArgsBooleanSchema | ToolArgsArraySchema | ToolArgsObjectSchema | ToolArgsOneOfSchema;
/** The root of a tool's argument schema: always an object schema, even for no arguments. */
export type ToolArgsSchema = ToolArgsObjectSchema;
/**
 * Pedelec Core addition: any JSON Schema of draft 2020-12 (the default) or
 * draft-07, as WebMCP, MCP, Zod's z.toJSONSchema() and TypeBox write it.
 * Core checks every keyword; see docs/schema.md.
 */
export type JsonSchema = {
	readonly [keyword: string]: unknown;
};
/** Pedelec Core addition: a JSON Schema whose root is an object schema, as arguments and declared results are. */
export type JsonObjectSchema = JsonSchema & {
	readonly type: "object";
};
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
export type PendingTool = {
	toolRequestId: string;
	tool: string;
	approvalId?: string;
};
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
	progress?: ToolProgress & {
		toolRequestId: string;
		tool: string;
	};
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
export type AgentActivity = {
	toolCallId: string;
	title: string;
	kind?: string;
	status: string;
	reason?: string;
};
/**
 * Pedelec Core addition (issue 26): how far a running call is, the fields
 * of MCP's notifications/progress. progress grows with each report; total
 * is where it ends, when known; message says what is happening.
 */
export type ToolProgress = {
	progress: number;
	total?: number;
	message?: string;
};
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
type Bivariant<F extends (...args: never[]) => unknown> = {
	fn(...args: Parameters<F>): ReturnType<F>;
}["fn"];
/** A handler for one tool: may be sync or async; its value is submitted as the result. */
export type ToolSpecificHandler<TArgs = unknown, TResult = unknown> = Bivariant<(args: TArgs, ctx: ToolCallContext) => TResult | Promise<TResult>>;
/** The generic fallback handler: receives every call that has no named or inline handler. */
export type GenericToolHandler<TName extends string = string> = (tool: TName, args: unknown, ctx: ToolCallContext) => unknown | Promise<unknown>;
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
export type AnyToolDefinition = ToolDefinition<any, any, string> | InputSchemaToolDefinition<any, any, string>;
/** What an application declares when it creates a session. */
export type SkillsInput<TTools extends readonly AnyToolDefinition[] = readonly ToolDefinition[]> = {
	guidance: string;
	tools: TTools;
};
/** The union of tool names of a tools array (`string` when the array is not literal). */
export type ToolNameOf<TTools extends readonly AnyToolDefinition[]> = Extract<TTools[number]["name"], string>;
type DefinitionNamed<TTools extends readonly AnyToolDefinition[], N extends string> = Extract<TTools[number], {
	name: N;
}>;
/** Pedelec Core addition: the argument type a tool's definition declares (unknown when none). */
export type ToolArgs<TTools extends readonly AnyToolDefinition[], N extends string> = DefinitionNamed<TTools, N> extends ToolDefinitionFields<infer A, unknown, string> ? A : unknown;
/** Pedelec Core addition: the result type a tool's definition declares (unknown when none). */
export type ToolResult<TTools extends readonly AnyToolDefinition[], N extends string> = DefinitionNamed<TTools, N> extends ToolDefinitionFields<unknown, infer R, string> ? R : unknown;
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
/** Pedelec Core addition: listProviders()'s and getSettings()'s option. */
export type ProviderListOptions = {
	/** true: every provider Core has (AnyProviderCode), not only the original's six. */
	all?: boolean;
};
/**
 * createSession's input. The union forbids `model` without `provider`
 * (runtime validation rejects it too, with INVALID_INPUT).
 */
export type CreateSessionInput<TTools extends readonly AnyToolDefinition[] = readonly ToolDefinition[], 
/** Pedelec Core addition: createSession() itself takes AnyProviderCode. */
TProvider extends string = ProviderCode> = {
	provider: TProvider;
	model?: string;
	skills?: SkillsInput<TTools>;
	/** End the session when this page disconnects (default true). */
	autoEndOnDisconnect?: boolean;
} & WebMCPSessionOptions & FollowPageOptions | ({
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
	extension: {
		available: boolean;
	};
	approval: {
		approved: boolean;
		origin: string | null;
	};
	desktop: {
		available: boolean;
		launchAttempted: boolean;
	};
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
/**
 * One agent session. TToolName narrows onTool(name, ...) to the declared
 * tool names; TTools (a Pedelec Core addition) lets a named handler's
 * arguments be typed from the definition.
 */
export declare class PedelecSession<TToolName extends string = string, TTools extends readonly AnyToolDefinition[] = readonly ToolDefinition[]> {
	/** Core's id for this session; keep it to resumeSession() after a reload. */
	readonly sessionId: string;
	/** The provider running the agent (codex, claude, openai, script, ...). */
	readonly provider: string;
	/** The model, when one was chosen (explicitly or by Core's configuration). */
	readonly model?: string;
	/** When this session object was constructed (browser Date.now()). */
	readonly sessionCreatedAt: number;
	/** Pedelec Core addition: the tool names Core registered for this session. */
	readonly tools: readonly string[];
	/** Pedelec Core addition: whether Core ends the session when this page disconnects. */
	readonly autoEndOnDisconnect: boolean;
	/** Pedelec Core addition: how long Core waits for the next page before a disconnect ends the session (followPage); 0 without. */
	readonly disconnectGraceMs: number;
	private readonly state;
	private readonly turns;
	private readonly calls;
	private readonly reconnect;
	/**
	 * Starts one user turn. Resolves when the turn is over; rejects with the
	 * turn's error, SESSION_BUSY when a turn is already running (one at a
	 * time), or SESSION_ENDED when the session ends first. The text arrives
	 * through onChat; sendTurn() also resolves with it.
	 */
	sendText(text: string): Promise<void>;
	/**
	 * Pedelec Core addition: sendText that resolves with the turn's record,
	 * {turnId, startedAt, text}, text being the whole assistant message.
	 */
	sendTurn(text: string): Promise<TurnResult>;
	/**
	 * Warms the provider up before the first user turn; its chat is not
	 * delivered. Idempotent once it succeeded; concurrent callers share one
	 * promise. SESSION_BUSY during a user turn, SESSION_ENDED after end.
	 */
	prepare(): Promise<void>;
	/**
	 * Ends the session: Core stops its provider and fails its pending calls.
	 * Resolves at once on an ended session. When Core cannot be told, it
	 * reports the error through onError, rejects, and the session stays as it was.
	 */
	end(): Promise<void>;
	/**
	 * True while the connection to Core is lost and the SDK is reconnecting
	 * (status "error", an onError CORE_UNREACHABLE with details.reconnecting).
	 * When Core is back the session is resumed by itself, the events it
	 * missed are replayed, and the status becomes Core's again.
	 */
	isReconnecting(): boolean;
	/**
	 * The current status, one of the original's five: idle, running,
	 * waiting_tool_result (a call waiting for the user's consent included),
	 * ended or error (reconnecting included). getDetailedStatus() tells more.
	 */
	getStatus(): PedelecSessionStatus;
	/**
	 * Pedelec Core addition: the status with Core's consent state:
	 * "waiting_approval" while a call waits for the user's consent
	 * (getWaitingOn() lists it with its approvalId), or while a reconnect
	 * waits for this origin's approval (getOriginApproval()).
	 */
	getDetailedStatus(): PedelecDetailedStatus;
	/**
	 * Pedelec Core addition: the origin approval this session waits for
	 * while it reconnects ({origin, requestId, url, error?}; error is
	 * OPEN_POPUP_FAILED when the window was blocked), or null.
	 */
	getOriginApproval(): ApprovalPending | null;
	/**
	 * Pedelec Core addition: the calls the agent waits on right now (while
	 * waiting_tool_result), oldest first; each with its approvalId while it
	 * waits for the user's consent (detailed status waiting_approval).
	 */
	getWaitingOn(): PendingTool[];
	/** Streams the assistant's text of user turns: (delta, ctx); ctx.text is the turn's message so far. */
	onChat(handler: (text: string, ctx: ChatEventContext) => void): () => void;
	/** Status changes, deduplicated; not called with the initial status (use getStatus()). */
	onStatus(handler: (status: PedelecSessionStatus, ctx: StatusEventContext) => void): () => void;
	/**
	 * Errors that belong to no promise: Core's error events (ctx.source
	 * "core"), a result that could not be submitted (SUBMIT_TOOL_RESULT_FAILED:
	 * Core refused it, or it is not JSON), a lost connection, a failed end().
	 * A handler that throws, or no handler, is told to the agent only.
	 */
	onError(handler: (error: PedelecError, ctx: ErrorEventContext) => void): () => void;
	/** Called once when the session first becomes ended. */
	onEnded(handler: (ctx: EndedEventContext) => void): () => void;
	/** Registers the generic fallback for tools that have no named or inline handler. */
	onTool(handler: GenericToolHandler<TToolName>): () => void;
	/**
	 * Registers the handler for one tool; it overrides the definition's
	 * inline handler. Its arguments are typed from the definition when the
	 * session knows it; its result is free (a domain error is a result too).
	 */
	onTool<N extends TToolName>(toolName: N, handler: ToolSpecificHandler<ToolArgs<TTools, N>, unknown>): () => void;
	onTool<TArgs = unknown, TResult = unknown>(toolName: TToolName, handler: ToolSpecificHandler<TArgs, TResult>): () => void;
	/**
	 * Uploads a File (at most 100 MiB) to the session's assets/ directory, at
	 * "/" + file.name or at targetPath (parents are created, a regular file
	 * replaced). Resolves with the asset's path. One upload at a time.
	 */
	uploadAsset(file: File): Promise<SandboxAssetPath>;
	uploadAsset(file: File, targetPath: SandboxAssetPath): Promise<SandboxAssetPath>;
	/** Every regular file in assets/, at every level, newest first, then by name. */
	listAssets(): Promise<SandboxAsset[]>;
	/** Reads an asset as strict UTF-8 text, parsed JSON, or a File (name, MIME type, mtime). */
	readAsset(path: SandboxAssetPath, type: "text"): Promise<string>;
	readAsset<T = JsonValue>(path: SandboxAssetPath, type: "json"): Promise<T>;
	readAsset(path: SandboxAssetPath, type: "file"): Promise<File>;
	private assetSession;
}
export declare class Pedelec {
	/** Pedelec Core addition: Core's WebSocket URL this client talks to. */
	readonly url: string;
	private readonly connection;
	private readonly sessions;
	private readonly reconnector;
	private closed;
	private readonly onApprovalPending?;
	/** The approval this client waits for, shared by concurrent calls. */
	private approval;
	/** The approval window that wait is for, once Core named it. */
	private pending;
	/** resumeSession() calls in flight, by session id: a second one shares the first's handle. */
	private readonly resuming;
	/** listProviders()/getSettings() report every provider, not only the original's six. */
	private readonly allProviders;
	/**
	 * Connects lazily: nothing is sent until the first call. With no options
	 * it reaches Core at its default address (or the Core that served this
	 * module).
	 */
	constructor(options?: PedelecOptions);
	/**
	 * The providers, available or not: {name, code, available, error}. Only
	 * the original SDK's six codes unless asked for all: `{all: true}`
	 * (Pedelec Core addition) adds Core's own (script, openai, ...), typed
	 * AnyProviderCode, so code written for the six never meets another.
	 */
	listProviders(): Promise<ProviderInfo[]>;
	listProviders(options: ProviderListOptions & {
		all: true;
	}): Promise<ProviderInfo<AnyProviderCode>[]>;
	listProviders(options?: ProviderListOptions): Promise<ProviderInfo<AnyProviderCode>[]>;
	/**
	 * Pedelec Core addition: Core's whole answer: each provider's version,
	 * path, reason, default model and description, and the default provider.
	 */
	listProviderDetails(): Promise<ProviderList>;
	/**
	 * The defaults Core's configuration gives: the default provider and each
	 * provider's default model, of the original's six providers unless asked
	 * for all (`{all: true}`, Pedelec Core addition): a default that is one of
	 * Core's own providers is then null, as "no default" (createSession()
	 * without a provider still uses it).
	 */
	getSettings(): Promise<PedelecSettings>;
	getSettings(options: ProviderListOptions & {
		all: true;
	}): Promise<PedelecSettings<AnyProviderCode>>;
	getSettings(options?: ProviderListOptions): Promise<PedelecSettings<AnyProviderCode>>;
	/**
	 * Whether this page may use Core. Never rejects because Core is down or
	 * refuses the origin: those are answers ({installed: false} or
	 * {approved: false}). Other failures reject.
	 */
	getApprovalStatus(): Promise<ApprovalStatus>;
	/**
	 * Checks every layer without creating anything: Core answers, this
	 * origin is allowed, and (only then) Core answers a settings request.
	 * Never rejects; a failure is in `error`.
	 */
	checkAvailability(): Promise<PedelecAvailability>;
	/**
	 * Creates a session. With no provider, Core's default provider (and its
	 * default model); DEFAULT_PROVIDER_NOT_SET when there is none,
	 * DEFAULT_PROVIDER_UNAVAILABLE when it cannot run here. A model without a
	 * provider is INVALID_INPUT. The tool definitions are checked here first,
	 * and any problem rejects with INVALID_INPUT (details.problems lists every
	 * one) before anything is sent. Handlers stay in the page.
	 */
	createSession(): Promise<PedelecSession<string>>;
	createSession<const TTools extends readonly AnyToolDefinition[]>(input: CreateSessionInput<TTools, AnyProviderCode>): Promise<PedelecSession<ToolNameOf<TTools>, TTools>>;
	/**
	 * The session this tab followed from its previous page, resumed with
	 * this page's tools, or null when there is none or it ended meanwhile.
	 */
	private resumeFollowed;
	/**
	 * Attaches to an existing session (after a reload, with
	 * autoEndOnDisconnect: false). Register the handlers again right after it
	 * resolves, or pass the same tool definitions to restore their inline
	 * handlers (a Pedelec Core addition): calls still pending in Core are
	 * delivered again.
	 */
	resumeSession<const TTools extends readonly AnyToolDefinition[] = readonly ToolDefinition[]>(sessionId: string, options?: ResumeSessionOptions<TTools>): Promise<PedelecSession<string, TTools>>;
	/** resumeSession, with the router follow.ts gives for the calls the previous page was running. */
	private resumeRouted;
	/**
	 * Sends one request of Core's WebSocket protocol (docs/protocol.md) and
	 * resolves with its result. `T` is not checked. Prefer the typed methods.
	 * For the original's `request("create_session", {input})`, the input is
	 * unwrapped into Core's parameters.
	 */
	request<T>(type: string, payload?: Record<string, unknown>): Promise<T>;
	/** get_approval_status; a Core from before approvals that answers at all approved the origin. */
	private approvalAnswer;
	/**
	 * Waits until this page's origin may use Core. An origin Core does not
	 * know yet asks the user: the approval window opens (window.open; the
	 * call usually follows a click, so the browser lets it), and the call
	 * waits for the decision (concurrent calls share one wait):
	 * APPROVAL_REJECTED, APPROVAL_TIMEOUT. A blocked window is reported to
	 * onApprovalPending (and the console) as OPEN_POPUP_FAILED with the URL,
	 * and the call keeps waiting. A reconnect's resume waits here too, with
	 * no click before it, so its window is usually the blocked kind.
	 */
	private ensureApproved;
	private waitForApproval;
	/**
	 * The approval step of a reconnect. While the user decides, the sessions
	 * say so (status waiting_approval, still reconnecting); a rejection or a
	 * timeout ends them with that error; a Core still away is retried.
	 */
	private reconnectApproval;
	private tellSessions;
	/**
	 * Pedelec Core addition: forgets the Core this page trusts. The page
	 * remembers the key of the Core that first approved it and refuses any
	 * other (CORE_NOT_AUTHENTIC); after Core's state directory was reset on
	 * purpose, call this once, and the next connection trusts the Core it
	 * finds, as the first one did.
	 */
	forgetCore(): void;
	/** Pedelec Core addition: closes the connection; sessions with autoEndOnDisconnect end. */
	close(): void;
	private track;
}
/** The part of Standard Schema v1 Pedelec reads; any library's schema object that implements it fits. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
	readonly "~standard": {
		readonly version: 1;
		readonly vendor: string;
		readonly types?: {
			readonly input: Input;
			readonly output: Output;
		} | undefined;
		readonly jsonSchema?: {
			readonly input: (options: {
				readonly target: string;
			}) => Record<string, unknown>;
		};
	};
}
/** The arguments type a Standard Schema describes: its input type. */
export type StandardSchemaInput<S> = S extends StandardSchemaV1<infer I, unknown> ? I : unknown;
/** Whether v is a Standard Schema object rather than plain JSON Schema. */
export declare function isStandardSchema(v: unknown): v is StandardSchemaV1;
/** Pedelec Core addition: a definition whose inputSchema is a Standard Schema object (Zod 4, ...). */
export type StandardToolDefinition<S extends StandardSchemaV1, TResult = unknown, TName extends string = string> = ToolDefinitionFields<StandardSchemaInput<S>, TResult, TName> & {
	inputSchema: S;
	argsSchema?: undefined;
};
/**
 * Declares a tool. It returns the definition unchanged, but for an
 * inputSchema given as a Standard Schema object (Zod 4's z.object(...),
 * and any library implementing "~standard" with its JSON Schema export),
 * which becomes its JSON Schema; the handler's arguments are then typed
 * from the schema. Its value is type inference (the literal name, the
 * handler's argument and result types) and one consistent way to write
 * tools. The rules are checked when the tools are used to create a session.
 *
 * With explicit generics (defineTool<Args, Result>(...)) TypeScript cannot
 * also infer the name; pass it as the third generic to keep the literal.
 */
export declare function defineTool<TArgs = unknown, TResult = unknown, const TName extends string = string, const S extends StandardSchemaV1 | JsonObjectSchema | undefined = undefined>(definition: S extends StandardSchemaV1 ? StandardToolDefinition<S, TResult, TName> : S extends JsonObjectSchema ? InputSchemaToolDefinition<TArgs, TResult, TName> & {
	inputSchema: S;
} : ToolDefinition<TArgs, TResult, TName> & {
	inputSchema?: S;
}): S extends StandardSchemaV1 ? InputSchemaToolDefinition<StandardSchemaInput<S>, TResult, TName> : S extends JsonObjectSchema ? InputSchemaToolDefinition<TArgs, TResult, TName> : ToolDefinition<TArgs, TResult, TName>;
/** The consent rule Core applies (schema.Tool.AsksConsent): whether a call of tool waits for the user. */
export declare function asksConsent(tool: Pick<ToolDefinitionFields, "annotations" | "needsApproval">): boolean;
/**
 * Returns the plain JSON manifest of skills, handlers stripped: exactly
 * what Core receives. Write it to a file and check it in your own CI with
 * `pedelec validate-tools manifest.json`. Throws INVALID_INPUT only when
 * the definitions cannot be JSON at all (a function inside argsSchema, a
 * cycle, ...); the other rules are for validate-tools and createSession.
 */
export declare function toManifest(skills: SkillsInput<readonly AnyToolDefinition[]>): SerializableSkillsManifest;
/** What a handler says when it refuses a call. */
export type ToolRefusalInput = {
	/** The page's own code, upper-snake: "OUT_OF_STOCK", "NOT_SIGNED_IN". */
	code: string;
	/** Why, written for the agent (and through it the user). */
	message: string;
	/** true: the same call may succeed later; false (default): retrying will not help. */
	retryable?: boolean;
};
declare const BRAND: unique symbol;
/** The error `refuse()` builds; a handler throws it. */
export declare class ToolRefusal extends Error {
	readonly code: string;
	readonly retryable: boolean;
	readonly [BRAND] = true;
	constructor(input: ToolRefusalInput);
	toJSON(): {
		code: string;
		message: string;
		retryable: boolean;
	};
}
/**
 * Builds a refusal for a handler to throw: `throw refuse({code:
 * "OUT_OF_STOCK", message: "Item 42 is sold out", retryable: false})`.
 * A malformed refusal is the page's bug and throws INVALID_INPUT here,
 * where it is written.
 */
export declare function refuse(input: ToolRefusalInput): ToolRefusal;
/** MCP's annotations of a content block. */
export type McpAnnotations = {
	audience?: ("user" | "assistant")[];
	priority?: number;
	lastModified?: string;
};
type BlockExtras = {
	annotations?: McpAnnotations;
	_meta?: {
		[key: string]: JsonValue;
	};
};
/** One MCP content block a tool result may hold; Core checks each (a known type, its required fields). */
export type McpContentBlock = BlockExtras & ({
	type: "text";
	text: string;
} | {
	type: "image";
	data: string;
	mimeType: string;
} | {
	type: "audio";
	data: string;
	mimeType: string;
} | {
	type: "resource_link";
	uri: string;
	name: string;
	title?: string;
	description?: string;
	mimeType?: string;
	size?: number;
} | {
	type: "resource";
	resource: {
		uri: string;
		mimeType?: string;
		text: string;
	} | {
		uri: string;
		mimeType?: string;
		blob: string;
	};
});
/** An MCP CallToolResult, as a handler returns it with mcpResult(). */
export type McpToolResult = {
	content: McpContentBlock[];
	structuredContent?: {
		[key: string]: JsonValue;
	};
	isError?: boolean;
};
declare const BRAND$1: unique symbol;
/** A handler's answer made with mcpResult(). */
export type McpResult = McpToolResult & {
	readonly [BRAND$1]: true;
};
/**
 * Marks a handler's answer as MCP content: `return mcpResult({content:
 * [{type: "image", data, mimeType: "image/png"}], structuredContent})`.
 * MCP clients get these blocks as they are; `pedelec tool-call` gets what
 * they mean (structuredContent, else the text, else the blocks), and
 * isError: true is the handler's error with the text as its message.
 */
export declare function mcpResult(result: McpToolResult): McpResult;
export declare const DEFAULT_URL = "ws://127.0.0.1:7077/ws";
/** The limit of one upload and of one read: 100 MiB. */
export declare const MAX_ASSET_BYTES: number;
/** WebMCP's tool annotations (the draft's two, plus MCP's hints a page may add). */
export type WebMCPAnnotations = {
	readOnlyHint?: boolean;
	untrustedContentHint?: boolean;
	[hint: string]: unknown;
};
/** What a page passes to document.modelContext.registerTool (the draft's ModelContextTool). */
export type WebMCPTool = {
	name: string;
	title?: string;
	description: string;
	/** A JSON Schema object; Pedelec sessions take its supported subset (docs/webmcp.md). */
	inputSchema?: object;
	/** Called with the agent's input; Pedelec passes {signal} too, aborted when the agent cancels. */
	execute: (input: Record<string, unknown>, options?: {
		signal?: AbortSignal;
	}) => unknown;
	annotations?: WebMCPAnnotations;
};
/** registerTool's second argument (the draft's ModelContextRegisterToolOptions). */
export type WebMCPRegisterOptions = {
	/** Aborting it unregisters the tool. */
	signal?: AbortSignal;
	/** Origins of other documents in this page's tree the tool is shown to; accepted and checked, no Pedelec meaning. */
	exposedTo?: string[];
};
/** The draft's ModelContext, as native browsers and the SDK's polyfill provide it. */
export type ModelContextLike = {
	registerTool(tool: WebMCPTool, options?: WebMCPRegisterOptions): Promise<undefined>;
	ontoolchange?: ((ev: Event) => unknown) | null;
	addEventListener?: EventTarget["addEventListener"];
};
/**
 * Makes document.modelContext (and navigator.modelContext) usable and
 * visible to Pedelec, once; later calls return the same object. Where the
 * browser has a modelContext, it stays the browser's: its registerTool is
 * wrapped so each registration is also recorded for Pedelec sessions,
 * and where the browser lets the page enumerate its tools (getTools), the
 * ones registered before this call and the declarative <form toolname>
 * ones are read from it. Where it has none, the SDK's polyfill is
 * installed, and the document's <form toolname> tools are followed.
 * Returns undefined outside a browser.
 */
export declare function installModelContext(): ModelContextLike | undefined;
/**
 * Pedelec Core addition: offers one more tool to a live session, until the
 * returned disposer is called (then the agent gets TOOL_NOT_FOUND for it).
 * The definition is checked as createSession checks its tools
 * (INVALID_INPUT); its inline handler answers the calls. Core gets the
 * session's whole new list (update_tools) once per burst of changes.
 */
export declare function addTool(session: PedelecSession<string, readonly AnyToolDefinition[]> | PedelecSession<string, any>, definition: AnyToolDefinition): Disposer;
/** How long Core keeps a following session after its page went away (the next page must load within it). */
export declare const FOLLOW_GRACE_MS = 10000;
/**
 * Pedelec Core addition: answers the calls that were running when the
 * previous page navigated away (a tool that submitted a form or followed
 * a link) with what this page knows: the answer's value is the call's
 * result (undefined: the default {navigated: true, url, ...}); a throw is
 * the handler's error. Register it as the page starts: a carried call
 * waits a second for an answer, then gets the default. Returns a disposer.
 */
export declare function onNavigatedCall(session: PedelecSession<string, any>, answer: (call: NavigatedCall) => unknown): Disposer;

export {};
