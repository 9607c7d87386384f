// Package wire holds every type that crosses a process boundary: the SDK's
// WebSocket frames, the agent endpoint's requests and answers, and the error
// shape. Core, the agent commands, the conformance tests and the SDK's
// TypeScript types all read this package; page.go lists the page
// WebSocket's methods and events, from which the SDK's types are
// generated; docs/protocol.md describes it.
package wire

import "encoding/json"

// Frame kinds on the SDK WebSocket.
const (
	FrameRequest  = "request"  // page → Core
	FrameResponse = "response" // Core → page, answers one request by id
	FrameEvent    = "event"    // Core → page, unsolicited, ordered by seq per session
)

// Methods a page may call. Every request is checked once (size, shape,
// method) before its handler runs.
const (
	MethodListProviders    = "list_providers"
	MethodCreateSession    = "create_session"
	MethodResumeSession    = "resume_session"
	MethodPrepare          = "prepare"
	MethodSendText         = "send_text"
	MethodSubmitToolResult = "submit_tool_result"
	MethodEndSession       = "end_session"
	// MethodToolProgress: a handler's ctx.progress (issue 26). Core keeps
	// the latest report per call and passes it on at most 4 times a second.
	MethodToolProgress = "tool_progress"
)

// Event types Core sends to a page.
const (
	EventStatusChanged   = "status_changed"
	EventChatDelta       = "chat_delta"
	EventToolCall        = "tool_call"
	EventToolCallSettled = "tool_call_settled"
	EventError           = "error"
	EventDone            = "done"
	EventEnded           = "ended"
	// EventEventsTruncated stands for events a resuming page missed that
	// Core's bounded log no longer holds; its seq is the last one dropped.
	EventEventsTruncated = "events_truncated"
	// EventAgentActivity: the agent's own tool activity (an ACP agent's
	// tool_call and its status, a permission Pedelec answered), for the
	// page's status and the console; calls of the page's tools are
	// tool_call events instead (AgentActivityData).
	EventAgentActivity = "agent_activity"
)

// Status is a session's status; runtime/status.go holds the transitions.
type Status string

// Session statuses.
const (
	StatusIdle              Status = "idle"
	StatusRunning           Status = "running"
	StatusWaitingToolResult Status = "waiting_tool_result"
	// StatusWaitingApproval: a call waits for the user's consent (issue
	// 22); the page has not been asked to run it yet.
	StatusWaitingApproval Status = "waiting_approval"
	StatusEnded           Status = "ended"
	StatusError           Status = "error"
)

// SettleOutcome is how a tool call stopped waiting (tool_call_settled).
type SettleOutcome string

const (
	OutcomeResult       SettleOutcome = "result"        // the page submitted a result
	OutcomeTimeout      SettleOutcome = "timeout"       // the tool's timeoutMs passed first
	OutcomeSessionEnded SettleOutcome = "session_ended" // the session ended first
	OutcomeCancelled    SettleOutcome = "cancelled"     // the agent stopped waiting, or its turn ended
	OutcomeInterrupted  SettleOutcome = "interrupted"   // Core stopped (restart, crash) during the turn
)

// EndReason is why a session ended (the ended event).
type EndReason string

const (
	EndReasonEndSession          EndReason = "end_session"           // the page called end_session
	EndReasonDisconnect          EndReason = "disconnect"            // the page went away with autoEndOnDisconnect
	EndReasonShutdown            EndReason = "shutdown"              // Core is stopping
	EndReasonResumeWindowExpired EndReason = "resume_window_expired" // nobody resumed a detached session in time
	EndReasonOriginRevoked       EndReason = "origin_revoked"        // the user revoked the page's origin
)

// The complete lists, which a test keeps in step with docs/protocol.md and
// the SDK's TypeScript types.
var (
	Statuses       = []Status{StatusIdle, StatusRunning, StatusWaitingToolResult, StatusWaitingApproval, StatusEnded, StatusError}
	SettleOutcomes = []SettleOutcome{OutcomeResult, OutcomeTimeout, OutcomeSessionEnded, OutcomeCancelled, OutcomeInterrupted}
	EndReasons     = []EndReason{EndReasonEndSession, EndReasonDisconnect, EndReasonShutdown, EndReasonResumeWindowExpired, EndReasonOriginRevoked}
)

// Request is a page → Core frame: {"type":"request","id":1,"method":"...","params":{...}}.
type Request struct {
	Type   string          `json:"type"`
	ID     int64           `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// Response answers one Request: {"type":"response","id":1,"ok":true,"result":{...}}
// or {"type":"response","id":1,"ok":false,"error":{...}}.
type Response struct {
	Type   string `json:"type"`
	ID     int64  `json:"id"`
	OK     bool   `json:"ok"`
	Result any    `json:"result,omitempty"`
	Error  *Error `json:"error,omitempty"`
}

// Event is a Core → page frame. Seq starts at 1 and only goes up within a
// session, across reconnects; a page drops any event whose seq it has seen.
type Event struct {
	Type      string `json:"type"`
	Event     string `json:"event"`
	SessionID string `json:"sessionId"`
	Seq       int64  `json:"seq"`
	TurnID    string `json:"turnId,omitempty"`
	Data      any    `json:"data"`
}

// ---- request params and results ----

// ProviderInfo describes one provider for list_providers and `pedelec providers`.
type ProviderInfo struct {
	Name         string `json:"name"`
	Available    bool   `json:"available"`
	Version      string `json:"version,omitempty"`
	Path         string `json:"path,omitempty"`
	Reason       string `json:"reason,omitempty"` // why it is unavailable
	DefaultModel string `json:"defaultModel,omitempty"`
	Description  string `json:"description,omitempty"`
	// Models are the models the provider's server has, where it can list
	// them (ollama: GET /api/tags).
	Models []string `json:"models,omitempty"`
	// UnavailableCode is the code createSession refuses this provider with
	// while it is unavailable, where the original SDK documented one of its
	// own (ollama: OLLAMA_UNAVAILABLE); empty means PROVIDER_UNAVAILABLE.
	// Core's own, never sent.
	UnavailableCode Code `json:"-"`
}

type ListProvidersResult struct {
	Providers       []ProviderInfo `json:"providers"`
	DefaultProvider string         `json:"defaultProvider"`
}

// CreateSessionParams: skills is kept raw so the schema package sees exactly
// what the page sent (legacy fields, wrong types) and can name every problem.
type CreateSessionParams struct {
	Provider            string          `json:"provider,omitempty"`
	Model               string          `json:"model,omitempty"`
	Skills              json.RawMessage `json:"skills"`
	AutoEndOnDisconnect *bool           `json:"autoEndOnDisconnect,omitempty"` // default true
	// DisconnectGraceMs: an autoEndOnDisconnect session ends only when no
	// page resumed it within this long after its page went away, so a page
	// that navigates (or reloads) in the same tab keeps it (the SDK's
	// followPage). 0 (the default) ends it at once, as before.
	DisconnectGraceMs int64 `json:"disconnectGraceMs,omitempty"`
}

// SessionInfo is the result of create_session and resume_session.
type SessionInfo struct {
	SessionID           string   `json:"sessionId"`
	Provider            string   `json:"provider"`
	Model               string   `json:"model,omitempty"`
	Status              Status   `json:"status"`
	Seq                 int64    `json:"seq"` // the last seq already sent; the next event has a larger one
	Tools               []string `json:"tools"`
	AutoEndOnDisconnect bool     `json:"autoEndOnDisconnect"`
	DisconnectGraceMs   int64    `json:"disconnectGraceMs,omitempty"`
}

type SessionParams struct {
	SessionID string `json:"sessionId"`
}

// ResumeSessionParams: a page that already followed the session (it lost its
// connection) passes the last seq it handled and gets every later event
// again, in order, from Core's event log, and no call is delivered twice.
// Without lastSeq (a reloaded page) pending calls are delivered again.
// Redeliver with lastSeq is the next page of a session that follows the
// page (the SDK's followPage): lastSeq is the last seq the previous page
// handled, so what happened while no page was loaded (the agent's chat)
// is replayed, and the calls still pending that the previous page was
// given are delivered again (redelivered: true) after the replay, since
// this page never ran them.
type ResumeSessionParams struct {
	SessionID string `json:"sessionId"`
	LastSeq   *int64 `json:"lastSeq,omitempty"`
	Redeliver bool   `json:"redeliver,omitempty"`
}

type SendTextParams struct {
	SessionID string `json:"sessionId"`
	Text      string `json:"text"`
}

// TurnStarted is the result of send_text and prepare: the turn was accepted.
// The turn's outcome arrives later as a done event with the same turnId.
type TurnStarted struct {
	TurnID    string `json:"turnId"`
	StartedAt int64  `json:"startedAt"` // unix ms
}

type SubmitToolResultParams struct {
	SessionID     string `json:"sessionId"`
	ToolRequestID string `json:"toolRequestId"`
	// Refusal, instead of a result: the handler refused the call (issue
	// 26). The agent gets TOOL_REFUSED with the page's code and message.
	Refusal *Refusal `json:"refusal,omitempty"`
	// MCPContent, beside a result: the MCP content blocks the handler
	// answered with (a WebMCP tool's CallToolResult, or mcpResult() in
	// a Pedelec handler), an array of text, image, audio, resource_link
	// and resource blocks. MCP clients get these blocks as they are;
	// Result stays what the call means, for `pedelec tool-call` and
	// every other reader. Core checks each block (session/mcp_content.go).
	MCPContent json.RawMessage `json:"mcpContent,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"` // last: MarshalRaw writes it as it is
}

// Refusal is a handler's "no" to one call: Code is the page's own
// (upper-snake, e.g. "OUT_OF_STOCK"), Message is written for the agent,
// Retryable says whether the same call could succeed later.
type Refusal struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Retryable bool   `json:"retryable"`
}

// ToolProgressParams: a handler's ctx.progress for one pending call, the
// fields of MCP's notifications/progress. Progress should grow with each
// report; Total is 0 while unknown.
type ToolProgressParams struct {
	SessionID     string  `json:"sessionId"`
	ToolRequestID string  `json:"toolRequestId"`
	Progress      float64 `json:"progress"`
	Total         float64 `json:"total,omitempty"`
	Message       string  `json:"message,omitempty"`
}

// ---- event payloads ----

type StatusChangedData struct {
	Status         Status `json:"status"`
	PreviousStatus Status `json:"previousStatus"`
	// While waiting_tool_result: the tools still pending, oldest first.
	// While waiting_approval: the calls waiting for the user's consent.
	WaitingOn []PendingTool `json:"waitingOn,omitempty"`
}

type PendingTool struct {
	ToolRequestID string `json:"toolRequestId"`
	Tool          string `json:"tool"`
	// ApprovalID names the call's consent request (waiting_approval):
	// what `pedelec approve <id>` and the console answer.
	ApprovalID string `json:"approvalId,omitempty"`
}

// AgentActivityData is one step of a tool of the agent's own (its shell,
// its file reads): ACP's tool_call / tool_call_update (status pending,
// in_progress, completed, failed) or Pedelec's answer to its permission
// request (status allowed or rejected, with Reason). Display only: the
// page runs nothing for it.
type AgentActivityData struct {
	ToolCallID string `json:"toolCallId"`
	Title      string `json:"title"`
	Kind       string `json:"kind,omitempty"` // ACP's: read, edit, execute, fetch, ...
	Status     string `json:"status"`
	Reason     string `json:"reason,omitempty"`
}

// Agent activity statuses beyond ACP's own.
const (
	ActivityAllowed  = "allowed"
	ActivityRejected = "rejected"
)

type ChatDeltaData struct {
	Text string `json:"text"`
}

// ToolCallData asks the page to run one handler. Deadline is unix ms.
// Args comes last: Core writes the agent's bytes in as they are (MarshalRaw).
type ToolCallData struct {
	ToolRequestID string          `json:"toolRequestId"`
	Tool          string          `json:"tool"`
	TimeoutMs     int64           `json:"timeoutMs"`
	Deadline      int64           `json:"deadline"`
	TurnStartedAt int64           `json:"turnStartedAt"`
	Redelivered   bool            `json:"redelivered,omitempty"`
	Args          json.RawMessage `json:"args"`
}

// ToolCallSettledData tells the page a call no longer waits for it, so an
// interactive handler (a modal) can close. Outcome is one of SettleOutcomes.
type ToolCallSettledData struct {
	ToolRequestID string        `json:"toolRequestId"`
	Tool          string        `json:"tool"`
	Outcome       SettleOutcome `json:"outcome"`
}

type ErrorData struct {
	Error *Error `json:"error"`
}

// DoneData ends a turn. OK false carries the turn's error.
type DoneData struct {
	OK      bool   `json:"ok"`
	Prepare bool   `json:"prepare,omitempty"`
	Error   *Error `json:"error,omitempty"`
}

// EventsTruncatedData says which events a resuming page missed for good:
// seqs FromSeq..ToSeq were dropped from the bounded log (or never written
// before a crash). Error has the code EVENTS_TRUNCATED.
type EventsTruncatedData struct {
	Error   *Error `json:"error,omitempty"`
	FromSeq int64  `json:"fromSeq"`
	ToSeq   int64  `json:"toSeq"`
	Dropped int64  `json:"dropped"`
}

type EndedData struct {
	Reason EndReason `json:"reason"` // one of EndReasons
}

// ---- the agent endpoint (pedelec tool-call / tool-spec → Core) ----

// Agent endpoint paths. Requests are POSTed as JSON with the session secret in
// the Authorization header ("Bearer <secret>").
const (
	AgentToolCallPath = "/agent/tool-call"
	AgentToolSpecPath = "/agent/tool-spec"
	// AgentToolWaitPath: `tool-call --wait <handle>` (AgentToolWaitRequest).
	AgentToolWaitPath = "/agent/tool-call/wait"
)

// Environment Core gives every provider process.
const (
	EnvThreadID = "PEDELEC_THREAD_ID"
	EnvCoreURL  = "PEDELEC_CORE_URL"
	EnvSecret   = "PEDELEC_AGENT_SECRET"
	// EnvCallBudgetMs is how long the agent's shell lets one command run,
	// less a margin: `tool-call` hands a call still running after it over
	// to `tool-call --wait` (TOOL_CALL_PENDING) instead of being killed.
	EnvCallBudgetMs = "PEDELEC_CALL_BUDGET_MS"
)

// AgentToolCallRequest: Args comes last, written as the agent gave it (MarshalRaw).
// BudgetMs > 0: answer TOOL_CALL_PENDING with a handle once the call has
// run that long (the call goes on). Stream: the answer is NDJSON, progress
// lines (AgentStreamLine) before the one AgentResult line. MCP: the
// caller is `pedelec mcp` serving one session, and the answer is an MCP
// client's (the page's MCP content blocks with it, inline).
type AgentToolCallRequest struct {
	ThreadID string          `json:"threadId"`
	Tool     string          `json:"tool"`
	BudgetMs int64           `json:"budgetMs,omitempty"`
	Stream   bool            `json:"stream,omitempty"`
	MCP      bool            `json:"mcp,omitempty"`
	Args     json.RawMessage `json:"args"`
}

// AgentToolWaitRequest waits for a call handed over with TOOL_CALL_PENDING;
// BudgetMs and Stream as in AgentToolCallRequest.
type AgentToolWaitRequest struct {
	ThreadID string `json:"threadId"`
	Handle   string `json:"handle"`
	BudgetMs int64  `json:"budgetMs,omitempty"`
	Stream   bool   `json:"stream,omitempty"`
}

// AgentStreamLine is a line of a streamed answer before the last one (the
// AgentResult, which has "ok"): the call's progress as its handler reported
// it.
type AgentStreamLine struct {
	Progress *Progress `json:"progress"`
}

// PendingDetails are TOOL_CALL_PENDING's details: Next is the command
// line that waits for the same call.
type PendingDetails struct {
	Handle        string `json:"handle"`
	Next          string `json:"next"`
	Tool          string `json:"tool"`
	ToolRequestID string `json:"toolRequestId"`
	TimeoutMs     int64  `json:"timeoutMs"`
	ElapsedMs     int64  `json:"elapsedMs"`
}

type AgentToolSpecRequest struct {
	ThreadID string `json:"threadId"`
	Tool     string `json:"tool"`
}

// AgentResult is what the agent endpoint answers and what tool-call /
// tool-spec print on stdout: {"ok":true,"result":...} or {"ok":false,"error":{...}}.
// AgentResultJSON writes it with the result as the page sent it.
type AgentResult struct {
	OK bool `json:"ok"`
	// UntrustedContent marks the result of a tool whose page says it
	// carries content the page does not vouch for (WebMCP's
	// untrustedContentHint, issue 24); the prompt tells the agent what it means.
	UntrustedContent bool `json:"untrustedContent,omitempty"`
	// MCPContent is the page's own MCP content blocks for the result
	// (SubmitToolResultParams.MCPContent), in an answer for an MCP
	// client only: its CallToolResult is these blocks, Result its
	// structuredContent when Result is an object. `tool-call` never
	// gets it.
	MCPContent json.RawMessage `json:"mcpContent,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	// ResultFile, instead of Result: the result was larger than Core's
	// inline limit and was written to a file the agent reads (issue 26).
	ResultFile *ResultFile `json:"resultFile,omitempty"`
	Error      *Error      `json:"error,omitempty"`
}

// ResultFile is what an agent gets instead of a result over the inline
// limit (`pedelec serve --max-inline-result-bytes`): where the full JSON
// is, how big it is, its top-level shape and its first bytes.
type ResultFile struct {
	// Path is the file's absolute path; it lies inside the agent's working
	// directory (the session's work/assets), so the agent's own file tools
	// read it.
	Path string `json:"path"`
	// AssetPath is the same file as a session asset, for the page
	// (readAsset) and for MCP clients (the resource link's name).
	AssetPath string      `json:"assetPath"`
	SizeBytes int         `json:"sizeBytes"`
	Shape     ResultShape `json:"shape"`
	// Preview is the result's first bytes as text, cut at a character.
	Preview string `json:"preview"`
	// Hint says, in one sentence, what to do with the file.
	Hint string `json:"hint"`
}

// ResultShape is a JSON value's top level: its type, an object's keys (the
// first ones, in order) or an array's length.
type ResultShape struct {
	Type   string   `json:"type"` // object, array, string, number, boolean, null
	Keys   []string `json:"keys,omitempty"`
	Length *int     `json:"length,omitempty"`
}
