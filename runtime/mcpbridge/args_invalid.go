package mcpbridge

import (
	"encoding/json"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/kaoruisaac/pedelec/schema"
)

// forMCP words an error for an MCP client. Core's TOOL_ARGS_INVALID tells
// an agent in a session to run `pedelec tool-spec`, which an MCP client
// cannot: here it names the tool as the client lists it and points at the
// tool's inputSchema, which the client already has from tools/list. The
// code and details (tool, violations) stay as Core gave them.
func forMCP(werr *wire.Error, name string) *wire.Error {
	if werr == nil || werr.Code != wire.CodeToolArgsInvalid {
		return werr
	}
	// Through `pedelec mcp` the details arrive decoded from JSON, from
	// Core's /mcp as schema's own types: one decoding reads both.
	raw, err := json.Marshal(werr.Details)
	if err != nil {
		return werr
	}
	var d struct {
		Violations []schema.Violation `json:"violations"`
	}
	if json.Unmarshal(raw, &d) != nil || len(d.Violations) == 0 {
		return werr
	}
	out := *werr
	out.Message = schema.ArgsInvalidMessage(name, d.Violations,
		"the tool's inputSchema (from tools/list) is the full argument schema")
	return &out
}
