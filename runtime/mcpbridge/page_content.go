package mcpbridge

import (
	"bytes"
	"encoding/json"

	"github.com/kaoruisaac/pedelec/runtime/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A page's own MCP content blocks (wire.AgentResult.MCPContent: a WebMCP
// tool's CallToolResult, or mcpResult() in a Pedelec handler) are the
// CallToolResult's content as the page wrote them: text stays text,
// an image stays an image. Core checked every block before the call
// settled, and the result beside them is what the call means: an error
// result makes the answer isError (the page's CallToolResult said
// isError: true), an object is its structuredContent (the page gave
// one). The SDK writes the fields MCP defines for each block.

// pageContentResult is the CallToolResult of content and result.
func pageContentResult(content, result json.RawMessage) *mcp.CallToolResult {
	var res mcp.CallToolResult
	// The SDK reads the blocks as it reads a server's answer; a block it
	// cannot read (a Core older than this bridge let it through) leaves
	// the result as Pedelec shows any other.
	if err := res.UnmarshalJSON(append(append([]byte(`{"content":`), content...), '}')); err != nil {
		if isToolErrorResult(result) {
			return failedResult(result)
		}
		return Result(result)
	}
	res.IsError = isToolErrorResult(result)
	if trimmed := bytes.TrimLeft(result, " \t\r\n"); !res.IsError && len(trimmed) > 0 && trimmed[0] == '{' {
		res.StructuredContent = json.RawMessage(wire.UnescapeHTML(result))
	}
	return &res
}
