package wire

import "encoding/json"

// MethodUpdateTools replaces a live session's tools (issue 24): a page
// whose tools change while the session lives (WebMCP registerTool and its
// signal) sends the whole new list, checked as create_session's is.
const MethodUpdateTools = "update_tools"

// UpdateToolsParams: tools is kept raw, as CreateSessionParams.Skills is,
// so the schema package sees exactly what the page sent.
type UpdateToolsParams struct {
	SessionID string          `json:"sessionId"`
	Tools     json.RawMessage `json:"tools"`
}

// UpdateToolsResult says what changed, by name, and the list now in force.
type UpdateToolsResult struct {
	Tools   []string `json:"tools"`
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []string `json:"changed"` // same name, different definition
}
