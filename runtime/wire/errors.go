package wire

import (
	"errors"
	"fmt"
)

// Error is the one failure shape Pedelec puts on any wire: the SDK's
// WebSocket, the agent endpoint, the CLI's stdout. Code is stable and
// upper-snake; Message is for a person or a model; Details is JSON data.
//
// Inside the process errors travel as plain `error`s, wrapped with %w;
// AsError turns one into this shape only where it leaves the process.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
	// cause is the error a %w in Errorf's format wrapped, for errors.Is
	// and errors.As; its text is already part of Message.
	cause error
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Unwrap is the error Errorf's %w wrapped, if any.
func (e *Error) Unwrap() error { return e.cause }

// Errorf builds an *Error with a formatted message; a %w verb wraps its
// error (as fmt.Errorf does) so the cause stays inspectable.
func Errorf(code, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Code: code, Message: err.Error(), cause: errors.Unwrap(err)}
}

// WithDetails returns e with Details set, for chaining at construction.
func (e *Error) WithDetails(details any) *Error {
	e.Details = details
	return e
}

// AsError converts any error into the wire shape. An *Error anywhere in the
// chain keeps its code; anything else is an INTERNAL error with its text, so
// nothing is lost on the way to the wire. This is the one place that decides
// how a Go error looks to a client.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var we *Error
	if errors.As(err, &we) {
		return we
	}
	var coded CodedError
	if errors.As(err, &coded) {
		return &Error{Code: coded.ErrorCode(), Message: coded.Error(), Details: coded.ErrorDetails()}
	}
	return &Error{Code: CodeInternal, Message: err.Error()}
}

// CodedError is an error that knows its wire code without importing this
// package: packages below it (schema) return these, and AsError gives them
// the wire shape. Error() is the message, without the code.
type CodedError interface {
	error
	ErrorCode() string
	ErrorDetails() any
}

// The table of codes. docs/errors.md explains each one; a test keeps the two
// in step, and the SDK's TypeScript union is generated from the same list.
const (
	// Definitions and requests.
	CodeInvalidInput     = "INVALID_INPUT"     // a manifest, request or flag is malformed; details lists every problem
	CodeUnknownMethod    = "UNKNOWN_METHOD"    // a WebSocket request names a method Core does not have
	CodeMessageTooLarge  = "MESSAGE_TOO_LARGE" // a frame, argument or result is over its size limit
	CodeOriginNotAllowed = "ORIGIN_NOT_ALLOWED"
	CodeHostNotAllowed   = "HOST_NOT_ALLOWED"

	// Sessions and turns.
	CodeSessionBusy        = "SESSION_BUSY"  // a turn is already running
	CodeSessionEnded       = "SESSION_ENDED" // the session has ended; pending work fails with this
	CodeThreadNotFound     = "THREAD_NOT_FOUND"
	CodeThreadAccessDenied = "THREAD_ACCESS_DENIED"

	// Providers.
	CodeProviderNotFound    = "PROVIDER_NOT_FOUND"   // no provider by that name
	CodeProviderUnavailable = "PROVIDER_UNAVAILABLE" // known, but not installed or not configured
	CodeProviderError       = "PROVIDER_ERROR"       // the provider reported a failed turn
	CodeProviderTimeout     = "PROVIDER_TIMEOUT"     // Core's own turn deadline passed
	CodeModelRequired       = "MODEL_REQUIRED"       // the provider needs a model name and none was given or configured
	CodeModelNotFound       = "MODEL_NOT_FOUND"      // the model server does not know the model
	CodeEndpointUnreachable = "ENDPOINT_UNREACHABLE" // the model server could not be reached
	CodeAuthFailed          = "AUTH_FAILED"          // the model server refused the credentials
	CodeBadModelResponse    = "BAD_MODEL_RESPONSE"   // the model server answered with something malformed
	CodeStepLimit           = "STEP_LIMIT_REACHED"   // the built-in agent loop hit its per-turn step cap

	// Tool calls.
	CodeToolNotFound           = "TOOL_NOT_FOUND"
	CodeToolArgsInvalid        = "TOOL_ARGS_INVALID"
	CodeToolTimeout            = "TOOL_TIMEOUT"
	CodeToolRequestNotPending  = "TOOL_REQUEST_NOT_PENDING" // a result for a call that timed out, was already answered, or never existed
	CodeTooManyPendingCalls    = "TOO_MANY_PENDING_CALLS"
	CodeNoActiveTurn           = "NO_ACTIVE_TURN"            // a tool call arrived while the session runs no turn
	CodeToolHandlerNotFound    = "TOOL_HANDLER_NOT_FOUND"    // produced by the SDK as a result
	CodeToolHandlerError       = "TOOL_HANDLER_ERROR"        // produced by the SDK as a result
	CodeToolResultInvalid      = "TOOL_RESULT_INVALID"       // produced by the SDK: the handler returned a non-JSON value
	CodeSubmitToolResultFailed = "SUBMIT_TOOL_RESULT_FAILED" // produced by the SDK when Core refuses a result

	// The agent's commands.
	CodeCoreUnreachable = "CORE_UNREACHABLE" // tool-call / tool-spec could not reach Core
	CodeNotInSession    = "NOT_IN_SESSION"   // tool-call / tool-spec ran without a thread id or secret

	CodeInternal = "INTERNAL"

	// MCP (issue 13).
	CodeSendTextNotSupported = "SEND_TEXT_NOT_SUPPORTED" // sendText on a session whose agent is an external MCP client
	CodeCoreTokenInvalid     = "CORE_TOKEN_INVALID"      // /mcp or the MCP bridge without this Core's bearer token
	// The original SDK's codes (docs/compat.md).
	CodeDefaultProviderNotSet      = "DEFAULT_PROVIDER_NOT_SET"     // createSession named no provider and Core has no default
	CodeDefaultProviderUnavailable = "DEFAULT_PROVIDER_UNAVAILABLE" // createSession named no provider and Core's default cannot run here
	CodeSDKBridgeTimeout           = "SDK_BRIDGE_TIMEOUT"           // produced by the SDK: Core did not answer a request within bridgeTimeoutMs
	CodeSDKProtocolError           = "SDK_PROTOCOL_ERROR"           // produced by the SDK: Core's answer did not have the shape the SDK expects

	// Security and bounds (docs/security.md).
	CodePeerNotAllowed            = "PEER_NOT_ALLOWED"             // the connection comes from a process of another user
	CodeInvalidFrame              = "INVALID_FRAME"                // a WebSocket frame is binary or not valid UTF-8
	CodeTooManySessions           = "TOO_MANY_SESSIONS"            // Core already runs --max-sessions live sessions
	CodeTooManyConnectionSessions = "TOO_MANY_CONNECTION_SESSIONS" // this page connection already holds --max-sessions-per-connection
	CodeTooManyTools              = "TOO_MANY_TOOLS"               // skills declare more than --max-tools
	CodeToolNameTooLong           = "TOOL_NAME_TOO_LONG"           // a tool name is longer than --max-tool-name-length
	CodeDescriptionTooLong        = "DESCRIPTION_TOO_LONG"         // a tool description is longer than --max-description-length
	CodeGuidanceTooLong           = "GUIDANCE_TOO_LONG"            // guidance is longer than --max-guidance-length
	CodeSchemaTooLarge            = "SCHEMA_TOO_LARGE"             // one argsSchema is over --max-schema-bytes
	CodeSchemaTooDeep             = "SCHEMA_TOO_DEEP"              // one argsSchema nests deeper than --max-schema-depth
	// Session assets (the page's and the agent's shared files).
	CodeAssetPathInvalid             = "ASSET_PATH_INVALID"              // not a safe /... path, or it goes through a symlink
	CodeAssetNotFound                = "ASSET_NOT_FOUND"                 // nothing at the path
	CodeAssetNotFile                 = "ASSET_NOT_FILE"                  // the path is a directory or another non-regular file
	CodeAssetTooLarge                = "ASSET_TOO_LARGE"                 // an upload over 100 MiB
	CodeAssetReadTooLarge            = "ASSET_READ_TOO_LARGE"            // a read of a file over 100 MiB
	CodeAssetUploadBusy              = "ASSET_UPLOAD_BUSY"               // another upload of the session is running
	CodeAssetUploadServerUnavailable = "ASSET_UPLOAD_SERVER_UNAVAILABLE" // produced by the SDK: Core's HTTP port did not answer the upload
	CodeAssetUploadTicketExpired     = "ASSET_UPLOAD_TICKET_EXPIRED"
	CodeAssetUploadUnauthorized      = "ASSET_UPLOAD_UNAUTHORIZED" // unknown, used, or another session's or origin's ticket
	CodeAssetUploadSizeMismatch      = "ASSET_UPLOAD_SIZE_MISMATCH"
	CodeAssetUploadFailed            = "ASSET_UPLOAD_FAILED"
	CodeAssetListFailed              = "ASSET_LIST_FAILED"
	CodeAssetDownloadTicketExpired   = "ASSET_DOWNLOAD_TICKET_EXPIRED"
	CodeAssetDownloadUnauthorized    = "ASSET_DOWNLOAD_UNAUTHORIZED"
	CodeAssetReadFailed              = "ASSET_READ_FAILED"
	CodeAssetTextDecodeFailed        = "ASSET_TEXT_DECODE_FAILED" // produced by the SDK
	CodeAssetInvalidJSON             = "ASSET_INVALID_JSON"       // produced by the SDK
	// Durable sessions.
	CodeTurnInterrupted = "TURN_INTERRUPTED" // Core stopped (restart, crash) while the turn ran; its pending calls fail with it
	CodeEventsTruncated = "EVENTS_TRUNCATED" // a resuming page missed events the bounded event log no longer holds
	// Batched messages.
	CodeBatchTooLarge = "BATCH_TOO_LARGE" // an array message holds more frames or bytes than the connection's hello allows
)

// Codes lists every code, in the order of the table above.
var Codes = []string{
	CodeInvalidInput, CodeUnknownMethod, CodeMessageTooLarge, CodeOriginNotAllowed, CodeHostNotAllowed,
	CodeSessionBusy, CodeSessionEnded, CodeThreadNotFound, CodeThreadAccessDenied,
	CodeProviderNotFound, CodeProviderUnavailable, CodeProviderError, CodeProviderTimeout,
	CodeModelRequired, CodeModelNotFound, CodeEndpointUnreachable, CodeAuthFailed, CodeBadModelResponse, CodeStepLimit,
	CodeToolNotFound, CodeToolArgsInvalid, CodeToolTimeout, CodeToolRequestNotPending, CodeTooManyPendingCalls, CodeNoActiveTurn,
	CodeToolHandlerNotFound, CodeToolHandlerError, CodeToolResultInvalid, CodeSubmitToolResultFailed,
	CodeCoreUnreachable, CodeNotInSession,
	CodeInternal,
	CodeSendTextNotSupported, CodeCoreTokenInvalid,
	CodeDefaultProviderNotSet, CodeDefaultProviderUnavailable, CodeSDKBridgeTimeout, CodeSDKProtocolError,
	CodePeerNotAllowed, CodeInvalidFrame, CodeTooManySessions, CodeTooManyConnectionSessions, CodeTooManyTools,
	CodeToolNameTooLong, CodeDescriptionTooLong, CodeGuidanceTooLong, CodeSchemaTooLarge, CodeSchemaTooDeep,
	CodeAssetPathInvalid, CodeAssetNotFound, CodeAssetNotFile, CodeAssetTooLarge, CodeAssetReadTooLarge,
	CodeAssetUploadBusy, CodeAssetUploadServerUnavailable, CodeAssetUploadTicketExpired, CodeAssetUploadUnauthorized,
	CodeAssetUploadSizeMismatch, CodeAssetUploadFailed, CodeAssetListFailed,
	CodeAssetDownloadTicketExpired, CodeAssetDownloadUnauthorized, CodeAssetReadFailed,
	CodeAssetTextDecodeFailed, CodeAssetInvalidJSON,
	CodeTurnInterrupted, CodeEventsTruncated,
	CodeBatchTooLarge,
}
