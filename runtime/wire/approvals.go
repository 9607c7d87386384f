package wire

import (
	"encoding/json"
	"time"
)

// Approvals (issue 22): the user decides which sites may use Core and
// which consequential calls run. runtime/approvals keeps the decisions;
// the console, the approval window and `pedelec approvals|approve|deny|
// revoke` read and make them through ApprovalsPath with the per-run
// approver token (<state-dir>/ApproverTokenFile).
const (
	// ApprovalsPath + "state" (GET) answers ApprovalsState; + "decide"
	// (POST ApprovalDecision) and + "revoke" (POST OriginRevocation) act.
	ApprovalsPath = "/console/api/"
	// ApproverTokenFile in the state directory holds the per-run approver
	// token (mode 0600): what the CLI sends as "Authorization: Bearer".
	ApproverTokenFile = "approver-token"
)

// Methods of the page WebSocket about the page's own origin: the only ones
// an origin the user has not approved may call (the origin gate). Their
// params are {}; each answers OriginApprovalStatus.
const (
	MethodGetApprovalStatus = "get_approval_status" // {approved, origin}; never asks the user
	MethodRequestApproval   = "request_approval"    // asks the user (once per origin): {approved, requestId, url, ...}
	MethodAwaitApproval     = "await_approval"      // waits for the decision: {approved: true} or the code
)

// OriginApprovalStatus is whether the connection's origin may use Core,
// and while the user is being asked, where: RequestID names the pending
// request, URL is the approval window to open, TimeoutMs how long the user
// has to decide.
type OriginApprovalStatus struct {
	Approved  bool       `json:"approved"`
	Origin    string     `json:"origin"`
	RequestID string     `json:"requestId,omitempty"`
	URL       string     `json:"url,omitempty"`
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
	TimeoutMs int64      `json:"timeoutMs,omitempty"`
}

// ApprovalKind says what a pending request asks the user to allow.
type ApprovalKind string

const (
	ApprovalOrigin ApprovalKind = "origin" // a site wants to create or resume sessions
	ApprovalCall   ApprovalKind = "call"   // a tool call that asks for consent first
)

// Decision is the user's answer to a pending request.
type Decision string

const (
	DecisionApprove Decision = "approve"
	DecisionDeny    Decision = "deny"
	// DecisionAllowSession approves this call and every later call of the
	// same tool in the same session without asking again.
	DecisionAllowSession Decision = "allow_session"
)

// ApprovalRequest is one pending request, as the console and the CLI list it.
type ApprovalRequest struct {
	ID        string       `json:"id"`
	Kind      ApprovalKind `json:"kind"`
	Origin    string       `json:"origin"`
	CreatedAt time.Time    `json:"createdAt"`
	ExpiresAt time.Time    `json:"expiresAt"`
	// For calls: the session, the call and what the agent asked.
	SessionID string          `json:"sessionId,omitempty"`
	CallID    string          `json:"callId,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	Args      json.RawMessage `json:"args,omitempty"`
	// Provider is who asks: the session's agent (codex, gemini, mcp, ...).
	Provider string `json:"provider,omitempty"`
}

// OriginGrant is one approved origin (scheme://host:port).
type OriginGrant struct {
	Origin     string    `json:"origin"`
	ApprovedAt time.Time `json:"approvedAt"`
	// By says who approved: "console", "cli", "--allow-origin".
	By string `json:"by"`
}

// ApprovalsState is what GET ApprovalsPath+"state" answers.
type ApprovalsState struct {
	Pending []ApprovalRequest `json:"pending"`
	Origins []OriginGrant     `json:"origins"`
	// Ended are the requests that stopped pending lately, newest last (at
	// most ApprovalsEndedMax), so a window still showing one says how it
	// ended instead of offering buttons that can only fail.
	Ended []ApprovalOutcome `json:"ended,omitempty"`
}

// ApprovalsEndedMax bounds ApprovalsState.Ended.
const ApprovalsEndedMax = 64

// ApprovalOutcome is how a request that is no longer pending ended.
// Decision is "" when nobody decided: it expired (TimedOut) or the page
// stopped waiting.
type ApprovalOutcome struct {
	ID       string    `json:"id"`
	Decision Decision  `json:"decision,omitempty"`
	By       string    `json:"by,omitempty"`
	TimedOut bool      `json:"timedOut,omitempty"`
	At       time.Time `json:"at"`
}

// ApprovalDecision is POST ApprovalsPath+"decide". ID is a request id, or
// for origins the origin itself (`pedelec approve https://app.example`).
type ApprovalDecision struct {
	ID       string   `json:"id"`
	Decision Decision `json:"decision"`
	Reason   string   `json:"reason,omitempty"`
}

// OriginRevocation is POST ApprovalsPath+"revoke": the origin loses its
// approval and its live sessions end.
type OriginRevocation struct {
	Origin string `json:"origin"`
}
