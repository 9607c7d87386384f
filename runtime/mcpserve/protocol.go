package mcpserve

import (
	"encoding/json"
	"slices"
)

// The MCP revisions this server speaks, newest first: the ones that begin
// with initialize, as the go-sdk v1.8.0 server it replaces did. 2026-07-28
// (stateless, server/discover) is not among them: a client asking for it
// gets -32601 for server/discover (stdio) or -32022 (HTTP) and falls back
// to initialize, as SEP-2575 has it. See docs/decisions.md.
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// firstStatelessVersion is the first revision without initialize.
const firstStatelessVersion = "2026-07-28"

// noBatchesSince is the first revision that removed JSON-RPC batches.
const noBatchesSince = "2025-06-18"

// negotiate picks the version to answer initialize with: the client's if
// this server speaks it, else the newest it speaks (the spec's rule; the
// client then decides whether it can go on).
func negotiate(clientVersion string) string {
	if slices.Contains(protocolVersions, clientVersion) {
		return clientVersion
	}
	return protocolVersions[0]
}

// The methods and notifications this server knows, in one place.
const (
	methodInitialize         = "initialize"
	methodPing               = "ping"
	methodToolsList          = "tools/list"
	methodToolsCall          = "tools/call"
	notificationCancelled    = "notifications/cancelled"
	notificationToolsChanged = "notifications/tools/list_changed"
)

// Implementation names this server (serverInfo).
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// Tool is one tool as tools/list shows it.
type Tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// Content is one content block of a tool result; this server only makes
// text.
type Content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// TextContent is a text content block.
func TextContent(text string) Content { return Content{Type: "text", Text: text} }

// CallToolResult is the result of tools/call.
type CallToolResult struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

type initializeParams struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ClientInfo      json.RawMessage `json:"clientInfo"`
}

type initializeResult struct {
	Capabilities    serverCapabilities `json:"capabilities"`
	Instructions    string             `json:"instructions,omitempty"`
	ProtocolVersion string             `json:"protocolVersion"`
	ServerInfo      Implementation     `json:"serverInfo"`
}

// serverCapabilities is what this server offers: tools, and
// notifications/tools/list_changed even while there are none, so the
// client knows to listen for pages opening.
type serverCapabilities struct {
	Tools struct {
		ListChanged bool `json:"listChanged"`
	} `json:"tools"`
}

type listToolsParams struct {
	Cursor string `json:"cursor,omitempty"`
}

type listToolsResult struct {
	Tools      []Tool `json:"tools"`
	NextCursor string `json:"nextCursor,omitempty"`
}

type callToolParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

type cancelledParams struct {
	RequestID json.RawMessage `json:"requestId"`
	Reason    string          `json:"reason,omitempty"`
}

// unsupportedVersionData is the data of a CodeUnsupportedProtocolVersion
// error.
type unsupportedVersionData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}
