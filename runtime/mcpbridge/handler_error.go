package mcpbridge

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A page's handler that throws (or is missing) still answers: the SDK
// submits {"error":{"code":"TOOL_HANDLER_ERROR","message":...}}, the shape
// it recommends for a tool's own error result too, so an agent always
// hears why. To an MCP client that is a failed call, and MCP says so with
// isError: true (the conformance suite's tools-call-error); the result
// itself is passed on unchanged.

// failedResult is Result for a handler's error result, marked isError.
func failedResult(result json.RawMessage) *mcp.CallToolResult {
	res := Result(result)
	res.IsError = true
	return res
}

// isToolErrorResult reports whether result is a tool error result: an
// object whose only member is "error", an object with a string code and
// message.
func isToolErrorResult(result json.RawMessage) bool {
	if !bytes.Contains(result, []byte(`"error"`)) {
		return false // most results: not decoded just to ask
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(result, &top) != nil || len(top) != 1 || top["error"] == nil {
		return false
	}
	var e struct {
		Code    *string `json:"code"`
		Message *string `json:"message"`
	}
	return json.Unmarshal(top["error"], &e) == nil && e.Code != nil && e.Message != nil
}
