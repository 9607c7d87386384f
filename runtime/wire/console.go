package wire

import "encoding/json"

// The console (issue 22): Core's own page at ConsolePath shows the user
// what agents do. Its feed and a session's record are read-only; the
// console's buttons act through ApprovalsPath. Only Core's own origin may
// read either (docs/security.md, "The console").
const (
	ConsolePath = "/console/"
	// ConsoleFeedPath streams Server-Sent Events: one "snapshot" event
	// (ConsoleSnapshot) and then "delta" events (ConsoleDelta).
	ConsoleFeedPath = "/console/api/feed"
	// ConsoleRecordPath + <session id> + "/record" is one session's
	// ConsoleSession as a JSON download.
	ConsoleRecordPath = "/console/api/sessions/"
	// ApproverTokenHeader carries the approver token on the console's
	// actions (or "Authorization: Bearer <token>", as the CLI sends it).
	ApproverTokenHeader = "X-Pedelec-Approver"
	// ConsoleConnectPath answers ConsoleConnect to Core's own pages.
	ConsoleConnectPath = "/console/api/connect"
)

// ConsoleConnect is how to reach this Core from the user's tools.
type ConsoleConnect struct {
	CoreURL string `json:"coreUrl"`
	// MCPCommand is the `pedelec mcp` line an MCP client runs for this
	// Core (with --state-dir when Core's is not the default).
	MCPCommand string `json:"mcpCommand"`
}

// ConsoleSnapshot is the feed's first event: everything the console shows.
type ConsoleSnapshot struct {
	Version  int64            `json:"version"`
	CoreURL  string           `json:"coreUrl"`
	Sessions []ConsoleSession `json:"sessions"` // oldest first
	// Processes are the live provider processes: those carrying a session's
	// PEDELEC_THREAD_ID (found on Linux only).
	Processes []ConsoleProcess `json:"processes"`
	// Approvals is null when this Core has no approvals API yet.
	Approvals *ApprovalsState `json:"approvals"`
}

// ConsoleDelta is one later feed event: only what changed since the last.
// A session listed is whole (replace it); an absent field is unchanged.
type ConsoleDelta struct {
	Version   int64             `json:"version"`
	Sessions  []ConsoleSession  `json:"sessions,omitempty"`
	Removed   []string          `json:"removed,omitempty"` // sessions Core forgot
	Processes *[]ConsoleProcess `json:"processes,omitempty"`
	Approvals *ApprovalsState   `json:"approvals,omitempty"`
}

// ConsoleSession is one session as the console shows it and as its record
// downloads. Times are unix milliseconds.
type ConsoleSession struct {
	ID        string `json:"id"`
	Origin    string `json:"origin"`
	Provider  string `json:"provider"`
	Model     string `json:"model,omitempty"`
	Status    Status `json:"status"`
	CreatedAt int64  `json:"createdAt"`
	Seq       int64  `json:"seq"`
	Attached  bool   `json:"attached"` // a page is connected
	// External: the agent is an MCP client outside Core (provider "mcp").
	External  bool      `json:"external,omitempty"`
	EndReason EndReason `json:"endReason,omitempty"`
	Tools     []string  `json:"tools"`
	// ToolHints: each tool's annotations that are true ("read-only",
	// "destructive", ...) and "asks consent" when its calls wait for the user.
	ToolHints map[string][]string `json:"toolHints,omitempty"`
	Turns     []ConsoleTurn       `json:"turns"`
	Calls     []ConsoleCall       `json:"calls"` // oldest first
	// Truncated: the session's bounded event log no longer holds its
	// oldest events, so older turns and calls are missing here.
	Truncated bool `json:"truncated,omitempty"`
}

// ConsoleTurn is one turn: what the user sent and what the agent wrote.
type ConsoleTurn struct {
	ID        string `json:"id"`
	Text      string `json:"text"` // the user's message ("" when Core no longer knows it)
	Warmup    bool   `json:"warmup,omitempty"`
	StartedAt int64  `json:"startedAt,omitempty"`
	Agent     string `json:"agent"` // the agent's chat text, joined
	Done      bool   `json:"done"`
	OK        bool   `json:"ok"`
	Error     *Error `json:"error,omitempty"`
	// Activity is what the agent did with tools of its own during the
	// turn (agent_activity events): each call once, at its latest status,
	// in the order first seen; at most ConsoleActivityMax.
	Activity []AgentActivityData `json:"activity,omitempty"`
}

// ConsoleActivityMax bounds ConsoleTurn.Activity: an agent reading a
// thousand files shows the first ones, not a page too long to read.
const ConsoleActivityMax = 100

// ConsoleCall is one tool call. Status is "pending" or how it settled (a
// SettleOutcome). Command repeats the call from the agent's shell.
type ConsoleCall struct {
	ID              string          `json:"id"`
	TurnID          string          `json:"turnId,omitempty"`
	Tool            string          `json:"tool"`
	Args            json.RawMessage `json:"args"`
	Status          string          `json:"status"`
	StartedAt       int64           `json:"startedAt"`
	SettledAt       int64           `json:"settledAt,omitempty"`
	DurationMs      *int64          `json:"durationMs,omitempty"`
	TimeoutMs       int64           `json:"timeoutMs"`
	Result          json.RawMessage `json:"result,omitempty"`
	ResultTruncated bool            `json:"resultTruncated,omitempty"`
	Error           *Error          `json:"error,omitempty"`
	ApprovedBy      string          `json:"approvedBy,omitempty"`
	Command         string          `json:"command"`
	// Progress is the handler's latest ctx.progress (issue 26), as the
	// console last noted it.
	Progress *Progress `json:"progress,omitempty"`
}

// ConsoleProcess is one live provider process.
type ConsoleProcess struct {
	PID       int    `json:"pid"`
	SessionID string `json:"sessionId"`
	Command   string `json:"command"`
}
