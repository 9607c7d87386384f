package provider

import (
	"context"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// MCPName is the provider whose agent is an external MCP client: the user's
// own Claude Code, Codex, Cursor, VS Code... reaching the page's tools
// through `pedelec mcp` or Core's /mcp endpoint.
const MCPName = "mcp"

// External is implemented by providers whose agent Core does not start: the
// session has no turns, and tool calls arrive whenever the agent sends them.
type External interface {
	External() bool
}

// IsExternal reports whether p's agent lives outside Core.
func IsExternal(p Provider) bool {
	e, ok := p.(External)
	return ok && e.External()
}

type mcpProvider struct{}

// NewMCP is the "mcp" provider. It is always available: Core itself serves
// the MCP clients, and starts no process.
func NewMCP() Provider { return mcpProvider{} }

func init() {
	Register(Spec{Name: MCPName, Title: "MCP client", Rank: 90, NoSettings: true, New: func(Settings) Provider { return NewMCP() }})
}

func (mcpProvider) Name() string   { return MCPName }
func (mcpProvider) External() bool { return true }

func (mcpProvider) Check(context.Context) wire.ProviderInfo {
	return wire.ProviderInfo{Name: MCPName, Available: true,
		Description: "an MCP client you run yourself (Claude Code, Codex, Cursor, VS Code...) calls the page's tools through `pedelec mcp`"}
}

// RunTurn is never reached: Core refuses turns for external sessions. It
// answers anyway, so a future caller gets a clear error instead of a hang.
func (mcpProvider) RunTurn(context.Context, *Turn, func(Event)) error {
	return wire.Errorf(wire.CodeSendTextNotSupported, "the mcp provider has no turns: its agent is an external MCP client")
}
