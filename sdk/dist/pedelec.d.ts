// @kaoruisaac/pedelec: the Pedelec browser SDK. Generated from sdk/src by `npm run build`; do not edit.

export declare const ERROR_CODES: readonly [
	"INVALID_INPUT",
	"UNKNOWN_METHOD",
	"MESSAGE_TOO_LARGE",
	"ORIGIN_NOT_ALLOWED",
	"HOST_NOT_ALLOWED",
	"SESSION_BUSY",
	"SESSION_ENDED",
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
	"TOOL_NOT_FOUND",
	"TOOL_ARGS_INVALID",
	"TOOL_TIMEOUT",
	"TOOL_REQUEST_NOT_PENDING",
	"TOO_MANY_PENDING_CALLS",
	"NO_ACTIVE_TURN",
	"TOOL_HANDLER_NOT_FOUND",
	"TOOL_HANDLER_ERROR",
	"TOOL_RESULT_INVALID",
	"SUBMIT_TOOL_RESULT_FAILED",
	"CORE_UNREACHABLE",
	"NOT_IN_SESSION",
	"INTERNAL",
	"ASSET_PATH_INVALID",
	"ASSET_NOT_FOUND",
	"ASSET_NOT_FILE",
	"ASSET_TOO_LARGE",
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
	"ASSET_INVALID_JSON"
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
 * The error every SDK promise rejects with and every onError listener
 * receives. `code` is stable; switch on it, not on `message`.
 */
export declare class PedelecError extends Error implements PedelecErrorData {
	readonly code: ErrorCode | (string & {});
	readonly details?: unknown;
	constructor(code: ErrorCode | (string & {}), message: string, details?: unknown);
	/** Builds a PedelecError from a wire error object (or anything else). */
	static from(value: unknown): PedelecError;
	/** The plain JSON form, as it travels on the wire. */
	toJSON(): PedelecErrorData;
}
/** The recommended shape of a tool's error result (a normal result, not a throw). */
export type ToolErrorResult = {
	error: {
		code: string;
		message: string;
		details?: unknown;
		retryable?: boolean;
	};
};
/** A plain JSON value: what a tool result, an argument or a manifest may contain. */
export type JsonValue = null | boolean | number | string | JsonValue[] | {
	[key: string]: JsonValue;
};
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
	properties?: {
		readonly [name: string]: SchemaNode;
	};
	required?: readonly string[];
};
export type OneOfSchema = NodeCommon & {
	oneOf: readonly SchemaNode[];
};
/** One node of an argument schema. */
export type SchemaNode = StringSchema | NumberSchema | BooleanSchema | ArraySchema | ObjectSchema | OneOfSchema;
/** The root of a tool's argument schema: always an object schema, even for no arguments. */
export type ToolArgsSchema = ObjectSchema;
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
type Bivariant<F extends (...args: never[]) => unknown> = {
	fn(...args: Parameters<F>): ReturnType<F>;
}["fn"];
/** A handler for one tool: may be sync or async; its value is submitted as the result. */
export type ToolSpecificHandler<TArgs = unknown, TResult = unknown> = Bivariant<(args: TArgs, ctx: ToolContext) => TResult | Promise<TResult>>;
/** The generic fallback handler: receives every call that has no named or inline handler. */
export type GenericToolHandler<TName extends string = string> = (tool: TName, args: unknown, ctx: ToolContext) => unknown;
/** A tool the page offers the agent. Only name, description, argsSchema and timeoutMs leave the page. */
export type ToolDefinition<TArgs = unknown, TResult = unknown, TName extends string = string> = {
	name: TName;
	description: string;
	argsSchema: ToolArgsSchema;
	timeoutMs?: number;
	handler?: ToolSpecificHandler<TArgs, TResult>;
};
export type AnyToolDefinition = ToolDefinition<any, any, string>;
/** What an application declares when it creates a session. */
export type SkillsInput<TTools extends readonly AnyToolDefinition[] = readonly AnyToolDefinition[]> = {
	guidance: string;
	tools: TTools;
};
/** The union of tool names of a tools array (`string` when the array is not literal). */
export type ToolName<TTools extends readonly AnyToolDefinition[]> = TTools[number]["name"];
type DefinitionNamed<TTools extends readonly AnyToolDefinition[], N extends string> = Extract<TTools[number], {
	name: N;
}>;
/** The argument type a tool's definition declares (unknown when none). */
export type ToolArgs<TTools extends readonly AnyToolDefinition[], N extends string> = DefinitionNamed<TTools, N> extends ToolDefinition<infer A, unknown, string> ? A : unknown;
/** The result type a tool's definition declares (unknown when none). */
export type ToolResult<TTools extends readonly AnyToolDefinition[], N extends string> = DefinitionNamed<TTools, N> extends ToolDefinition<unknown, infer R, string> ? R : unknown;
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
export type SessionStatus = "idle" | "running" | "waiting_tool_result" | "ended" | "error";
export type PendingTool = {
	toolRequestId: string;
	tool: string;
};
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
/** A path in the session's shared assets/ directory, e.g. "/results/report.json". */
export type SandboxAssetPath = `/${string}`;
/** What readAsset() turns the bytes into: strict UTF-8 text, parsed JSON, or a browser File. */
export type ReadAssetType = "text" | "json" | "file";
/** One regular file in the session's assets/ directory. */
export type SandboxAsset = {
	/** The basename, e.g. "report.json". */
	name: string;
	/** The public path rooted in assets/, e.g. "/results/report.json". */
	path: SandboxAssetPath;
	sizeBytes: number;
	/** The file system's modification time, in Unix milliseconds. */
	modifiedAt: number;
};
/** The limit of one upload and of one read: 100 MiB. */
export declare const MAX_ASSET_BYTES: number;
export declare class PedelecSession<TTools extends readonly AnyToolDefinition[] = readonly AnyToolDefinition[]> {
	/** Core's id for this session; keep it to resumeSession() after a reload. */
	readonly sessionId: string;
	/** The provider running the agent (codex, claude, openai, script, ...). */
	readonly provider: string;
	/** The model, when the provider has one. */
	readonly model: string | undefined;
	/** The tool names Core registered for this session. */
	readonly tools: readonly string[];
	/** Whether Core ends the session when this page disconnects. */
	readonly autoEndOnDisconnect: boolean;
	private readonly connection;
	private readonly registry;
	private readonly seq;
	private status;
	private waitingOn;
	private turn;
	private readonly earlyDone;
	private readonly otherTurns;
	private readonly calls;
	private ended;
	private detached;
	private readonly unsubscribe;
	private readonly chat;
	private readonly statusEmitter;
	private readonly errors;
	private readonly endedEmitter;
	/**
	 * Sends the user's message. Resolves when the turn is over (its done
	 * event), with the assistant's whole message; rejects with the turn's
	 * error, or SESSION_ENDED when the session ends first. SESSION_BUSY when
	 * a turn is already running: one turn at a time.
	 */
	sendText(text: string): Promise<TurnResult>;
	/** Warms the provider up with a turn whose chat is not delivered. */
	prepare(): Promise<TurnResult>;
	/** Ends the session: Core stops its provider and fails its pending calls. Safe to call twice. */
	end(): Promise<void>;
	/** The current status: idle, running, waiting_tool_result, ended or error. */
	getStatus(): SessionStatus;
	/** The calls the agent waits on right now (while waiting_tool_result), oldest first. */
	getWaitingOn(): PendingTool[];
	/** Streams the assistant's text, one delta at a time. */
	onChat(listener: Listener<ChatEvent>): Disposer;
	/** Status changes, deduplicated: {status, previousStatus, source, waitingOn}. */
	onStatus(listener: Listener<StatusEvent>): Disposer;
	/**
	 * Errors that belong to no promise: Core's error events, a result Core
	 * refused (SUBMIT_TOOL_RESULT_FAILED), a handler that threw or returned
	 * non-JSON, a missing handler, a lost connection.
	 */
	onError(listener: ErrorListener): Disposer;
	/** Called once when the session ends, with the reason. */
	onEnded(listener: Listener<EndedEvent>): Disposer;
	/**
	 * Registers the handler for one tool; it overrides the definition's
	 * inline handler. Its arguments are typed from the definition; its result
	 * is free, because a named handler may answer a domain error
	 * ({error: {code, message}}) or a different shape than the default.
	 */
	onTool<N extends ToolName<TTools>>(name: N, handler: ToolSpecificHandler<ToolArgs<TTools, N>, unknown>): Disposer;
	/** Registers the generic fallback for tools that have no named or inline handler. */
	onTool(fallback: GenericToolHandler<ToolName<TTools>>): Disposer;
	/**
	 * Uploads a File (at most 100 MiB) to the session's assets/ directory, at
	 * "/" + file.name or at targetPath (parents are created, a regular file
	 * replaced). Resolves with the asset's path. One upload at a time.
	 */
	uploadAsset(file: File, targetPath?: SandboxAssetPath): Promise<SandboxAssetPath>;
	/** Every regular file in assets/, at every level, newest first, then by name. */
	listAssets(): Promise<SandboxAsset[]>;
	/** Reads an asset as strict UTF-8 text, parsed JSON, or a File (name, MIME type, mtime). */
	readAsset(path: SandboxAssetPath, type: "text"): Promise<string>;
	readAsset<T = JsonValue>(path: SandboxAssetPath, type: "json"): Promise<T>;
	readAsset(path: SandboxAssetPath, type: "file"): Promise<File>;
	private assetSession;
	private startTurn;
	private finishTurn;
	/** After a lost connection (autoEndOnDisconnect false), resume before the next request. */
	private reattach;
	private receive;
	private onDelta;
	private onDone;
	private setStatus;
	private markEnded;
	private settled;
	private dispatch;
	private submit;
}
export declare class Pedelec {
	/** Core's WebSocket URL this client talks to. */
	readonly url: string;
	private readonly connection;
	private readonly sessions;
	constructor(options?: PedelecOptions);
	/** The providers Core knows, available or not (with the reason), and the default one. */
	listProviders(): Promise<ProviderList>;
	/**
	 * Creates a session. The tool definitions are checked here first, and any
	 * problem rejects with INVALID_INPUT (details.problems lists every one)
	 * before anything is sent. Handlers stay in the page.
	 */
	createSession<const TTools extends readonly AnyToolDefinition[]>(options: CreateSessionOptions<TTools>): Promise<PedelecSession<TTools>>;
	/**
	 * Attaches to an existing session (after a reload, with
	 * autoEndOnDisconnect: false). Pass the same tool definitions to restore
	 * their inline handlers, or register named handlers right after this
	 * resolves: calls still pending in Core are delivered again.
	 */
	resumeSession<const TTools extends readonly AnyToolDefinition[] = readonly AnyToolDefinition[]>(sessionId: string, options?: ResumeSessionOptions<TTools>): Promise<PedelecSession<TTools>>;
	/** Closes the connection; sessions with autoEndOnDisconnect end. */
	close(): void;
	private track;
}
/**
 * Declares a tool. It returns the definition unchanged: its value is type
 * inference (the literal name, the handler's argument and result types)
 * and one consistent way to write tools. The rules are checked when the
 * tools are used to create a session.
 *
 * With explicit generics (defineTool<Args, Result>(...)) TypeScript cannot
 * also infer the name; pass it as the third generic to keep the literal.
 */
export declare function defineTool<TArgs = unknown, TResult = unknown, const TName extends string = string>(definition: ToolDefinition<TArgs, TResult, TName>): ToolDefinition<TArgs, TResult, TName>;
/**
 * Returns the plain JSON manifest of skills, handlers stripped: exactly
 * what Core receives. Write it to a file and check it in your own CI with
 * `pedelec validate-tools manifest.json`. Throws INVALID_INPUT only when
 * the definitions cannot be JSON at all (a function inside argsSchema, a
 * cycle, ...); the other rules are for validate-tools and createSession.
 */
export declare function toManifest(skills: SkillsInput<readonly AnyToolDefinition[]>): SkillsManifest;
export declare const DEFAULT_URL = "ws://127.0.0.1:7077/ws";

export {};
