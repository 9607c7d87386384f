package wire

//go:generate go run ./internal/gencodes

// Code is a stable, upper-snake error code: the `code` of every {code,
// message, details} Pedelec puts on a wire. Each has one meaning, written
// once, in Codes below.
type Code string

// The codes, named for Go. What each means is in Codes, not here, so there
// is one list to keep.
const (
	// Definitions and requests.
	CodeInvalidInput     Code = "INVALID_INPUT"
	CodeUnknownMethod    Code = "UNKNOWN_METHOD"
	CodeMessageTooLarge  Code = "MESSAGE_TOO_LARGE"
	CodeOriginNotAllowed Code = "ORIGIN_NOT_ALLOWED"
	CodeHostNotAllowed   Code = "HOST_NOT_ALLOWED"

	// Sessions and turns.
	CodeSessionBusy        Code = "SESSION_BUSY"
	CodeSessionEnded       Code = "SESSION_ENDED"
	CodeCoreShuttingDown   Code = "CORE_SHUTTING_DOWN"
	CodeThreadNotFound     Code = "THREAD_NOT_FOUND"
	CodeThreadAccessDenied Code = "THREAD_ACCESS_DENIED"

	// Providers.
	CodeProviderNotFound    Code = "PROVIDER_NOT_FOUND"
	CodeProviderUnavailable Code = "PROVIDER_UNAVAILABLE"
	CodeProviderError       Code = "PROVIDER_ERROR"
	CodeProviderTimeout     Code = "PROVIDER_TIMEOUT"
	CodeModelRequired       Code = "MODEL_REQUIRED"
	CodeModelNotFound       Code = "MODEL_NOT_FOUND"
	CodeEndpointUnreachable Code = "ENDPOINT_UNREACHABLE"
	CodeAuthFailed          Code = "AUTH_FAILED"
	CodeBadModelResponse    Code = "BAD_MODEL_RESPONSE"
	CodeStepLimit           Code = "STEP_LIMIT_REACHED"
	// The original SDK's codes for an Ollama that cannot be used, kept
	// for createSession where an app written for it checks them.
	CodeOllamaUnavailable Code = "OLLAMA_UNAVAILABLE"
	CodeOllamaAuthFailed  Code = "OLLAMA_AUTH_FAILED"

	// Tool calls.
	CodeToolNotFound           Code = "TOOL_NOT_FOUND"
	CodeToolArgsInvalid        Code = "TOOL_ARGS_INVALID"
	CodeToolTimeout            Code = "TOOL_TIMEOUT"
	CodeToolCallCancelled      Code = "TOOL_CALL_CANCELLED"
	CodeToolRequestNotPending  Code = "TOOL_REQUEST_NOT_PENDING"
	CodeTooManyPendingCalls    Code = "TOO_MANY_PENDING_CALLS"
	CodeNoActiveTurn           Code = "NO_ACTIVE_TURN"
	CodeToolHandlerNotFound    Code = "TOOL_HANDLER_NOT_FOUND"
	CodeToolHandlerError       Code = "TOOL_HANDLER_ERROR"
	CodeToolResultInvalid      Code = "TOOL_RESULT_INVALID"
	CodeToolRefused            Code = "TOOL_REFUSED"
	CodeSubmitToolResultFailed Code = "SUBMIT_TOOL_RESULT_FAILED"
	// A call handed over to `tool-call --wait` (issue 26).
	CodeToolCallPending     Code = "TOOL_CALL_PENDING"
	CodeToolCallNotWaitable Code = "TOOL_CALL_NOT_WAITABLE"

	// The agent's commands.
	CodeCoreUnreachable  Code = "CORE_UNREACHABLE"
	CodeCoreNotAuthentic Code = "CORE_NOT_AUTHENTIC"
	CodeCoreKeyStoreFail Code = "CORE_KEY_STORE_FAILED"
	CodeNotInSession     Code = "NOT_IN_SESSION"

	CodeInternal Code = "INTERNAL"

	// MCP (issue 13).
	CodeSendTextNotSupported Code = "SEND_TEXT_NOT_SUPPORTED"
	CodeCoreTokenInvalid     Code = "CORE_TOKEN_INVALID"
	// The original SDK's codes (docs/compat.md).
	CodeDefaultProviderNotSet      Code = "DEFAULT_PROVIDER_NOT_SET"
	CodeDefaultProviderUnavailable Code = "DEFAULT_PROVIDER_UNAVAILABLE"
	CodeSDKBridgeTimeout           Code = "SDK_BRIDGE_TIMEOUT"
	CodeSDKProtocolError           Code = "SDK_PROTOCOL_ERROR"

	// Security and bounds (docs/security.md).
	CodePeerNotAllowed            Code = "PEER_NOT_ALLOWED"
	CodeInvalidFrame              Code = "INVALID_FRAME"
	CodeTooManySessions           Code = "TOO_MANY_SESSIONS"
	CodeTooManyConnectionSessions Code = "TOO_MANY_CONNECTION_SESSIONS"
	CodeTooManyTools              Code = "TOO_MANY_TOOLS"
	CodeToolNameTooLong           Code = "TOOL_NAME_TOO_LONG"
	CodeDescriptionTooLong        Code = "DESCRIPTION_TOO_LONG"
	CodeGuidanceTooLong           Code = "GUIDANCE_TOO_LONG"
	CodeSchemaTooLarge            Code = "SCHEMA_TOO_LARGE"
	CodeSchemaTooDeep             Code = "SCHEMA_TOO_DEEP"
	// Session assets (the page's and the agent's shared files).
	CodeAssetPathInvalid             Code = "ASSET_PATH_INVALID"
	CodeAssetNotFound                Code = "ASSET_NOT_FOUND"
	CodeAssetNotFile                 Code = "ASSET_NOT_FILE"
	CodeAssetTooLarge                Code = "ASSET_TOO_LARGE"
	CodeAssetQuotaExceeded           Code = "ASSET_QUOTA_EXCEEDED"
	CodeAssetReadTooLarge            Code = "ASSET_READ_TOO_LARGE"
	CodeAssetUploadBusy              Code = "ASSET_UPLOAD_BUSY"
	CodeAssetUploadServerUnavailable Code = "ASSET_UPLOAD_SERVER_UNAVAILABLE"
	CodeAssetUploadTicketExpired     Code = "ASSET_UPLOAD_TICKET_EXPIRED"
	CodeAssetUploadUnauthorized      Code = "ASSET_UPLOAD_UNAUTHORIZED"
	CodeAssetUploadSizeMismatch      Code = "ASSET_UPLOAD_SIZE_MISMATCH"
	CodeAssetUploadFailed            Code = "ASSET_UPLOAD_FAILED"
	CodeAssetListFailed              Code = "ASSET_LIST_FAILED"
	CodeAssetDownloadTicketExpired   Code = "ASSET_DOWNLOAD_TICKET_EXPIRED"
	CodeAssetDownloadUnauthorized    Code = "ASSET_DOWNLOAD_UNAUTHORIZED"
	CodeAssetReadFailed              Code = "ASSET_READ_FAILED"
	CodeAssetTextDecodeFailed        Code = "ASSET_TEXT_DECODE_FAILED"
	CodeAssetInvalidJSON             Code = "ASSET_INVALID_JSON"
	// Durable sessions.
	CodeTurnInterrupted Code = "TURN_INTERRUPTED"
	CodeEventsTruncated Code = "EVENTS_TRUNCATED"
	// Batched messages.
	CodeBatchTooLarge Code = "BATCH_TOO_LARGE"
	// Approvals: the user decides which sites and which calls (docs/security.md).
	CodeApprovalRejected         Code = "APPROVAL_REJECTED"
	CodeApprovalTimeout          Code = "APPROVAL_TIMEOUT"
	CodeOpenPopupFailed          Code = "OPEN_POPUP_FAILED"
	CodeCreateSessionNotApproved Code = "CREATE_SESSION_NOT_APPROVED"
	CodeApprovalNotFound         Code = "APPROVAL_NOT_FOUND"
	CodeApproverNotAllowed       Code = "APPROVER_NOT_ALLOWED"
	CodeToolCallDenied           Code = "TOOL_CALL_DENIED"
	CodeToolConsentTimeout       Code = "TOOL_CONSENT_TIMEOUT"
	// Starting Core.
	CodeAddrInUse Code = "ADDR_IN_USE"
)

// CodeInfo documents one code: who raises it, when, and what its details
// hold. docs/errors.md's table and the SDK's TypeScript union
// (sdk/src/codes.gen.ts) are generated from Codes by `go generate
// ./runtime/wire`; a test of runtime/wire/internal/gencodes fails while either is stale.
type CodeInfo struct {
	Code     Code
	RaisedBy string // Core, SDK, CLI, a provider; "A → B" when A raises it for B
	When     string // the one meaning of the code (Markdown)
	Details  string // the keys of details, or "" (Markdown)
}

// Codes lists every code with its meaning, in the order of the tables.
var Codes = []CodeInfo{
	{CodeInvalidInput, "Core, SDK, CLI", "a manifest breaks a definition rule; a request's params are malformed", "`problems: [{path, message}]`"},
	{CodeUnknownMethod, "Core", "a WebSocket request names a method Core does not have", "`method`, `known`"},
	{CodeMessageTooLarge, "Core", "a frame, a request body or one call's arguments is over its limit", "`size`, `limit`"},
	{CodeOriginNotAllowed, "Core (HTTP 403)", "a page's origin is not on the allowlist; the log says which `--allow-origin` to add. A session's MCP endpoint refuses every `Origin`", ""},
	{CodeHostNotAllowed, "Core (HTTP 403)", "the `Host` header is not a loopback name (DNS rebinding)", ""},
	{CodeSessionBusy, "Core, SDK", "`sendText`/`prepare` while a turn runs", "`turnId`, `status`"},
	{CodeSessionEnded, "Core, SDK", "the session ended; pending calls and the running turn fail with it", ""},
	{CodeCoreShuttingDown, "Core", "`createSession` reached a Core that is stopping (Ctrl-C, an upgrade): nothing was created; create it again once Core is back (the page reconnects by itself). A turn Core cuts off, or one asked for while it stops, is `TURN_INTERRUPTED` instead", ""},
	{CodeThreadNotFound, "Core", "no session with that id", "`sessionId`"},
	{CodeThreadAccessDenied, "Core", "the session belongs to another origin; on the agent endpoint and a session's MCP endpoint (HTTP 401 there), the secret is wrong or missing its `Bearer ` prefix, or no such session exists (one answer for all, so ids cannot be probed)", "`sessionId`, `origin`"},
	{CodeProviderNotFound, "Core", "no provider by that name", "`provider`, `known`"},
	{CodeProviderUnavailable, "Core", "the provider is known but cannot run here (not installed, not configured)", "`provider`, `reason`"},
	{CodeProviderError, "Core", "the provider reported a failed turn; the message is the provider's", ""},
	{CodeProviderTimeout, "Core", "Core's own turn deadline (`--turn-timeout`) passed", "`provider`, `turnTimeoutMs`"},
	{CodeModelRequired, "openai provider", "no model named and none configured", ""},
	{CodeModelNotFound, "openai provider", "the model server does not know the model", ""},
	{CodeEndpointUnreachable, "openai provider", "the model server could not be reached", ""},
	{CodeAuthFailed, "openai provider", "the model server refused the credentials", ""},
	{CodeBadModelResponse, "openai provider", "the model server's answer was malformed", ""},
	{CodeStepLimit, "openai provider", "the built-in agent loop hit its per-turn step cap", ""},
	{CodeOllamaUnavailable, "Core", "`createSession` with `provider: \"ollama\"` and a model while nothing answers at its `base_url` (the original SDK's code; at a turn it is `ENDPOINT_UNREACHABLE`)", "`provider`, `reason`"},
	{CodeOllamaAuthFailed, "Core", "`createSession` with `provider: \"ollama\"` while its server refuses the key (HTTP 401/403; the original SDK's code; at a turn it is `AUTH_FAILED`)", "`provider`, `reason`"},
	{CodeToolNotFound, "Core \u2192 agent", "the agent named a tool the session does not declare", "`tool`, `available`, `didYouMean` when a declared name is one typo away"},
	{CodeToolArgsInvalid, "Core \u2192 agent, CLI", "the arguments do not match the tool's schema; or `tool-call` arguments are not JSON (as the original names it)", "`tool`, `violations: [{path, expected, got, message}]`; for text that is not JSON: `line`, `column`, `offset`, `parser`"},
	{CodeToolTimeout, "Core \u2192 agent", "the page did not answer within the tool's `timeoutMs`", "`tool`, `toolRequestId`, `timeoutMs`"},
	{CodeToolCallCancelled, "Core → page, CLI, MCP", "the call's own caller gave up on it: the agent's `tool-call` was interrupted (Ctrl-C, SIGTERM) or an MCP client sent `notifications/cancelled`; the page's `ctx.signal` aborts with it. Not a failure of the tool, nor of the session", "`toolRequestId`"},
	{CodeToolRequestNotPending, "Core \u2192 page", "a result for a call that timed out, was answered already, or never existed", "`toolRequestId`, `reason`: `timeout`, `result`, `session_ended`, `cancelled`, `interrupted`, `unknown`"},
	{CodeTooManyPendingCalls, "Core \u2192 agent", "the session already has `--max-pending-calls` calls waiting", "`limit`"},
	{CodeNoActiveTurn, "Core \u2192 agent", "a tool call arrived while the session runs no turn", ""},
	{CodeToolHandlerNotFound, "SDK \u2192 agent", "no named, inline or fallback handler for the tool (a result, not a failure of the call)", ""},
	{CodeToolHandlerError, "SDK \u2192 agent", "the handler threw; the message is the exception's", ""},
	{CodeToolResultInvalid, "SDK, Core \u2192 agent", "the handler returned something that cannot be sent as JSON (a BigInt, a cycle, a function, a symbol, a DOM node; everything else is converted as `JSON.stringify` does), or a result that breaks the tool's `outputSchema`, or MCP content blocks an MCP client cannot be given (`mcpResult`, a WebMCP `CallToolResult`: a block of another type, a field missing or of the wrong kind; Core fails the call, the page's `onError` hears it as the handler's bug)", "`path` of the bad value; for `outputSchema`: `tool`, `violations: [{path, expected, got, message}]` (the first 20, by path), `violationCount` (the check stops at 100: the message then says at least); for MCP content: `tool`, `path` (`mcpContent[1].mimeType`), `index`, `field`"},
	{CodeToolRefused, "page \u2192 agent", "the page's handler refused the call (`throw refuse({code, message, retryable})`): `message` is the page's reason for the agent. `retryable` false: do not repeat the call, tell the user; true: the same call may succeed later", "`tool`, `reason` (the page's own code), `retryable`"},
	{CodeSubmitToolResultFailed, "SDK \u2192 `onError`", "Core refused the page's result (late, duplicate), or the result cannot be sent as JSON (the agent gets `TOOL_RESULT_INVALID`)", "Core's error, or `cause`"},
	{CodeToolCallPending, "Core \u2192 agent, CLI (exit 3)", "the call is still running in Core, but the agent's shell would soon cut `tool-call` off: run the command in `details.next` (`pedelec tool-call --wait <handle>`) to wait for the same call's result. Not a failure: the call keeps its own `timeoutMs`", "`handle`, `next`, `tool`, `toolRequestId`, `timeoutMs`, `elapsedMs`"},
	{CodeToolCallNotWaitable, "Core \u2192 agent", "`tool-call --wait` named a handle this session cannot wait on: its result was already delivered (`reason: delivered`), another `--wait` is waiting for it (`waiting`), its turn ended (`turn_ended`), it waited unclaimed while newer results came and was dropped (`dropped`; a session keeps `--max-pending-calls` of them), or no such handle (`unknown`). Do not retry it; call the tool again if you still need it", "`handle`, `reason`"},
	{CodeCoreUnreachable, "CLI, MCP bridge", "`tool-call`/`tool-spec` (or `pedelec mcp`) could not reach Core: refused, cut or timed out, or what answered is not Core. Core is down or restarting: the CLI exits 75, retry the same command in a few seconds", ""},
	{CodeCoreNotAuthentic, "CLI, MCP bridge, SDK", "what answers at Core's address could not prove it is the Core of this state directory (or, for a page, the Core that approved it): another user's program may hold Core's port while Core is down. Nothing secret was sent. The message names what answered; the CLI exits 76. Start the real Core (`pedelec serve`), or find who holds the port", "`coreUrl`, `found`, `listenerUid` (where the system tells)"},
	{CodeCoreKeyStoreFail, "SDK", "the page's own `keyStore` (where it remembers the key of the Core it trusts) threw, rejected or answered something that is not a key when read: the page cannot tell that Core from another program on its port, so nothing was opened and nothing sent. Fix the store; the next request reads it again", "`coreUrl`, `reason`"},
	{CodeNotInSession, "CLI", "`tool-call`/`tool-spec` ran without a thread id or without the environment Core gives the agent", "`missing`"},
	{CodeInternal, "anywhere", "a bug: please report it with the message", ""},
	{CodeSendTextNotSupported, "Core, SDK", "`sendText` on a `provider: \"mcp\"` session: its agent is the user's own MCP client, which takes no messages from the page (docs/mcp.md)", "`provider`"},
	{CodeCoreTokenInvalid, "Core (HTTP 401)", "`/mcp`, the MCP bridge or `/debug/pedelec/counts` was called without this Core's token as `Authorization: Bearer <token>` (`<state-dir>/core-token`)", ""},
	{CodeDefaultProviderNotSet, "Core, SDK", "`createSession` named no provider and Core has no default", ""},
	{CodeDefaultProviderUnavailable, "Core, SDK", "`createSession` named no provider and Core's default cannot run here", "`provider`, `reason`"},
	{CodeSDKBridgeTimeout, "SDK", "Core did not answer a request within `bridgeTimeoutMs` (default 30 s)", "`method`, `timeoutMs`"},
	{CodeSDKProtocolError, "SDK", "Core's answer did not have the shape the SDK expects (mismatched versions)", "the answer"},
	{CodePeerNotAllowed, "Core (HTTP 403)", "the connection comes from a process of another local user (or one Core cannot identify, such as a client whose socket already closed); written as the connection is accepted, which Core then closes; see `--allow-other-users`", "`uid`, `coreUid`"},
	{CodeInvalidFrame, "Core", "a WebSocket frame is binary, or text that is not valid UTF-8; the connection stays open", "`frame`"},
	{CodeTooManySessions, "Core", "Core already runs `--max-sessions` live sessions", "`limit`, `value`, `got`, `path`"},
	{CodeTooManyConnectionSessions, "Core", "this page connection already holds `--max-sessions-per-connection` live sessions", "`limit`, `value`, `got`, `path`"},
	{CodeTooManyTools, "Core", "the skills declare more than `--max-tools` tools", "`limit`, `value`, `got`, `path`"},
	{CodeToolNameTooLong, "Core", "a tool name is longer than `--max-tool-name-length` characters", "`limit`, `value`, `got`, `path`"},
	{CodeDescriptionTooLong, "Core", "a tool description is longer than `--max-description-length` characters", "`limit`, `value`, `got`, `path`"},
	{CodeGuidanceTooLong, "Core", "the guidance is longer than `--max-guidance-length` characters", "`limit`, `value`, `got`, `path`"},
	{CodeSchemaTooLarge, "Core", "one tool's `argsSchema` (or `outputSchema`) is over `--max-schema-bytes` bytes of JSON", "`limit`, `value`, `got`, `path`"},
	{CodeSchemaTooDeep, "Core", "one tool's `argsSchema` (or `outputSchema`) nests objects and arrays deeper than `--max-schema-depth`", "`limit`, `value`, `got`, `path`"},
	{CodeAssetPathInvalid, "Core, SDK", "an asset path is not `/`-rooted, has an empty, `.`, `..` (also `%2e%2e`) or `.pedelec-` segment, a backslash, a control or bidirectional formatting character, goes through a symlink, or names a file with more than one hard link", "`path`; for a character: `character` (`U+202E`), `offset` (bytes)"},
	{CodeAssetNotFound, "Core", "nothing at the asset path (or a directory on the way is missing)", "`path`"},
	{CodeAssetNotFile, "Core", "the asset path is a directory, a FIFO or another non-regular file, or was replaced by one while it was opened", "`path`"},
	{CodeAssetTooLarge, "SDK, Core", "`uploadAsset` of a file over 100 MiB", "`path`, `sizeBytes`, `limit`"},
	{CodeAssetQuotaExceeded, "Core → page, agent", "an upload or a result file would pass the disk quota of the session's assets (`--max-asset-bytes-per-session`, 1 GiB) or of all sessions' (`--max-asset-bytes-total`, 4 GiB); refused before anything is written, nothing there is lost", "`limit` (the flag), `value`, `used`, `got`, `path`"},
	{CodeAssetReadTooLarge, "Core", "`readAsset` of a file over 100 MiB", "`path`, `sizeBytes`, `limit`"},
	{CodeAssetUploadBusy, "Core", "`uploadAsset` while another upload of the same session runs (one at a time); the SDK reports it as the original's `SESSION_BUSY` (this code in `details.coreCode`)", "`path`, `uploading`"},
	{CodeAssetUploadServerUnavailable, "SDK", "the upload `PUT` to Core's port failed at the network level", "`url`"},
	{CodeAssetUploadTicketExpired, "Core (HTTP 403)", "the upload ticket was presented after its lifetime (`--asset-ticket-ttl`)", "`expiredAt`"},
	{CodeAssetUploadUnauthorized, "Core (HTTP 403)", "the upload ticket is unknown, already used, for another session, or presented by another origin", "`reason`"},
	{CodeAssetUploadSizeMismatch, "Core", "the upload carried a different number of bytes than the file's size", "`path`, `expectedBytes`, `receivedBytes`"},
	{CodeAssetUploadFailed, "Core, SDK", "the upload failed for another reason (disk full, connection cut); the message says which", "`path`"},
	{CodeAssetListFailed, "Core", "the assets directory could not be listed, or holds more than 10 000 files", "`limit`"},
	{CodeAssetDownloadTicketExpired, "Core (HTTP 403)", "the read ticket was presented after its lifetime", "`expiredAt`"},
	{CodeAssetDownloadUnauthorized, "Core (HTTP 403)", "the read ticket is unknown, already used, for another session, or presented by another origin", "`reason`"},
	{CodeAssetReadFailed, "Core, SDK", "the read failed at the file system or on the network (a cut or short body)", "`path`"},
	{CodeAssetTextDecodeFailed, "SDK", "`readAsset(path, \"text\" or \"json\")` of bytes that are not strict UTF-8", "`path`"},
	{CodeAssetInvalidJSON, "SDK", "`readAsset(path, \"json\")` of text that is not JSON", "`path`, `message`"},
	{CodeTurnInterrupted, "Core \u2192 page, agent", "Core stopped (Ctrl-C, an upgrade, a crash) while the turn ran: the turn's `done` fails with it, its pending calls settle `interrupted`, the session comes back `error`; send the message again (the agent resumes its own thread). A `send_text` or `prepare` that reaches a stopping Core is refused with it (`reason` `shutdown`): a turn started then would outlive Core's record of it", "`turnId`, `reason`"},
	{CodeEventsTruncated, "Core \u2192 page (`events_truncated` event)", "a resuming page missed events that Core's bounded event log no longer holds", "`fromSeq`, `toSeq`, `dropped`"},
	{CodeBatchTooLarge, "Core", "a page sent an array message (batched requests, docs/protocol.md) with more frames than `maxBatchFrames` or more bytes than `maxMessageBytes` of its `hello`; every request in it gets this error, none is run", "`frames`, `bytes`, `maxBatchFrames`, `maxMessageBytes`, `index`"},
	{CodeApprovalRejected, "Core \u2192 SDK", "the user rejected this origin in the approval window, the console or `pedelec deny`, or revoked it; `createSession`/`resumeSession` fail with it, and so does a rejected site that asks again within `--origin-reject-cooldown` (10 minutes)", "`origin`, `reason`; when it asked again too soon, also `retryAfterMs`"},
	{CodeApprovalTimeout, "Core \u2192 SDK", "nobody decided about this origin before the approval request expired", "`origin`, `timeoutMs`"},
	{CodeOpenPopupFailed, "SDK", "the browser blocked the approval window; open `details.url` by hand (or run `pedelec approve <origin>`) and the waiting call continues", "`url`, `origin`, `requestId`"},
	{CodeCreateSessionNotApproved, "Core \u2192 SDK", "a request other than `createSession`/`resumeSession` came from an origin that is not approved, the page's origin cannot be verified, or too many sites (32 at once), or pages of its own site (4), already wait for the user: ask again once they are decided or expire (no count is told to the page)", "`origin`"},
	{CodeApprovalNotFound, "Core \u2192 console, CLI", "`approve`/`deny` named a request that is not pending (decided, expired or never made), or `revoke` an origin that is not approved", "`id` or `origin`"},
	{CodeApproverNotAllowed, "Core \u2192 console, CLI", "an approval came from somewhere that may not decide: another origin, without the per-run approver token, or from a process an agent started", "`reason`"},
	{CodeToolCallDenied, "Core \u2192 agent", "the user denied a call that asks for consent first; the handler never ran. Do not retry the same call; tell the user", "`tool`, `reason`"},
	{CodeToolConsentTimeout, "Core \u2192 agent", "nobody approved a call that asks for consent within the tool's timeout; the handler never ran", "`tool`, `timeoutMs`"},
	{CodeAddrInUse, "CLI (`pedelec serve`)", "the port of `--addr` is taken, often by a Core already running (`curl <addr>/healthz` tells): stop it, or pass another `--addr` (port 0 picks a free one). Nothing was started and the state directory was not touched", "`addr`, `port`"},
}
