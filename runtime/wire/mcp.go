package wire

import "encoding/json"

// ---- the MCP bridge (pedelec mcp → Core) ----

// MCP bridge paths. Both take the Core token (written by `pedelec serve` to
// <state-dir>/core-token) as "Authorization: Bearer <token>". MCPPath is
// Core's own Streamable HTTP MCP endpoint, for clients that prefer HTTP.
const (
	MCPToolsPath = "/mcp-bridge/tools" // GET ?core=<id>&after=<version>: long-poll for the tool set
	MCPCallPath  = "/mcp-bridge/call"  // POST MCPCallRequest: one call through the broker
	MCPPath      = "/mcp"
	// MCPLinkPath: GET with "Connection: Upgrade" and "Upgrade:
	// MCPLinkProtocol", answered 101; then the connection carries
	// `pedelec mcp`'s calls as newline-delimited JSON, MCPLinkCall one way
	// and MCPLinkAnswer the other, as many at once as the client makes:
	// one connection, proven and authenticated once, for all its calls.
	MCPLinkPath = "/mcp-bridge/link"
)

// MCPLinkProtocol is the Upgrade token of MCPLinkPath.
const MCPLinkProtocol = "pedelec-mcp-link/1"

// One session's MCP endpoint, for the agent Core drives in that session
// (an ACP agent, given it at session/new). Both take the session's agent
// secret (PEDELEC_AGENT_SECRET) as "Authorization: Bearer <secret>", never
// the Core token, and serve only that session's tools under their own names.
const (
	// MCPSessionPath + <sessionId>: Streamable HTTP (GET, POST, DELETE).
	MCPSessionPath = "/mcp/session/"
	// MCPSessionToolsPath: GET ?thread=<sessionId>&core=<id>&after=<version>,
	// the long-poll of `pedelec mcp` serving one session over stdio; the
	// answer is an MCPSnapshot holding that session alone. Its calls go to
	// AgentToolCallPath, as `pedelec tool-call`'s do.
	MCPSessionToolsPath = "/mcp-bridge/session-tools"
)

// CoreTokenFile is the token's file name inside Core's state directory.
const CoreTokenFile = "core-token"

// MCPSnapshot is every live session whose provider is "mcp", with its
// tools. Core is a random id of this Core process; Version grows whenever
// the set changes. A client long-polls with both and gets an answer as soon
// as either differs.
type MCPSnapshot struct {
	Core     string       `json:"core"`
	Version  int64        `json:"version"`
	Sessions []MCPSession `json:"sessions"`
}

// MCPSession is one page's mcp session. Ordinal numbers the mcp sessions of
// this Core from 1 in creation order; it names the session's tool prefix
// ("page<ordinal>__") for a tool whose name another page's tool holds.
type MCPSession struct {
	SessionID string    `json:"sessionId"`
	Ordinal   int       `json:"ordinal"`
	Origin    string    `json:"origin"`
	Tools     []MCPTool `json:"tools"`
}

// MCPTool is one tool as an MCP client will see it.
type MCPTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	ArgsSchema  json.RawMessage `json:"argsSchema"` // the tool's argsSchema or inputSchema: MCP's inputSchema
	TimeoutMs   int64           `json:"timeoutMs"`
	// Annotations are the definition's annotations as the page declared
	// them (schema.Annotations: MCP's hints, WebMCP's, title); absent when
	// it declared none.
	Annotations json.RawMessage `json:"annotations,omitempty"`
	// AsksConsent: each call waits for the user's approval (issue 22).
	AsksConsent bool `json:"asksConsent,omitempty"`
	// OutputSchema is the definition's outputSchema, absent when it
	// declares none (issue 26).
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// MCPCallRequest calls one tool of one mcp session. Args comes last,
// written as the MCP client sent it (MarshalRaw). Stream asks for the
// handler's progress before the answer, as AgentToolCallRequest does.
type MCPCallRequest struct {
	SessionID string          `json:"sessionId"`
	Tool      string          `json:"tool"`
	Stream    bool            `json:"stream,omitempty"`
	Args      json.RawMessage `json:"args"`
}

// MCPLinkCall is one line `pedelec mcp` sends on its link: a call
// (MCPCallRequest's fields, Args last, as the client sent them) that ID
// names until its answer, or with Cancel, the client giving up call ID
// (as dropping its request does on MCPCallPath).
type MCPLinkCall struct {
	ID        uint64          `json:"id"`
	Cancel    bool            `json:"cancel,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	Stream    bool            `json:"stream,omitempty"`
	Args      json.RawMessage `json:"args"`
}

// MCPLinkAnswer is one line Core sends on the link: a progress report of
// call ID (asked with Stream), or its answer, the last line about it.
type MCPLinkAnswer struct {
	ID       uint64          `json:"id"`
	Progress *Progress       `json:"progress,omitempty"`
	Answer   json.RawMessage `json:"answer,omitempty"` // an AgentResult
}

// Progress is how far a running call has come, as MCP's
// notifications/progress carries it: Progress grows with every report,
// Total is where it ends when that is known (0: unknown), Message says
// what is happening. The MCP bridge makes one while a call waits for the
// page's handler (a heartbeat); the handler reports its own with
// ctx.progress (tool_progress, issue 26).
type Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}
